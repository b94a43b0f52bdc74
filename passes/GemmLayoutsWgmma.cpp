//===- GemmLayoutsWgmma.cpp - Layout decisions of the wgmma GEMM path -----===//
//
// Part of tile-infer-layouts on chips whose table offers warpgroup MMA
// (sm_90a). The gemms coupled through fragments (one gemm's accumulator
// that a T.Parallel loop combines with another's, or a cast of it that
// another reads in registers) take wgmma together when every one of them
// can, or keep mma.sync together (chooseWgmma): a fragment keeps one
// layout family. Per tile.gemm:
//  1. the warpgroup split: computeWarpPartition with MmaKind::Wgmma (warps
//     along M in fours), each warpgroup owning an mWG x nWG tile, mWG a
//     multiple of 64 (m64 instructions stacked along M);
//  2. the instruction: m64 nN kK from the TargetInfo table with N the
//     widest power of two up to 256 dividing nWG (the accumulator layout
//     is linear; dim 192 takes three n64 instructions)
//     and K = 32 bytes of the operand type (k16 for f16 / bf16, k32 for the
//     8-bit floats and int8, k8 for f32 read as tf32; wgmma reads the
//     8-bit and tf32 operands K-major only; int8 accumulates in s32);
//  3. the accumulator: the wgmma D fragment tiled over the block
//     (wgmmaTiledAccumulatorLayout), so epilogues follow it like any other;
//  4. each shared operand: the canonical layout wgmma's descriptors read
//     and TMA's swizzled boxes write (SharedLayout::swizzledAtoms): the
//     widest swizzle of 128, 64 or 32 bytes that divides the row and on
//     whose atoms every instruction's window starts (along K a window is
//     32 bytes inside an atom; along M or N it is whole atoms, so the
//     descriptor's leading offset steps from atom to atom), recorded as
//     `#tile.swizzle<mode, xor = [...], atom = W>`.
// The lowering (LowerGemmWgmma.cpp) builds descriptors from exactly these
// attributes.
//
//===----------------------------------------------------------------------===//

#include "GemmLayouts.h"
#include "MmaSyncTypes.h"
#include "Partitions.h"
#include "SIMTLayout.h"

#include "tilec/Layout/MmaLayouts.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;

