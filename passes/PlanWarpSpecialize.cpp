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
// The register split follows FlashAttention-3's: the producer keeps 24
// registers, the consumers share the rest of the file in multiples of 8,
// at most 240 each (a thread's limit is 255; 240 leaves ptxas the
// allocation granularity).
//
//===----------------------------------------------------------------------===//

#include "GemmLayouts.h"
#include "GemmLowering.h"
#include "SIMTLayout.h"

#include "tilec/Passes/Passes.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

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

/// How many blocks of `kernel` one multiprocessor holds without warp
/// roles, estimated from its shared buffers (rings at their stage count,
/// the reductions' scratch) and its fragments (registers per thread, plus 32
/// for addresses and loop state). Roles pay off where this is 1: a block then
/// has the multiprocessor to itself either way, and the added warpgroup costs
/// no occupancy. Where several blocks fit, they already overlap one block's
/// loads with another's math, and a producer warpgroup (whose threads
/// count against the register file at the kernel's entry allocation)
/// would leave room for one.
int64_t blocksWithoutRoles(tile::KernelOp kernel, int64_t threads,
                           const TargetInfo &target) {
  int64_t shared = gemm::reductionScratchBytes(kernel), registers = 32;
  kernel.walk([&](tile::AllocOp alloc) {
    auto type = cast<MemRefType>(alloc.getType());
    if (!type.hasStaticShape())
      return;
    int64_t bits = type.getNumElements() * type.getElementTypeBitWidth();
    std::optional<tile::MemorySpace> space = tile::getMemorySpace(type);
    if (space == tile::MemorySpace::shared) {
      auto stages = alloc->getAttrOfType<IntegerAttr>("tile.num_stages");
      shared += bits / 8 * (stages ? stages.getInt() : 1);
    } else if (space == tile::MemorySpace::fragment) {
      registers += llvm::divideCeil(llvm::divideCeil(bits, 32), threads);
    }
  });
  registers = llvm::alignTo(registers, 8);
  int64_t bySharedMemory = int64_t(target.sharedMemoryPerMultiprocessor()) /
                           std::max<int64_t>(shared, 1);
  int64_t byRegisters =
      int64_t(target.registersPerBlock()) / (threads * registers);
  return std::max<int64_t>(1, std::min(bySharedMemory, byRegisters));
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
    auto stage = op.getAttrOfType<IntegerAttr>("tile.stage");
    auto copy = dyn_cast<tile::CopyOp>(op);
    if (!copy || !stage || stage.getInt() != 0)
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
  int64_t left =
      int64_t(target.registersPerBlock()) - kWarpgroup * kProducerRegisters;
  int64_t regs = std::min(kMaxConsumerRegisters, left / consumers / 8 * 8);
  if (regs < kProducerRegisters) {
    why = "the register file leaves the consumers too few registers";
    return failure();
  }
  return tile::WarpSpecializeAttr::get(loop.getContext(), consumers, kWarpgroup,
                                       regs, kProducerRegisters);
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
      if (succeeded(roles))
        loop->setAttr(tile::WarpSpecializeAttr::getAttrName(), *roles);
    }
  }
};

} // namespace
