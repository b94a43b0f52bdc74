//===- PlanWarpSpecialize.cpp - tile-plan-warp-specialize -----------------===//
//
// Decides the warp roles of a pipelined wgmma loop on chips with TMA and
// setmaxnreg (sm_90a). Without roles every thread both waits for its
// loads and multiplies, and the thread that issues the next TMA load
// waits for every warpgroup to release the slot first. With them, a
// producer warpgroup added after the kernel's threads issues the loads
// (one thread, running up to S tiles ahead, gated by the ring's empty
// barriers) and the kernel's own threads, the consumers, only wait for
// full slots, multiply and release them. The producer gives its registers
// to the consumers (`setmaxnreg`), so the consumers keep nearly the whole
// register file.
//
// A loop gets roles when everything the producer would run can run apart
// from the consumers:
// - it is the kernel's only planned loop, directly in the kernel body (the
//   barriers' phases count its iterations only);
// - its gemms are all wgmma, and every operand copy qualifies for TMA
//   (PipelineTma.cpp: a row-major global box on a canonical swizzle);
// - the copies' offsets and the loop bounds are computed by
//   side-effect-free ops from the block indices, the kernel's arguments and
//   the induction variable (the producer recomputes them);
// - the kernel's threads are whole warpgroups, and one more fits the
//   block.
//
// - without roles, one block fills a multiprocessor (blocksWithoutRoles):
//   where two or more fit, they overlap one another's loads already, and
//   the producer's threads would cost that occupancy.
//
// A warp-specialized kernel of one gemm whose grid is static and whose
// loop runs the same number of iterations in every block (a GEMM) is also
// made persistent (kPersistentAttr): one block per multiprocessor walks
// the tiles, so the producer loads the next tile's operands while the
// consumers run the epilogue of the last one, and no block pays the
// launch, barrier set-up and ring fill again (CUTLASS's persistent
// warp-specialized kernels). Kernels of several gemms (FlashAttention,
// MLA decode) keep one block per tile.
//
// The register split follows FlashAttention-3's: the consumers share the
// file in multiples of 8, at most 240 each (a thread's limit is 255; 240
// leaves ptxas the allocation granularity), after 24 for the producer,
// which then gets what the block's launch allocation leaves, up to 56
// (one consumer warpgroup leaves plenty: a producer held to 24 spills its
// tile coordinates; two leave exactly 24). In a loop of one gemm whose
// fragments need well under 240 (a GEMM's 128 accumulators a thread), the
// producer takes 40 and the consumers 232, as CUTLASS splits two
// warpgroups.
//
//===----------------------------------------------------------------------===//

#include "GemmLayouts.h"
#include "GemmLowering.h"
#include "SIMTLayout.h"

#include "tilec/Passes/Passes.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <algorithm>
#include <limits>

namespace tilec {
#define GEN_PASS_DEF_TILEPLANWARPSPECIALIZE
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

constexpr int64_t kWarpgroup = 128;
constexpr int64_t kProducerRegisters = 24;
constexpr int64_t kMaxConsumerRegisters = 240;
constexpr int64_t kMaxProducerRegisters = 56;
constexpr int64_t kRoomyProducerRegisters = 40;
/// Registers the consumers keep past their fragments' estimate before the
/// producer may take 40: ptxas's temporaries, the epilogue's values.
constexpr int64_t kConsumerSlack = 48;

/// `op` if it is one of its pipelined loop's operand copies (stage 0 of
/// tile-plan-pipeline's schedule: the copies into the rings), else null.
tile::CopyOp operandCopy(Operation *op) {
  auto copy = dyn_cast<tile::CopyOp>(op);
  auto stage = op->getAttrOfType<IntegerAttr>("tile.stage");
  return copy && stage && stage.getInt() == 0 ? copy : tile::CopyOp();
}

/// Whether `value` is computed, inside `kernel`, by side-effect-free ops
/// only (from block indices, kernel arguments, constants and, inside
/// `loop`, its induction variable): the producer can recompute it.
bool recomputable(Value value, tile::KernelOp kernel) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return true; // block indices, the induction variable, func arguments
  if (!kernel->isAncestor(def))
    return true; // computed before the kernel, on the host side
  if (def->getNumRegions() || !isMemoryEffectFree(def))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value operand) {
    return recomputable(operand, kernel);
  });
}