namespace {

struct WgmmaShape {
  WarpPartition warps;
  int64_t mWG = 0, nWG = 0, instrN = 0;
  const MMAInstruction *instr = nullptr;
};

/// The table's name for a wgmma operand type: f16, bf16 (k16), f32 read
/// as tf32 (k8), the OCP 8-bit floats e4m3 / e5m2 in any pairing and int8
/// (k32): one instruction reads 32 bytes of K a row.
std::optional<MMAElementType> wgmmaElementType(Type type) {
  return gemm::mmaSyncElementType(type);
}

llvm::Expected<WgmmaShape> wgmmaShape(const TargetInfo &target,
                                      GemmWarpPolicy policy, int64_t m,
                                      int64_t n, int64_t k, Type inA, Type inB,
                                      int64_t threads) {
  auto fail = [](const Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), why);
  };
  if (threads % 128)
    return fail("wgmma needs whole warpgroups of 128 threads, the kernel "
                "has " +
                Twine(threads));
  std::optional<MMAElementType> typeA = wgmmaElementType(inA),
                                typeB = wgmmaElementType(inB);
  bool eightBit = inA.getIntOrFloatBitWidth() == 8;
  if (!typeA || !typeB || (!eightBit && inA != inB) ||
      eightBit != (inB.getIntOrFloatBitWidth() == 8) ||
      inA.isInteger(8) != inB.isInteger(8))
    return fail("wgmma here takes float16, bfloat16 or float32 (tf32) "
                "operands of one type, float8 (e4m3 / e5m2) ones or int8 "
                "ones");
  // One instruction reads 32 bytes of K per row: k16 for 16-bit types,
  // k32 for 8-bit ones, k8 for tf32.
  int64_t kStep = 32 / (inA.getIntOrFloatBitWidth() / 8);
  if (k % kStep)
    return fail("wgmma needs K a multiple of " + Twine(kStep) + ", got " +
                Twine(k));
  llvm::Expected<WarpPartition> warps =
      computeWarpPartition(policy, m, n, threads / 32, MmaKind::Wgmma);
  if (!warps)
    return warps.takeError();
  WgmmaShape shape;
  shape.warps = *warps;
  int64_t groupsM = warps->warpsM / 4;
  if (m % groupsM || n % warps->warpsN)
    return fail("the warpgroup split does not divide the tile");
  // A warpgroup count along M that is not a power of two takes the high
  // warp bits (placeWarps), which the lowering's warpgroup numbering
  // (g % groupsM along M) matches only with the warpgroups all along M.
  if (!llvm::isPowerOf2_64(uint64_t(groupsM)) && warps->warpsN != 1)
    return fail("a split of " + Twine(groupsM) +
                " warpgroups along M needs every warpgroup along M, got " +
                Twine(groupsM) + "x" + Twine(warps->warpsN));
  shape.mWG = m / groupsM;
  shape.nWG = n / warps->warpsN;
  if (shape.mWG % 64)
    return fail("each warpgroup needs a multiple of 64 rows, got " +
                Twine(shape.mWG));
  // The widest power-of-two N up to 256 that divides the warpgroup's
  // columns (the accumulator atom's layout is linear): FlashAttention
  // backward's dK of dim 192 takes three n64 instructions a k-step.
  shape.instrN = std::min<int64_t>(shape.nWG & -shape.nWG, 256);
  if (shape.instrN < 8)
    return fail("each warpgroup's " + Twine(shape.nWG) +
                " columns are not whole instructions of N a multiple of 8");
  // The tiled accumulator puts the warpgroups along N side by side an
  // instruction wide, and their further instructions after all of them
  // (wgmmaTiledAccumulatorLayout); the lowering gives each warpgroup a
  // contiguous nWG columns, the same only with one instruction each or
  // one warpgroup along N.
  if (shape.warps.warpsN > 1 && shape.nWG != shape.instrN)
    return fail("warpgroups side by side along N need each warpgroup's " +
                Twine(shape.nWG) +
                " columns to be one instruction (a power of two up to 256)");
  for (const MMAInstruction &instr : target.mmaInstructions())
    if (instr.kind == MMAKind::Warpgroup && instr.a == *typeA &&
        instr.b == *typeB && instr.acc == gemm::mmaAccumulatorType(*typeA) &&
        instr.m == 64 && instr.k == kStep && instr.nStep &&
        shape.instrN % instr.nStep == 0 && shape.instrN <= instr.n) {
      shape.instr = &instr;
      return shape;
    }
  return fail(target.chip() + " has no m64n" + Twine(shape.instrN) + "k" +
              Twine(kStep) + " wgmma for these types");
}

/// The canonical layout of a rows x cols operand buffer; `kMajor`: its
/// columns run along K (else along M or N, each instruction's window
/// starting at multiples of `mnStep` columns).
llvm::Expected<tile::SwizzleAttr> canonicalSwizzle(MLIRContext *ctx,
                                                   MemRefType type, bool kMajor,
                                                   int64_t mnStep) {
  auto fail = [](const Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), why);
  };
  // A 3-D buffer is a ring of 2-D tiles (a gemm reads one stage of it).
  if (type.getRank() < 2 || type.getRank() > 3 || !type.hasStaticShape())
    return fail("a wgmma operand is a static 2-D tile, or a ring of them");
  int64_t rows = type.getShape().take_back(2)[0];
  int64_t cols = type.getShape().take_back(2)[1];
  int64_t elemBytes = type.getElementTypeBitWidth() / 8;
  // A row longer than the swizzle is whole atoms one swizzle wide (their
  // number need not be a power of two: FlashAttention's dim 192).
  if (rows % 8 || (!llvm::isPowerOf2_64(uint64_t(cols)) &&
                   cols * elemBytes % 128 && cols * elemBytes % 64))
    return fail("a wgmma operand needs rows a multiple of 8 and a "
                "power-of-two row length or whole 64- or 128-byte atoms, "
                "got " +
                Twine(rows) + "x" + Twine(cols));
  for (int32_t bits : {3, 2, 1}) {
    int64_t modeBytes = int64_t(16) << bits;
    if (cols * elemBytes % modeBytes)
      continue;
    int64_t width = modeBytes / elemBytes;
    // Along K an instruction's window is 32 bytes inside an atom.
    if (kMajor ? modeBytes % 32 : mnStep % width)
      continue;
    return tile::SwizzleAttr::get(ctx, tile::SwizzleMode(bits), bits,
                                  llvm::Log2_64(16 / elemBytes),
                                  /*shift=*/3, cols > width ? width : 0);
  }
  return fail("no 32-, 64- or 128-byte swizzle fits a row of " +
              Twine(cols * elemBytes) + " bytes");
}

std::string text(llvm::Error err) { return llvm::toString(std::move(err)); }

/// Whether `copy` writes its 2-D shared destination, or a box of it, from
/// a fragment (MLA's P, stored for the next gemm to read; the halves of
/// the output TileLang's warp-specialized MLA decode stages in Q's
/// buffer): tile-lower-simt stores each element at its swizzled place,
/// in vectors of at most 16 aligned bytes, which the swizzle keeps whole.
bool fromFragment(tile::CopyOp copy) {
  auto src = cast<MemRefType>(copy.getSrc().getType());
  auto dst = cast<MemRefType>(copy.getDst().getType());
  return tile::getMemorySpace(src) == tile::MemorySpace::fragment &&
         dst.getRank() == 2 && dst.hasStaticShape();
}

/// The users a wgmma operand buffer may have: gemms, operand copies from
/// global memory into it, copies out of it into global memory or between
/// it and another shared buffer, element loads and stores (T.Parallel
/// code), fills, T.annotate_layout's make_swizzled_layout (the canonical
/// swizzle is one), and copies into it (or a box of it) from a fragment:
/// tile-lower-simt writes and reads them all through the buffer's
/// swizzle. (A fragment written into an operand read MN-major, FlashAttention
/// backward's dS^T, once gave wrong dQ on the H200 and kept mma.sync; the
/// copies of swizzled buffers have gone through their swizzle in every
/// path since session 13, and wg14_check's MN-major writers are exact.)
bool wgmmaOperandUses(tile::AllocOp alloc) {
  for (Operation *user : alloc->getUsers()) {
    if (isa<tile::GemmOp>(user))
      continue;
    if (auto annotate = dyn_cast<tile::AnnotateLayoutOp>(user);
        annotate && isa<tile::AnySwizzleAttr>(annotate.getLayout()))
      continue;
    // T.tma_copy into it (TileLang's explicit form): the TMA path's load.
    if (auto tma = dyn_cast<tile::TmaCopyOp>(user);
        tma && tma.getDst() == alloc.getResult())
      continue;
    // T.ptx_cp_async into it (TileLang's raw producer): each element is
    // written at its swizzled place (LowerAsyncCopy.cpp).
    if (auto raw = dyn_cast<tile::CpAsyncOp>(user);
        raw && raw.getDst() == alloc.getResult())
      continue;
    // Element accesses (a T.Parallel loop writing it from global memory or
    // converting a tile into it, or reading it back): tile-lower-simt
    // indexes each through the swizzle (swizzleElementAccesses).
    if (isa<memref::LoadOp, memref::StoreOp>(user))
      continue;
    // T.clear: every element takes the value wherever the swizzle puts it.
    if (isa<tile::FillOp>(user))
      continue;
    auto copy = dyn_cast<tile::CopyOp>(user);
    // A copy between it and another shared buffer: tile-lower-simt moves
    // each element (or aligned vector of at most 16 bytes) through both
    // buffers' layouts (LowerCopy.cpp, Box::placed).
    if (copy &&
        tile::getMemorySpace(cast<MemRefType>(copy.getSrc().getType())) ==
            tile::MemorySpace::shared &&
        tile::getMemorySpace(cast<MemRefType>(copy.getDst().getType())) ==
            tile::MemorySpace::shared)
      continue;
    // A copy out of it into a global tensor (an epilogue staged through the
    // operand's buffer, FlashMLA's O in Q's): tile-lower-simt reads it
    // through the swizzle, and a TMA store keeps a canonical one.
    if (copy && copy.getSrc() == alloc.getResult() &&
        tile::isGlobal(cast<MemRefType>(copy.getDst().getType())))
      continue;
    // A copy out of it into a fragment (FlashMLA's Q_pe for the register
    // form of a later gemm): tile-lower-simt reads it through the swizzle
    // as it does the copies into it.
    if (copy && copy.getSrc() == alloc.getResult() &&
        tile::getMemorySpace(cast<MemRefType>(copy.getDst().getType())) ==
            tile::MemorySpace::fragment)
      continue;
    if (!copy || copy.getDst() != alloc.getResult())
      return false;
    if (!gemm::isOperandCopy(copy) && !fromFragment(copy))
      return false;
  }
  return true;
}

} // namespace