/// Registers a thread of `kernel` needs for its fragments, estimated, plus
/// 32 for addresses and loop state, in units of 8.
int64_t fragmentRegisters(tile::KernelOp kernel, int64_t threads) {
  int64_t registers = 32;
  kernel.walk([&](tile::AllocOp alloc) {
    auto type = cast<MemRefType>(alloc.getType());
    if (type.hasStaticShape() &&
        tile::getMemorySpace(type) == tile::MemorySpace::fragment)
      registers += llvm::divideCeil(
          llvm::divideCeil(
              type.getNumElements() * type.getElementTypeBitWidth(), 32),
          threads);
  });
  return llvm::alignTo(registers, 8);
}

/// How many blocks of `kernel` one multiprocessor holds without warp
/// roles, estimated from its shared buffers (rings at their stage count,
/// the reductions' scratch) and its fragments (fragmentRegisters). Roles
/// pay off where this is 1: a block then has the multiprocessor to itself
/// either way, and the added warpgroup costs no occupancy. Where several
/// blocks fit, they already overlap one block's loads with another's math,
/// and a producer warpgroup (whose threads count against the register file
/// at the kernel's entry allocation) would leave room for one.
int64_t blocksWithoutRoles(tile::KernelOp kernel, int64_t threads,
                           const TargetInfo &target) {
  int64_t shared = gemm::reductionScratchBytes(kernel) +
                   gemm::sharedFootprint(kernel, [](tile::AllocOp alloc) {
                     auto stages =
                         alloc->getAttrOfType<IntegerAttr>("tile.num_stages");
                     return stages ? stages.getInt() : int64_t(1);
                   });
  int64_t registers = fragmentRegisters(kernel, threads);
  int64_t bySharedMemory = int64_t(target.sharedMemoryPerMultiprocessor()) /
                           std::max<int64_t>(shared, 1);
  int64_t byRegisters =
      int64_t(target.registersPerBlock()) / (threads * registers);
  return std::max<int64_t>(1, std::min(bySharedMemory, byRegisters));
}

/// Whether `value` depends on a block index of `kernel`.
bool dependsOnBlock(Value value, tile::KernelOp kernel) {
  if (llvm::is_contained(kernel.getBlockIndices(), value))
    return true;
  Operation *def = value.getDefiningOp();
  if (!def || !kernel->isAncestor(def))
    return false;
  return llvm::any_of(def->getOperands(), [&](Value operand) {
    return dependsOnBlock(operand, kernel);
  });
}

/// Whether the warp-specialized `loop` can run persistently: one gemm, a
/// static grid of more than one block (whose product the launch header
/// can clamp) and the same trip count in every block.
bool persistent(tile::PipelinedOp loop) {
  auto kernel = cast<tile::KernelOp>(loop->getParentOp());
  int64_t gemms = 0;
  kernel.walk([&](tile::GemmOp) { ++gemms; });
  if (gemms != 1)
    return false;
  int64_t total = 1;
  for (Value extent : kernel.getGrid()) {
    std::optional<int64_t> v = getConstantIntValue(extent);
    if (!v || *v < 1)
      return false;
    total *= *v;
    if (total > std::numeric_limits<int32_t>::max())
      return false;
  }
  if (total < 2)
    return false;
  return llvm::none_of(
      ValueRange{loop.getLb(), loop.getUb(), loop.getStep()},
      [&](Value bound) { return dependsOnBlock(bound, kernel); });
}

bool planned(tile::PipelinedOp loop) {
  return llvm::any_of(loop.getBody()->without_terminator(),
                      [](Operation &op) { return op.hasAttr("tile.stage"); });
}