std::string gemm::regionOriginProblem(tile::GemmOp gemm, unsigned i,
                                      tile::SwizzleAttr swizzle, bool kMajor,
                                      int64_t kStep) {
  if (!gemm.isRegion(i) || !swizzle)
    return "";
  auto type = cast<MemRefType>(gemm.getOperandBuffer(i).getType());
  std::array<int64_t, 2> origin = gemm.getOperandOrigin(i);
  int64_t cols = type.getShape().back();
  int64_t width = swizzle.getAtom() ? swizzle.getAtom() : cols;
  // Storage (row, col) as (M or N, K) for a K-major operand, else (K, M
  // or N).
  int64_t mn = kMajor ? origin[0] : origin[1];
  int64_t k = kMajor ? origin[1] : origin[0];
  std::string name =
      gemm.getOperandBuffer(i).getDefiningOp<tile::AllocOp>().getName().str();
  std::string at = "the region of `" + name + "` at (" +
                   std::to_string(origin[0]) + ", " +
                   std::to_string(origin[1]) + ")";
  if (kMajor) {
    if (mn % 8)
      return at + " starts inside a group of 8 rows of the swizzle (its "
                  "row offset must be a multiple of 8)";
    if (k % kStep)
      return at + " starts inside a k" + std::to_string(kStep) +
             " window of the " + std::to_string(width) +
             "-column swizzle atom (its column offset must be a multiple of " +
             std::to_string(kStep) + ")";
    return "";
  }
  if (mn % width)
    return at + " starts inside a " + std::to_string(width) +
           "-column swizzle atom (wgmma reads M or N from atom boundaries: "
           "its column offset must be a multiple of " +
           std::to_string(width) + ")";
  if (k % 8)
    return at + " starts inside a group of 8 rows of the swizzle (its row "
                "offset must be a multiple of 8)";
  return "";
}