/// The warp roles of `loop`, or the reason it gets none.
FailureOr<tile::WarpSpecializeAttr>
decide(tile::PipelinedOp loop, const TargetInfo &target, std::string &why) {
  auto kernel = dyn_cast<tile::KernelOp>(loop->getParentOp());
  if (!kernel) {
    why = "the loop is nested in another statement";
    return failure();
  }
  // A grid-wide barrier needs every block resident and every thread at it:
  // neither producer warps that leave early nor a persistent grid.
  if (kernel->hasAttr("tile.cooperative")) {
    why = "the kernel synchronizes its grid (T.sync_grid)";
    return failure();
  }
  bool explicitRoles = false;
  kernel.walk([&](tile::WsOp) { explicitRoles = true; });
  if (explicitRoles) {
    why = "the kernel specializes its warps itself (T.ws)";
    return failure();
  }
  int64_t loops = 0;
  kernel.walk([&](tile::PipelinedOp other) { loops += planned(other); });
  if (loops != 1) {
    why = "the kernel has more than one pipelined loop";
    return failure();
  }
  int64_t gemms = 0;
  bool allWgmma = true;
  loop.walk([&](tile::GemmOp gemm) {
    ++gemms;
    tile::MmaAttr mma = gemm::readMma(gemm);
    allWgmma &= mma && mma.getKind() == tile::MmaKind::wgmma;
  });
  if (!gemms || !allWgmma) {
    why = "its gemms are not all wgmma";
    return failure();
  }
  int64_t copies = 0;
  for (Operation &op : loop.getBody()->without_terminator()) {
    tile::CopyOp copy = operandCopy(&op);
    if (!copy)
      continue;
    ++copies;
    if (!simt::planTmaCopy(copy, copy.getDst(), why))
      return failure();
    for (Value offset : copy.getSrcOffsets())
      if (!recomputable(offset, kernel)) {
        why = "a copy's offset depends on memory";
        return failure();
      }
  }
  if (!copies) {
    why = "it has no operand copies";
    return failure();
  }
  for (Value bound : {loop.getLb(), loop.getUb(), loop.getStep()})
    if (!recomputable(bound, kernel)) {
      why = "its bounds depend on memory";
      return failure();
    }
  int64_t consumers = kernel.getThreads();
  if (consumers % kWarpgroup) {
    why = "the kernel's threads are not whole warpgroups";
    return failure();
  }
  if (consumers + kWarpgroup > int64_t(target.maxThreadsPerBlock())) {
    why = "a producer warpgroup does not fit the block";
    return failure();
  }
  if (int64_t blocks = blocksWithoutRoles(kernel, consumers, target);
      blocks > 1) {
    why = "the kernel runs " + std::to_string(blocks) +
          " blocks per multiprocessor without roles, which a producer "
          "warpgroup would cut to one";
    return failure();
  }
  // setmaxnreg only moves registers within what the block was given at
  // launch: every thread starts with the most that lets the block fit the
  // file (maxRegistersPerThreadInBlock, in units of 8; ptxas allocates that
  // much when told one block per multiprocessor), and the consumers' increase
  // waits until the producer's decrease has freed enough. A split past that
  // pool never completes (the kernel hangs). So the consumers get what the pool
  // leaves after a 24-register producer, at most 240, and the producer
  // what is left after them, at most 56: it walks the tiles and computes
  // the loads' coordinates in registers of its own (one consumer
  // warpgroup leaves plenty; two leave exactly 24).
  int64_t threads = consumers + kWarpgroup;
  int64_t pool =
      int64_t(target.maxRegistersPerThreadInBlock(threads)) / 8 * 8 * threads;
  auto consumerShare = [&](int64_t producerRegisters) {
    return std::min(kMaxConsumerRegisters,
                    (pool - kWarpgroup * producerRegisters) / consumers / 8 *
                        8);
  };
  int64_t needed = fragmentRegisters(kernel, consumers);
  // 3 consumer warpgroups (384 threads, 192x256 tiles, 128 accumulators a
  // thread) plus the producer are 512 threads, 128 registers a thread at
  // launch, and ptxas rejects the m64n256 wgmma there ("Insufficient
  // registers (128)", C7602) whatever setmaxnreg would give the
  // consumers. Checked only for consumer counts that are not powers of
  // two (np6), where that was seen; the kernels that ran before keep
  // their plan.
  if (!llvm::isPowerOf2_64(uint64_t(consumers)) &&
      needed > int64_t(target.maxRegistersPerThreadInBlock(threads))) {
    why = "its fragments need about " + std::to_string(needed) +
          " registers a thread, and a block of " + std::to_string(threads) +
          " threads allows " +
          std::to_string(target.maxRegistersPerThreadInBlock(threads));
    return failure();
  }
  // A GEMM's producer keeps 40 where the consumers' fragments leave room
  // (CUTLASS's split for two consumer warpgroups, 232 + 40): at 24 it
  // spills the coordinates of a deeper ring (128x256x64 in 4 stages).
  // Loops of several gemms keep FlashAttention-3's 24.
  int64_t regs = consumerShare(kProducerRegisters);
  if (gemms == 1 &&
      needed + kConsumerSlack <= consumerShare(kRoomyProducerRegisters))
    regs = consumerShare(kRoomyProducerRegisters);
  if (regs < kProducerRegisters) {
    why = "the register file leaves the consumers too few registers";
    return failure();
  }
  // (Where the consumers need less than the entry count, ptxas starts
  // every thread at their count.)
  pool = std::min(pool, regs * threads);
  int64_t producer = std::min((pool - consumers * regs) / kWarpgroup / 8 * 8,
                              kMaxProducerRegisters);
  if (producer < kProducerRegisters) {
    why = "the register file leaves the producer too few registers";
    return failure();
  }
  // The producer's registers must not make the consumers spill what the
  // kernel holds without roles (a 256x256 tile over 512 threads: 128
  // accumulator registers a thread, 112 with roles).
  if (needed > regs) {
    why = "its fragments need about " + std::to_string(needed) +
          " registers a thread, and the consumers would keep " +
          std::to_string(regs);
    return failure();
  }
  return tile::WarpSpecializeAttr::get(loop.getContext(), consumers, kWarpgroup,
                                       regs, producer);
}

/// Whether `op` or an op nested in it uses a buffer that `pick` selects.
bool usesBuffer(Operation *op, llvm::function_ref<bool(Value)> pick) {
  return op
      ->walk([&](Operation *nested) {
        // A fragment's T.reshape view is the fragment.
        return llvm::any_of(nested->getOperands(),
                            [&](Value v) { return pick(tile::viewSource(v)); })
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Whether the last gemm of `loop`'s warp-specialized body may stay in
/// flight across the back edge (kLastGemmInFlightAttr; PipelineLoops.cpp,
/// runLastGemmInFlight): the body holds two wgmma gemms or more and ends
/// with one; nothing from its start to its first gemm, that gemm
/// included, touches the last one's accumulator or fragment operand; and
/// nothing but the gemms touches a shared buffer other than the operand
/// copies' (the consumers then keep no block barriers in the loop), or,
/// `withBarriers`, nothing up to the first gemm touches a shared buffer the
/// last one reads, other than the rings (MLA decode's P in S_shared,
/// written after the first gemm: tile-insert-barriers puts a barrier before
/// that write, which orders it after every warpgroup's last gemm of the
/// iteration before; PipelineLoops.cpp checks it is there).
bool lastGemmMayStayInFlight(tile::PipelinedOp loop,
                             bool withBarriers = false) {
  SmallVector<Operation *> body;
  llvm::SmallPtrSet<Value, 4> rings;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (tile::CopyOp copy = operandCopy(&op)) {
      rings.insert(copy.getDst());
      continue;
    }
    if (!isMemoryEffectFree(&op) || op.getNumRegions())
      body.push_back(&op);
  }
  SmallVector<tile::GemmOp> gemms;
  for (Operation *op : body)
    if (auto gemm = dyn_cast<tile::GemmOp>(op))
      gemms.push_back(gemm);
  if (gemms.size() < 2 || body.back() != gemms.back().getOperation())
    return false;
  tile::GemmOp first = gemms.front(), last = gemms.back();
  auto held = [&](Value v) {
    return (v == last.getC() || v == last.getA()) &&
           tile::getMemorySpace(cast<MemRefType>(v.getType())) ==
               tile::MemorySpace::fragment;
  };
  for (Operation *op : body) {
    if (usesBuffer(op, held))
      return false;
    if (op == first.getOperation())
      break;
  }
  auto otherShared = [&](Value v) {
    auto type = dyn_cast<MemRefType>(v.getType());
    return type && tile::getMemorySpace(type) == tile::MemorySpace::shared &&
           !rings.contains(v);
  };
  if (!withBarriers)
    return llvm::none_of(body, [&](Operation *op) {
      return !isa<tile::GemmOp>(op) && usesBuffer(op, otherShared);
    });
  auto lastReads = [&](Value v) {
    return otherShared(v) && (v == last.getA() || v == last.getB());
  };
  for (Operation *op : body) {
    if (op == first.getOperation())
      return true;
    if (usesBuffer(op, lastReads))
      return false;
  }
  return true;
}

/// Shared memory a kernel's buffers leave unplanned here, bounded from the
/// layout tile-plan-shared makes (a bump allocator in allocation order,
/// wgmma / TMA buffers aligned to 1024 bytes): the rings' mbarriers (three
/// arrays of 8 bytes a stage, with the padding before the next aligned
/// buffer at most this), and the padding after each buffer whose size is
/// not a multiple of it (otherBuffersPadding).
constexpr int64_t kRingOverheadBytes = 1024;

/// At most one aligned period of padding after each static shared buffer
/// of `kernel` that does not fill whole periods (a storage group's members
/// share one offset: counted at its largest), rings excepted.
int64_t otherBuffersPadding(tile::KernelOp kernel,
                            ArrayRef<tile::AllocOp> rings) {
  int64_t padding = 0;
  llvm::DenseMap<int64_t, int64_t> groups; // group -> its largest member
  kernel.walk([&](tile::AllocOp alloc) {
    if (!gemm::isStaticShared(alloc) || llvm::is_contained(rings, alloc))
      return;
    int64_t bytes = gemm::sharedBytes(alloc);
    if (auto g = alloc->getAttrOfType<IntegerAttr>(gemm::kStorageGroupAttr))
      groups[g.getInt()] = std::max(groups[g.getInt()], bytes);
    else if (bytes % kRingOverheadBytes)
      padding += kRingOverheadBytes;
  });
  for (auto &[group, bytes] : groups)
    if (bytes % kRingOverheadBytes)
      padding += kRingOverheadBytes;
  return padding;
}

/// Deepens the rings of the warp-specialized `loop`, which holds one block
/// per multiprocessor whatever its ring depth, to as many stages as the
/// block's shared memory holds (CUTLASS's automatic stage count), or to
/// `atLeast` stages if it asks more than fit (then nothing changes):
/// shared memory past the asked stages would sit idle; each added stage is
/// one more TMA load in flight ahead of the consumers, and a GEMM's
/// mainloop is bound by that latency (128x256x64 at 4096^3 on the H200: 4
/// stages 0.95-0.97x cuBLAS where 3 reach 0.92; bench/RESULTS.md). A loop
/// whose `stage` / `order` are written keeps them as written. Returns the
/// ring's depth afterwards.
int64_t deepenRings(tile::PipelinedOp loop, const TargetInfo &target,
                    int64_t atLeast = 0) {
  if (loop.getOrder() || loop.getStage())
    return loop.getNumStages();
  auto kernel = cast<tile::KernelOp>(loop->getParentOp());
  SmallVector<tile::AllocOp> rings;
  for (Operation &op : loop.getBody()->without_terminator()) {
    tile::CopyOp copy = operandCopy(&op);
    if (!copy)
      continue;
    auto alloc = copy.getDst().getDefiningOp<tile::AllocOp>();
    if (!alloc || !gemm::isStaticShared(alloc) ||
        alloc->hasAttr(gemm::kStorageGroupAttr))
      return loop.getNumStages();
    if (!llvm::is_contained(rings, alloc))
      rings.push_back(alloc);
  }
  if (rings.empty())
    return loop.getNumStages();
  int64_t perStage = 0;
  for (tile::AllocOp ring : rings)
    perStage += gemm::sharedBytes(ring);
  int64_t scratch = gemm::reductionScratchBytes(kernel);
  int64_t others =
      llvm::alignTo(scratch, kRingOverheadBytes) + kRingOverheadBytes +
      otherBuffersPadding(kernel, rings) +
      gemm::sharedFootprint(kernel, [&](tile::AllocOp alloc) -> int64_t {
        if (llvm::is_contained(rings, alloc))
          return 0;
        auto n = alloc->getAttrOfType<IntegerAttr>("tile.num_stages");
        return n ? n.getInt() : 1;
      });
  int64_t stages = loop.getNumStages();
  int64_t limit = target.maxSharedMemoryPerBlock();
  int64_t deeper = stages;
  // No more stages than the loop has iterations, where that is known.
  int64_t most = std::numeric_limits<int64_t>::max();
  std::optional<int64_t> lb = getConstantIntValue(loop.getLb()),
                         ub = getConstantIntValue(loop.getUb()),
                         step = getConstantIntValue(loop.getStep());
  if (lb && ub && step && *step > 0)
    most = std::max<int64_t>(stages, llvm::divideCeil(*ub - *lb, *step));
  while (deeper < most && others + (deeper + 1) * perStage <= limit)
    ++deeper;
  if (deeper == stages || deeper < atLeast)
    return stages;
  Builder b(loop.getContext());
  loop.setNumStages(deeper);
  for (Operation &op : loop.getBody()->without_terminator())
    if (auto stage = op.getAttrOfType<IntegerAttr>("tile.stage");
        stage && stage.getInt() != 0)
      op.setAttr("tile.stage", b.getI64IntegerAttr(deeper - 1));
  for (tile::AllocOp ring : rings)
    ring->setAttr("tile.num_stages", b.getI64IntegerAttr(deeper));
  return deeper;
}

/// Whether the roles leave room for a second block on a multiprocessor:
/// where they take more than half the register file (FlashAttention
/// 128x128: 256 x 240 + 128 x 24), a deeper ring costs no occupancy.
bool holdsMultiprocessor(tile::WarpSpecializeAttr roles,
                         const TargetInfo &target) {
  int64_t used = roles.getConsumers() * roles.getConsumerRegisters() +
                 roles.getProducers() * roles.getProducerRegisters();
  return 2 * used > int64_t(target.registersPerBlock());
}

/// FlashAttention-3's intra-warpgroup overlap (kLastGemmInFlightAttr; the
/// rotated schedule of PipelineLoops.cpp, for a static trip count) pays
/// once the ring has a third stage, which the register-bound block can
/// afford: on the H200 FlashAttention 128x128 / 256 threads asked in 2
/// stages runs at 497 TFLOP/s, in 3 stages at 495, with the overlap in 2
/// at 505 and in 3 at 533 (0.93x cuDNN; bench/RESULTS.md, session 8): the
/// next K tile must already be in shared memory when Q K_j^T is issued
/// beside P V_{j-1}. Decided where the overlap applies (the last gemm may
/// stay in flight, the trip count is a constant, the roles hold the
/// multiprocessor) and three stages fit; `--overlap-gemms` asks for it
/// without these conditions, `--no-overlap-gemms` never. Where it pays,
/// the ring is left deepened (and the storage groups that made the room
/// recorded); where not, the loop is left as it was.
bool deepenRingForOverlap(tile::PipelinedOp loop, tile::WarpSpecializeAttr roles,
                 const TargetInfo &target) {
  std::optional<int64_t> lb = getConstantIntValue(loop.getLb()),
                         ub = getConstantIntValue(loop.getUb()),
                         step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || !holdsMultiprocessor(roles, target) ||
      !lastGemmMayStayInFlight(loop))
    return false;
  if (deepenRings(loop, target, /*atLeast=*/3) >= 3)
    return true;
  // Buffers whose lifetimes do not overlap (O_shared after the loop,
  // Q_shared in it) may make room: grouped, and ungrouped again if the
  // third stage still does not fit.
  auto kernel = cast<tile::KernelOp>(loop->getParentOp());
  SmallVector<tile::AllocOp> ungrouped;
  kernel.walk([&](tile::AllocOp alloc) {
    if (!alloc->hasAttr(gemm::kStorageGroupAttr))
      ungrouped.push_back(alloc);
  });
  if (!gemm::shareStorage(kernel, target.maxSharedMemoryPerBlock(),
                          /*evenIfFits=*/true))
    return false;
  if (deepenRings(loop, target, /*atLeast=*/3) >= 3)
    return true;
  for (tile::AllocOp alloc : ungrouped)
    alloc->removeAttr(gemm::kStorageGroupAttr);
  return false;
}

/// The last gemm in flight in a body that keeps its block barriers (MLA
/// decode: P V_{j-1} still running while the barrier, the wait for KV_j
/// and the issue of Q KV_j^T go by; PipelineLoops.cpp's unrotated
/// schedule, which needs no third stage: the first gemm's wait completes
/// the last one and frees its slot). Decided on the same conditions as
/// deepenRingForOverlap but the ring depth: on the H200 MLA decode at
/// batch 64 / 128 ran 1.024x / 1.030x faster than with every gemm waited
/// for in its iteration, in 2 stages (bench/RESULTS.md, session 10).
bool inFlightPaysWithBarriers(tile::PipelinedOp loop,
                              tile::WarpSpecializeAttr roles,
                              const TargetInfo &target) {
  std::optional<int64_t> lb = getConstantIntValue(loop.getLb()),
                         ub = getConstantIntValue(loop.getUb()),
                         step = getConstantIntValue(loop.getStep());
  return lb && ub && step && holdsMultiprocessor(roles, target) &&
         !lastGemmMayStayInFlight(loop) &&
         lastGemmMayStayInFlight(loop, /*withBarriers=*/true);
}

/// Whether the consumer warpgroups of `loop` (given `roles`) should take
/// turns issuing its first gemm (kPingpongAttr; FlashAttention-3's
/// inter-warpgroup overlap). It pays where each warpgroup has work of its
/// own between the gemms that the other's gemms can hide: two warpgroups
/// or more, two wgmma gemms or more, and every warpgroup working on rows of
/// its own, without block barriers in the loop:
/// - every gemm's warps lie along M (`warps = [w, 1]`): warpgroup g owns
///   rows 64g .. 64g + 63 of every accumulator;
/// - every reduction in the loop reduces along dimensions no warp bit of
///   its source spans (no exchange through shared memory);
/// - nothing but the gemms touches a shared buffer other than the rings.
bool pingpongPays(tile::PipelinedOp loop, tile::WarpSpecializeAttr roles) {
  if (roles.getConsumers() < 2 * kWarpgroup)
    return false;
  int64_t gemms = 0;
  bool rowsOwned = true;
  llvm::SmallPtrSet<Value, 4> rings;
  for (Operation &op : loop.getBody()->without_terminator())
    if (tile::CopyOp copy = operandCopy(&op))
      rings.insert(copy.getDst());
  WalkResult walk = loop.getBody()->walk([&](Operation *op) {
    if (auto gemm = dyn_cast<tile::GemmOp>(op)) {
      ++gemms;
      tile::MmaAttr mma = gemm::readMma(gemm);
      rowsOwned &= mma && mma.getWarpsN() == 1;
      return WalkResult::advance();
    }
    if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
      auto src = reduce.getSrc().getDefiningOp<tile::AllocOp>();
      tile::FragmentAttr layout = src ? src.getLayoutAttr() : nullptr;
      if (!layout)
        return WalkResult::interrupt();
      for (unsigned i = 0; i < layout.getNumWarpBits(); ++i)
        if (ArrayRef<int32_t> b = layout.getWarpBasis(i);
            reduce.getDim() >= b.size() || b[reduce.getDim()] != 0)
          return WalkResult::interrupt();
    }
    // A finalize may combine across warps through shared memory and
    // barriers, like a reduction whose rows span warps.
    if (isa<tile::BarrierOp, tile::FinalizeReducerOp>(op))
      return WalkResult::interrupt();
    if (operandCopy(op))
      return WalkResult::advance();
    for (Value v : op->getOperands())
      if (auto type = dyn_cast<MemRefType>(v.getType());
          type && tile::getMemorySpace(type) == tile::MemorySpace::shared &&
          !rings.contains(v))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !walk.wasInterrupted() && gemms >= 2 && rowsOwned;
}

/// Whether `op`'s prim_func or module carries the unit attribute `name`.
bool configured(Operation *op, StringRef name) {
  for (Operation *p = op; p; p = p->getParentOp())
    if (p->hasAttr(name))
      return true;
  return false;
}

struct TilePlanWarpSpecialize
    : tilec::impl::TilePlanWarpSpecializeBase<TilePlanWarpSpecialize> {
  using TilePlanWarpSpecializeBase::TilePlanWarpSpecializeBase;
  void runOnOperation() override {
    SmallVector<tile::PipelinedOp> loops;
    getOperation()->walk([&](tile::PipelinedOp loop) {
      if (planned(loop))
        loops.push_back(loop);
    });
    if (loops.empty())
      return;
    const TargetInfo *target = tile::requireTarget(getOperation());
    if (!target)
      return signalPassFailure();
    if (!target->hasTMA() || !target->hasSetMaxNReg() || !target->hasWGMMA())
      return;
    for (tile::PipelinedOp loop : loops) {
      // TileLang's pass configs, on the prim_func or the whole file:
      // TL_DISABLE_WARP_SPECIALIZED asks for no roles, and
      // TL_DISABLE_TMA_LOWER keeps the copies on cp.async (PipelineLoops),
      // which leaves no producer.
      if (configured(loop, "tile.disable_warp_specialized") ||
          configured(loop, "tile.disable_tma_lower"))
        continue;
      std::string why;
      FailureOr<tile::WarpSpecializeAttr> roles = decide(loop, *target, why);
      // tilec --remarks: the decision at the loop, with the reason where
      // the loop keeps its warps (a loop with no gemm says nothing).
      bool remarks = getOperation()->hasAttr("tile.remarks");
      if (failed(roles)) {
        bool hasGemm = false;
        loop.walk([&](tile::GemmOp) { hasGemm = true; });
        if (remarks && hasGemm)
          loop.emitRemark() << "the loop's warps are not specialized: "
                            << why;
        continue;
      }
      if (remarks)
        loop.emitRemark() << "the loop's warps are specialized: a producer "
                             "warpgroup issues its TMA loads ("
                          << roles->getProducerRegisters()
                          << " registers), the kernel's "
                          << roles->getConsumers()
                          << " threads compute ("
                          << roles->getConsumerRegisters() << " registers)";
      loop->setAttr(tile::WarpSpecializeAttr::getAttrName(), *roles);
      // FlashAttention's P V in flight while the next Q K^T is issued:
      // where it pays, or everywhere it applies with --overlap-gemms.
      // (Not by default with --pingpong: the rotated schedule declines
      // consumer turns.)
      bool overlap = !configured(loop, "tile.no_overlap_gemms") &&
                     (configured(loop, "tile.overlap_gemms")
                          ? lastGemmMayStayInFlight(loop, /*withBarriers=*/true)
                          : !configured(loop, "tile.pingpong_gemms") &&
                                (deepenRingForOverlap(loop, *roles, *target) ||
                                 inFlightPaysWithBarriers(loop, *roles,
                                                          *target)));
      if (overlap)
        loop->setAttr(simt::kLastGemmInFlightAttr,
                      UnitAttr::get(loop.getContext()));
      // --pingpong (experimental): the consumers take turns.
      if (configured(loop, "tile.pingpong_gemms") && pingpongPays(loop, *roles))
        loop->setAttr(simt::kPingpongAttr, UnitAttr::get(loop.getContext()));
      if (persistent(loop)) {
        loop->getParentOp()->setAttr(simt::kPersistentAttr,
                                     UnitAttr::get(loop.getContext()));
        deepenRings(loop, *target);
      }
    }
  }
};

} // namespace