namespace {

/// Whether `gemm` can take wgmma, its shared operands' canonical layouts
/// agreeing with those `chosen` holds for the gemms taken before it (and
/// recorded there); otherwise `why` says what fails.
bool gemmFitsWgmma(tile::GemmOp gemm, const TargetInfo &target, int64_t threads,
                   llvm::DenseMap<Operation *, tile::SwizzleAttr> &chosen,
                   std::string &why) {
  auto fits = [&]() -> WalkResult {
    auto a = gemm.getA().getDefiningOp<tile::AllocOp>();
    auto b = gemm.getB().getDefiningOp<tile::AllocOp>();
    auto c = gemm.getC().getDefiningOp<tile::AllocOp>();
    auto space = [](tile::AllocOp alloc) {
      return tile::getMemorySpace(cast<MemRefType>(alloc.getType()));
    };
    bool aInRegisters = a && space(a) == tile::MemorySpace::fragment;
    if (!a || !b || !c ||
        !(aInRegisters || space(a) == tile::MemorySpace::shared) ||
        space(b) != tile::MemorySpace::shared ||
        space(c) != tile::MemorySpace::fragment) {
      why = "a T.gemm's operands are not in shared memory or fragments";
      return WalkResult::interrupt();
    }
    auto aType = cast<MemRefType>(a.getType());
    auto bType = cast<MemRefType>(b.getType());
    auto cType = cast<MemRefType>(c.getType());
    Type in = aType.getElementType(), inB = bType.getElementType();
    if ((aType.getRank() != 2 && !gemm.isRegion(0)) ||
        (bType.getRank() != 2 && !gemm.isRegion(1)) || cType.getRank() != 2 ||
        cType.getElementType() != gemm::accumulatorType(in)) {
      why = "a T.gemm's operands are not 2-D tiles with a float32 "
            "accumulator (int32 for int8; float16 ones stay on mma.sync)";
      return WalkResult::interrupt();
    }
    if (aInRegisters && gemm.isRegion(0)) {
      why = "a T.gemm reads a region of a fragment as its A operand";
      return WalkResult::interrupt();
    }
    // 8-bit and tf32 wgmma read both operands K-major from shared memory
    // (the instruction transposes 16-bit types only).
    if (aType.getElementTypeBitWidth() != 16 &&
        (aInRegisters || gemm.getTransposeA() || !gemm.getTransposeB())) {
      why = "8-bit and tf32 wgmma read A and B K-major from shared memory "
            "(A M x K, B N x K with transpose_B)";
      return WalkResult::interrupt();
    }
    if ((!aInRegisters && !wgmmaOperandUses(a)) || !wgmmaOperandUses(b)) {
      tile::AllocOp bad = !aInRegisters && !wgmmaOperandUses(a) ? a : b;
      why = ("the shared operand `" + bad.getName() +
             "` has users other than copies into it and T.gemm")
                .str();
      return WalkResult::interrupt();
    }
    // A branch arm of whole warps (ThreadPartitions.cpp) that are not whole
    // warpgroups: wgmma is issued by aligned groups of four warps.
    if (tile::PartitionAttr p = simt::partitionOf(gemm);
        p && (p.getBegin() % 128 || p.getThreads() % 128)) {
      why = "the T.gemm runs on threads [" + std::to_string(p.getBegin()) +
            ", " + std::to_string(p.getEnd()) +
            "), which are not whole warpgroups (wgmma needs aligned groups of "
            "128 threads)";
      return WalkResult::interrupt();
    }
    int64_t m = gemm.getM(), n = gemm.getN(), k = gemm.getK();
    llvm::Expected<WgmmaShape> shape =
        wgmmaShape(target, gemm::toPolicy(gemm.getPolicy()), m, n, k, in, inB,
                   simt::threadsOf(gemm, threads)); // T.ws: the region's
    if (!shape) {
      why = text(shape.takeError());
      return WalkResult::interrupt();
    }
    auto pick = [&](tile::AllocOp alloc, bool kMajor, int64_t mnStep) -> bool {
      llvm::Expected<tile::SwizzleAttr> attr = canonicalSwizzle(
          gemm.getContext(), cast<MemRefType>(alloc.getType()), kMajor, mnStep);
      if (!attr) {
        why = text(attr.takeError());
        return false;
      }
      auto [it, inserted] = chosen.try_emplace(alloc, *attr);
      if (!inserted && it->second != *attr) {
        why = "two T.gemms read `" + alloc.getName().str() +
              "` in different orders";
        return false;
      }
      return true;
    };
    // Warpgroups side by side along N each hold the A rows of their M
    // block (the fragment is replicated across them, as TileLang's
    // register-A wgmma is).
    if (aInRegisters && (gemm.getTransposeA() ||
                         !llvm::isPowerOf2_64(uint64_t(k)) || k > 256)) {
      why = "A in registers needs no transpose and K a power of two up to "
            "256";
      return WalkResult::interrupt();
    }
    if ((!aInRegisters && !pick(a, !gemm.getTransposeA(), 64)) ||
        !pick(b, gemm.getTransposeB(), shape->instrN))
      return WalkResult::interrupt();
    // A region's descriptors start at its origin in the canonical layout:
    // on an instruction's K grid and an 8-row group, and along M or N on
    // an atom (regionOriginProblem).
    for (unsigned i : {0u, 1u}) {
      if (!gemm.isRegion(i))
        continue;
      tile::AllocOp alloc = i ? b : a;
      bool kMajor = i ? gemm.getTransposeB() : !gemm.getTransposeA();
      why = gemm::regionOriginProblem(gemm, i, chosen.lookup(alloc), kMajor,
                                      shape->instr->k);
      if (!why.empty())
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  };
  return !fits().wasInterrupted();
}

/// The tile.alloc a buffer value is, or views (a T.reshape view, a
/// cast): null for anything else.
Operation *rootAlloc(Value value) {
  while (value) {
    Operation *def = value.getDefiningOp();
    if (!def)
      return nullptr;
    if (isa<tile::AllocOp>(def))
      return def;
    Value source;
    for (Value operand : def->getOperands())
      if (isa<MemRefType>(operand.getType())) {
        if (source)
          return nullptr;
        source = operand;
      }
    value = source;
  }
  return nullptr;
}

bool isFragment(Operation *alloc) {
  return alloc && tile::getMemorySpace(
                      cast<MemRefType>(cast<tile::AllocOp>(alloc).getType())) ==
                      tile::MemorySpace::fragment;
}

} // namespace

gemm::WgmmaChoice gemm::chooseWgmma(Operation *kernel, const TargetInfo &target,
                                    int64_t threads) {
  SmallVector<tile::GemmOp> gemms;
  kernel->walk([&](tile::GemmOp gemm) { gemms.push_back(gemm); });
  // The coupling classes: a gemm with its accumulator and register A,
  // and every fragment one op (or one T.Parallel nest, where registers of
  // several fragments meet element by element) touches together. A class
  // keeps one layout family: the mma.sync and wgmma fragments differ.
  llvm::EquivalenceClasses<Operation *> classes;
  for (tile::GemmOp gemm : gemms) {
    classes.insert(gemm);
    for (Value operand : {gemm.getA(), gemm.getC()})
      if (Operation *alloc = rootAlloc(operand); isFragment(alloc))
        classes.unionSets(gemm, alloc);
  }
  llvm::DenseMap<Operation *, Operation *> firstFragment;
  kernel->walk([&](Operation *op) {
    if (isa<tile::GemmOp, tile::AllocOp>(op))
      return;
    Operation *key = op;
    for (Operation *p = op->getParentOp(); p && p != kernel;
         p = p->getParentOp())
      if (isa<tile::ParallelOp>(p))
        key = p;
    for (Value operand : op->getOperands()) {
      Operation *alloc = rootAlloc(operand);
      if (!isFragment(alloc))
        continue;
      auto [it, inserted] = firstFragment.try_emplace(key, alloc);
      classes.unionSets(it->second, alloc);
    }
  });
  // Each class takes wgmma when all its gemms can, their shared operands'
  // canonical layouts agreeing across the classes that take it: a class
  // that cannot is set aside (with its first failing gemm and the reason)
  // and the others are tried again.
  WgmmaChoice choice;
  llvm::DenseMap<Operation *, std::pair<Operation *, std::string>> setAside;
  for (bool changed = true; changed;) {
    changed = false;
    llvm::DenseMap<Operation *, tile::SwizzleAttr> chosen;
    for (tile::GemmOp gemm : gemms) {
      Operation *leader = classes.getLeaderValue(gemm);
      if (setAside.count(leader))
        continue;
      std::string why;
      if (!gemmFitsWgmma(gemm, target, threads, chosen, why)) {
        setAside.try_emplace(leader, gemm, why);
        changed = true;
        break;
      }
    }
  }
  for (tile::GemmOp gemm : gemms) {
    auto it = setAside.find(classes.getLeaderValue(gemm));
    if (it == setAside.end())
      choice.wgmma.insert(gemm);
    else
      choice.kept.try_emplace(gemm, it->second);
  }
  return choice;
}

LogicalResult gemm::checkAsyncGemms(Operation *kernel, bool hasWgmma,
                                    const WgmmaChoice &choice) {
  WalkResult walk = kernel->walk([&](tile::GemmOp gemm) {
    if (!gemm.getAsync())
      return WalkResult::advance();
    if (!hasWgmma) {
      gemm.emitError("T.wgmma_gemm: this target has no wgmma");
      return WalkResult::interrupt();
    }
    if (auto kept = choice.kept.find(gemm); kept != choice.kept.end()) {
      InFlightDiagnostic diag =
          gemm.emitError() << "T.wgmma_gemm cannot take wgmma in this kernel: "
                           << kept->second.second;
      if (kept->second.first != gemm.getOperation())
        diag << " (at the T.gemm at "
             << simt::formatLoc(kept->second.first->getLoc())
             << ", which shares fragments with this one)";
      return WalkResult::interrupt();
    }
    if (gemm->getParentOfType<tile::PipelinedOp>()) {
      gemm.emitError("T.wgmma_gemm inside T.Pipelined is not supported yet "
                     "(the pipeline waits for its gemms itself): use T.gemm "
                     "there, or T.serial with T.wait_wgmma");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

FailureOr<gemm::AccumulatorPlan>
gemm::planWgmma(tile::GemmOp gemm, const TargetInfo &target, int64_t m,
                int64_t n, int64_t k, Type in, int64_t threads,
                bool aInRegisters) {
  Type inB = cast<MemRefType>(gemm.getB().getType()).getElementType();
  llvm::Expected<WgmmaShape> shape =
      wgmmaShape(target, toPolicy(gemm.getPolicy()), m, n, k, in, inB, threads);
  if (!shape)
    return gemm.emitError()
           << "T.gemm on the wgmma path: " << text(shape.takeError());
  gemm->setAttr(tile::MmaAttr::getAttrName(),
                tile::MmaAttr::get(gemm.getContext(), tile::MmaKind::wgmma,
                                   shape->instr->opName, 64, shape->instrN,
                                   shape->instr->k, shape->warps.warpsM,
                                   shape->warps.warpsN,
                                   aInRegisters ? tile::OperandSource::registers
                                                : tile::OperandSource::shared,
                                   tile::OperandSource::shared, /*kPack=*/1));
  llvm::Expected<LinearLayout> acc =
      wgmmaTiledAccumulatorLayout(m, n, shape->warps, shape->instrN);
  if (!acc)
    return gemm.emitError()
           << "no wgmma accumulator layout: " << text(acc.takeError());
  return AccumulatorPlan{
      std::move(*acc), "the wgmma accumulator layout for " +
                           std::to_string(shape->warps.warpsM / 4) + "x" +
                           std::to_string(shape->warps.warpsN) + " warpgroups"};
}

llvm::Expected<tile::SwizzleAttr> gemm::rowMajorSwizzle(MLIRContext *ctx,
                                                        MemRefType type) {
  return canonicalSwizzle(ctx, type, /*kMajor=*/true, /*mnStep=*/0);
}

FailureOr<tile::SwizzleAttr> gemm::wgmmaSwizzle(tile::GemmOp gemm, bool isA) {
  tile::MmaAttr mma = readMma(gemm);
  Value buffer = isA ? gemm.getA() : gemm.getB();
  bool kMajor = isA ? !gemm.getTransposeA() : gemm.getTransposeB();
  llvm::Expected<tile::SwizzleAttr> attr =
      canonicalSwizzle(gemm.getContext(), cast<MemRefType>(buffer.getType()),
                       kMajor, isA ? 64 : mma.getN());
  if (!attr)
    return gemm.emitError()
           << "T.gemm on the wgmma path: " << text(attr.takeError());
  return *attr;
}
