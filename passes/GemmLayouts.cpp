//===- GemmLayouts.cpp - Layout decisions of the mma.sync GEMM path -------===//
//
// Part of tile-infer-layouts, run before the SIMT inference so that the
// accumulator layouts it records count as pinned there (the T.Parallel
// epilogues and fragment copies then follow the mma fragment). Per
// tile.gemm:
//  1. check the operands: A and B shared f16/bf16 buffers (or tf32, fp8
//     and int8 ones, MmaSyncTypes.h), C a fragment of their accumulator
//     type (f32; s32 for int8; f16 too for f16), shapes agreeing with
//     transpose_A/transpose_B; the gemms chooseWgmma gives wgmma are
//     decided first (GemmLayoutsWgmma.cpp);
//  2. pick the instruction from the chip's TargetInfo table, split the
//     block's warps with computeWarpPartition (the gemm's GemmWarpPolicy)
//     and record both as `tile.mma` (#tile.mma);
//  3. give C the block-level mma.sync accumulator layout; a C that already
//     carries a different layout (a second gemm, a pinned layout) is a
//     located error naming both;
//  4. an A operand in a fragment gets the mma.sync A operand tiling for
//     the same warp split (a conflict is a located error as in 3);
//  5. give each shared operand the layout pickSharedLayout chooses; a
//     swizzle is recorded as the XOR it applies to the row-major offset
//     (checked element by element against the library's layout) and only
//     when every use of the buffer goes through this lowering (16-byte
//     copies into it and tile.gemm reads), since other users index it
//     row-major.
// On AMD chips steps 2 and 3 are GemmLayoutsMFMA.cpp's (wave split, MFMA
// instruction, accumulator); step 4 is the same: the MFMA operand reads of
// a K-contiguous operand are 16 bytes from 8 consecutive rows at one k
// offset per 8 lanes, the access pattern of ldmatrix that the swizzle was
// chosen for (LayoutMfmaTest counts the banks).
//
//===----------------------------------------------------------------------===//

#include "Partitions.h"
#include "llvm/Support/SaveAndRestore.h"
#include "GemmLayouts.h"
#include "MmaSyncTypes.h"
#include "SIMTLayout.h"

#include "tilec/Dialect/TileOps.h"
#include "tilec/Layout/MmaLayouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-infer-layouts"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace tilec;

namespace {

std::string errorText(llvm::Error err) {
  return llvm::toString(std::move(err));
}

tile::AllocOp allocOf(Value buffer) {
  return buffer.getDefiningOp<tile::AllocOp>();
}

bool isSpace(Value buffer, tile::MemorySpace space) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  return type && tile::getMemorySpace(type) == space;
}

/// The XOR on the row-major offset that equals `layout`, if one does: the
/// candidate's bit count and base come from the swizzle width and the
/// element size, its shift is searched, and the winner is checked on every
/// element.
std::optional<XorSwizzle> xorOf(const SharedLayout &layout) {
  ArrayRef<int64_t> shape = layout.getShape();
  if (shape.size() != 2)
    return std::nullopt;
  if (layout.getSwizzle() == SwizzleMode::None)
    return XorSwizzle{};
  int64_t rows = shape[0], cols = shape[1];
  int32_t bits = int32_t(layout.getSwizzle());
  int32_t base = log2Exact(16 / layout.getElemBytes());
  for (int32_t shift = bits; shift < 24; ++shift) {
    XorSwizzle cand{bits, base, shift};
    bool all = true;
    for (int64_t r = 0; r < rows && all; ++r)
      for (int64_t c = 0; c < cols && all; ++c) {
        llvm::Expected<int64_t> off = layout.offset({r, c});
        if (!off) {
          llvm::consumeError(off.takeError());
          return std::nullopt;
        }
        all = *off == cand.apply(r * cols + c);
      }
    if (all)
      return cand;
  }
  return std::nullopt;
}

} // namespace

/// Whether every use of a shared buffer is one this path lowers with the
/// swizzle: a tile.copy from global memory into it or a tile.gemm read.
bool gemm::onlyGemmUses(tile::AllocOp alloc) {
  for (Operation *user : alloc->getUsers()) {
    if (isa<tile::GemmOp>(user))
      continue;
    if (auto copy = dyn_cast<tile::CopyOp>(user))
      if (copy.getDst() == alloc.getResult() && gemm::isOperandCopy(copy))
        continue;
    // T.ptx_cp_async into it: the lowering addresses its elements through
    // the swizzle (LowerAsyncCopy.cpp).
    if (auto raw = dyn_cast<tile::CpAsyncOp>(user);
        raw && raw.getDst() == alloc.getResult())
      continue;
    return false;
  }
  return true;
}

namespace {

class GemmInference {
public:
  /// `kind` for every gemm but those of `wgmma`, which take wgmma.
  GemmInference(Operation *kernel, int64_t threads, int64_t warpSize,
                const TargetInfo &target, MMAKind kind,
                const llvm::DenseSet<Operation *> &wgmma)
      : kernel(kernel), threads(threads), warpSize(warpSize), target(target),
        baseKind(kind), kind(kind), wgmma(wgmma) {}

  /// The wgmma gemms first: their canonical swizzles are the layouts of
  /// the shared operands they read, which mma.sync gemms read too.
  LogicalResult run() {
    for (bool warpgroup : {true, false}) {
      WalkResult walk = kernel->walk([&](tile::GemmOp gemm) {
        if (wgmma.contains(gemm) != warpgroup)
          return WalkResult::advance();
        kind = warpgroup ? MMAKind::Warpgroup : baseKind;
        path = kind == MMAKind::Wave        ? "MFMA"
               : kind == MMAKind::Warpgroup ? "wgmma"
                                            : "mma.sync";
        return failed(infer(gemm)) ? WalkResult::interrupt()
                                   : WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return failure();
    }
    return success();
  }

private:
  LogicalResult infer(tile::GemmOp gemm) {
    // In a T.ws region the gemm spreads over the region's threads.
    llvm::SaveAndRestore<int64_t> partition(threads,
                                            simt::threadsOf(gemm, threads));
    tile::AllocOp a = allocOf(gemm.getA()), b = allocOf(gemm.getB()),
                  c = allocOf(gemm.getC());
    if (!c || !isSpace(gemm.getC(), tile::MemorySpace::fragment))
      return gemm.emitError("T.gemm accumulates into a fragment "
                            "(T.alloc_fragment) buffer");
    // A comes from shared memory or from a fragment (FlashAttention's P);
    // B from shared memory (a fragment B was staged there by
    // stageFragmentB). (On every path: mma.sync, wgmma, MFMA.)
    bool aInRegisters = a && isSpace(gemm.getA(), tile::MemorySpace::fragment);
    if (!a || !b ||
        !(aInRegisters || isSpace(gemm.getA(), tile::MemorySpace::shared)) ||
        !isSpace(gemm.getB(), tile::MemorySpace::shared))
      return gemm.emitError()
             << "T.gemm on the " << path
             << " path reads A from shared memory (T.alloc_shared)"
             << " or a fragment"
             << ", and B from shared memory";
    auto aType = cast<MemRefType>(a.getType());
    auto bType = cast<MemRefType>(b.getType());
    auto cType = cast<MemRefType>(c.getType());
    Type in = aType.getElementType();
    // mma.sync also takes float32 (as tf32) and the 8-bit floats (e4m3 /
    // e5m2, mixed too) where the chip's table has them, MFMA float32; the
    // other paths f16 / bf16 only.
    // int8 A and B (s8, with an s32 accumulator) only together.
    bool int8 = in.isInteger(8);
    bool sameKind = int8 == bType.getElementType().isInteger(8);
    bool warpSyncTypes = kind == MMAKind::WarpSync &&
                         gemm::isMmaSyncOperandType(in) &&
                         gemm::isMmaSyncOperandType(bType.getElementType()) &&
                         (in.isF32() == bType.getElementType().isF32()) &&
                         sameKind;
    // wgmma: the 8-bit floats, int8 and tf32 too (chooseWgmma chose it
    // for them).
    warpSyncTypes |= kind == MMAKind::Warpgroup &&
                     aType.getElementTypeBitWidth() == 8 &&
                     gemm::isMmaSyncOperandType(in) &&
                     gemm::isMmaSyncOperandType(bType.getElementType()) &&
                     bType.getElementTypeBitWidth() == 8 && sameKind;
    warpSyncTypes |= kind == MMAKind::Warpgroup && in.isF32() &&
                     bType.getElementType().isF32();
    // MFMA: fp32 A and B too (v_mfma_f32_*f32); not int8 yet.
    warpSyncTypes |=
        kind == MMAKind::Wave && in.isF32() && bType.getElementType().isF32();
    if (kind == MMAKind::Wave && int8)
      return gemm.emitError("T.gemm with int8 operands is not supported yet "
                            "on the MFMA path (it is on NVIDIA's mma.sync "
                            "and wgmma)");
    // A float16 accumulator: mma.sync's f16 form (wgmma keeps float32
    // accumulators here: chooseWgmma leaves such a gemm on mma.sync).
    bool f16Acc = cType.getElementType().isF16();
    if (f16Acc && kind != MMAKind::WarpSync)
      return gemm.emitError()
             << "T.gemm with a float16 accumulator is supported on the "
                "mma.sync path only (NVIDIA), not on the "
             << path << " path";
    if (!gemm::isAccumulatorType(in, cType.getElementType()) ||
        (f16Acc && bType.getElementType() != in) ||
        (!warpSyncTypes &&
         (in != bType.getElementType() || !(in.isF16() || in.isBF16()))))
      return gemm.emitError()
             << "T.gemm on the " << path << " path needs "
             << (kind == MMAKind::WarpSync
                     ? "float16 or bfloat16 A and B of one type, float32 "
                       "(tf32) ones, or float8 (e4m3 / e5m2) ones, with a "
                       "float32 accumulator (float16 ones also a float16 "
                       "one), or int8 ones with an int32 one"
                 : kind == MMAKind::Wave
                     ? "float16, bfloat16 or float32 A and B of one type "
                       "and a float32 accumulator"
                     : "float16, bfloat16 or float8 A and B and a float32 "
                       "accumulator, or int8 ones and an int32 one")
             << ", got " << aType.getElementType() << ", "
             << bType.getElementType() << " -> " << cType.getElementType();
    // A region (Q_s[:, 256:], a ring's stage A_s[k % 2, :, :]) of a shared
    // operand reads the tile its buffer's layout stores from an origin; a
    // region of the accumulator (acc_o[:, 256:]) is a subset of its
    // registers (below); a region of a fragment A is not lowered yet.
    if (gemm.isRegion(0) &&
        isSpace(gemm.getOperandBuffer(0), tile::MemorySpace::fragment))
      return gemm.emitError()
             << "T.gemm on a region of the fragment `" << a.getName()
             << "` as operand A is not supported yet (a region of a shared "
                "buffer is); use a fragment of the region's shape";
    if ((aType.getRank() != 2 && !gemm.isRegion(0)) ||
        (bType.getRank() != 2 && !gemm.isRegion(1)) || cType.getRank() != 2)
      return gemm.emitError("T.gemm operands must be 2-D tiles");
    int64_t m = gemm.getM(), n = gemm.getN(), k = gemm.getK();
    std::array<int64_t, 2> aShape = gemm.getOperandShape(0),
                           bShape = gemm.getOperandShape(1);
    int64_t am = aShape[gemm.getTransposeA() ? 1 : 0];
    int64_t bk = bShape[gemm.getTransposeB() ? 1 : 0];
    int64_t bn = bShape[gemm.getTransposeB() ? 0 : 1];
    if (am != m || bn != n || bk != k)
      return gemm.emitError()
             << "T.gemm shapes disagree: A gives " << am << "x" << k << ", B "
             << bk << "x" << bn << ", C is " << m << "x" << n;
    if (threads % warpSize)
      return gemm.emitError() << "T.gemm needs whole warps, the kernel has "
                              << threads << " threads";

    // The MFMA path picks among several instructions (GemmLayoutsMFMA.cpp);
    // mma.sync has one m16n8kK per operand type (MmaSyncTypes.cpp), all
    // with the m16n8k16 accumulator MmaLayouts.h tiles.
    FailureOr<gemm::AccumulatorPlan> plan = failure();
    if (kind == MMAKind::WarpSync) {
      const MMAInstruction *instr =
          gemm::findMmaSync(target, in, bType.getElementType(),
                            cType.getElementType());
      if (!instr)
        return gemm.emitError()
               << "T.gemm on the mma.sync path: " << target.chip()
               << " has no m16n8kK instruction for " << in << " x "
               << bType.getElementType() << " inputs and "
               << (cType.getElementType().isF16()          ? "f16"
                   : cType.getElementType().isInteger(32) ? "s32"
                                                          : "f32")
               << " accumulation";
      if (aInRegisters && aType.getElementTypeBitWidth() == 8)
        return gemm.emitError()
               << "T.gemm on the mma.sync path reads a " << in
               << " A operand from shared memory (T.alloc_shared); A in "
                  "registers takes float16, bfloat16 or float32";
      if (k % instr->k)
        return gemm.emitError() << "T.gemm on the mma.sync path needs K a "
                                   "multiple of "
                                << instr->k << ", got " << k;
      plan = planMmaSync(gemm, c, m, n, *instr, aInRegisters);
    } else if (kind == MMAKind::Warpgroup) {
      plan = gemm::planWgmma(gemm, target, m, n, k, in, threads, aInRegisters);
    } else {
      plan = gemm::planMfma(gemm, target, m, n, k, in, threads, warpSize,
                            aInRegisters);
    }
    if (failed(plan))
      return failure();
    if (gemm.isRegion(2) && failed(tileOverFragment(gemm, c, *plan)))
      return failure();
    if (failed(pinFragment(gemm, c, plan->layout, "needs " + plan->what)))
      return failure();

    if (aInRegisters && kind == MMAKind::Warpgroup) {
      // wgmma's register A fragment of a warpgroup's m64 x k16 block is
      // its D fragment for N = 16, so A over all of K is the D layout of
      // an m x k product (FlashAttention's S, cast to P, read in place),
      // replicated over the warpgroups along N.
      tile::MmaAttr mma = gemm::readMma(gemm);
      llvm::Expected<LinearLayout> layout = wgmmaRegisterOperandALayout(
          m, k, WarpPartition{mma.getWarpsM(), mma.getWarpsN()});
      if (!layout)
        return gemm.emitError()
               << "no wgmma register operand layout for `" << a.getName()
               << "`: " << errorText(layout.takeError());
      if (failed(
              pinFragment(gemm, a, *layout, "reads it as its wgmma A operand")))
        return failure();
    } else if (aInRegisters && kind == MMAKind::Wave) {
      // MFMA: the accumulator layout of an m x k product (see
      // mfmaRegisterOperandALayout), so FlashAttention's S -> P cast
      // copies registers.
      // The fp32 forms read one k a lane where an accumulator holds 4
      // consecutive ones: their A is laid out as the instruction reads it
      // (mfmaOperandALayout, unpacked; a copy or a T.Parallel loop fills
      // it, not a gemm's accumulator).
      std::optional<gemm::MfmaChoice> choice = gemm::readMfma(gemm);
      assert(choice && "planMfma records an MFMA decision");
      tile::MmaAttr mma = gemm::readMma(gemm);
      WarpPartition waves{mma.getWarpsM(), mma.getWarpsN()};
      llvm::Expected<LinearLayout> layout =
          mfmaLaneElements(choice->shape) == 1
              ? mfmaOperandALayout(m, k, choice->shape, waves, 1)
              : mfmaRegisterOperandALayout(m, k, choice->shape, waves);
      if (!layout)
        return gemm.emitError()
               << "no MFMA register operand layout for `" << a.getName()
               << "`: " << errorText(layout.takeError());
      if (failed(pinFragment(gemm, a, *layout,
                             "reads it as its MFMA A operand for a " +
                                 std::to_string(mma.getWarpsM()) + "x" +
                                 std::to_string(mma.getWarpsN()) +
                                 " wave split")))
        return failure();
    } else if (aInRegisters) {
      tile::MmaAttr mma = gemm::readMma(gemm);
      if (failed(pinOperandA(gemm, a, m, k,
                             WarpPartition{mma.getWarpsM(), mma.getWarpsN()})))
        return failure();
    } else if (failed(pickShared(gemm, a, /*isA=*/true))) {
      return failure();
    }
    return pickShared(gemm, b, /*isA=*/false);
  }

  /// A gemm writing a region of its accumulator: the fragment takes the
  /// accumulator layout of the decided warp split over its whole shape,
  /// which holds each region (at an origin on the warps' grid) in the
  /// registers the instruction's fragment puts it in; the lowering checks
  /// that thread by thread and names the region where it does not.
  LogicalResult tileOverFragment(tile::GemmOp gemm, tile::AllocOp c,
                                 gemm::AccumulatorPlan &plan) {
    tile::MmaAttr mma = gemm::readMma(gemm);
    auto type = cast<MemRefType>(c.getType());
    int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
    WarpPartition warps{mma.getWarpsM(), mma.getWarpsN()};
    llvm::Expected<LinearLayout> layout =
        kind == MMAKind::WarpSync ? mmaAccumulatorLayout(rows, cols, warps)
        : kind == MMAKind::Warpgroup
            ? wgmmaTiledAccumulatorLayout(rows, cols, warps, mma.getN())
            : llvm::createStringError(llvm::inconvertibleErrorCode(),
                                      "not on the MFMA path yet");
    if (!layout)
      return gemm.emitError()
             << "T.gemm on a region of the accumulator `" << c.getName()
             << "`: no " << path << " accumulator layout over its " << rows
             << "x" << cols << " tile: " << errorText(layout.takeError());
    plan.layout = std::move(*layout);
    plan.what += ", tiled over the whole fragment (this T.gemm writes a "
                 "region of it)";
    return success();
  }

  /// mma.sync m16n8k16: the warp split and the block accumulator.
  FailureOr<gemm::AccumulatorPlan>
  planMmaSync(tile::GemmOp gemm, tile::AllocOp c, int64_t m, int64_t n,
              const MMAInstruction &instr, bool aInRegisters) {
    llvm::Expected<WarpPartition> warps = computeWarpPartition(
        gemm::toPolicy(gemm.getPolicy()), m, n, threads / warpSize);
    if (!warps)
      return gemm.emitError() << errorText(warps.takeError());
    gemm->setAttr(tile::MmaAttr::getAttrName(),
                  tile::MmaAttr::get(
                      gemm.getContext(), tile::MmaKind::mma_sync, instr.opName,
                      instr.m, instr.n, instr.k, warps->warpsM, warps->warpsN,
                      aInRegisters ? tile::OperandSource::registers
                                   : tile::OperandSource::shared,
                      tile::OperandSource::shared, /*kPack=*/1));

    llvm::Expected<LinearLayout> acc = mmaAccumulatorLayout(m, n, *warps);
    if (!acc)
      return gemm.emitError()
             << "no mma.sync accumulator layout for `" << c.getName()
             << "`: " << errorText(acc.takeError());
    return gemm::AccumulatorPlan{
        std::move(*acc), "the mma.sync accumulator layout for a " +
                             std::to_string(warps->warpsM) + "x" +
                             std::to_string(warps->warpsN) + " warp split"};
  }

  /// A in registers: the fragment must hold the mma.sync A operand tiling
  /// (warps along N hold copies). With the warps all along M this is the
  /// accumulator tiling of an m x k product, so a T.copy from such an
  /// accumulator (FlashAttention's S -> P cast) is a register copy.
  LogicalResult pinOperandA(tile::GemmOp gemm, tile::AllocOp a, int64_t m,
                            int64_t k, const WarpPartition &warps) {
    if (gemm.getTransposeA())
      return gemm.emitError("T.gemm with A in registers does not take "
                            "transpose_A");
    // float32 (tf32) A: the m16n8k8 fragment tiled the same way.
    llvm::Expected<LinearLayout> layout =
        cast<MemRefType>(a.getType()).getElementTypeBitWidth() == 32
            ? tileFragmentOverBlock(mmaM16N8K8Tf32OperandA(), m, k, warps,
                                    /*ownM=*/true, /*ownN=*/false)
            : mmaOperandALayout(m, k, warps);
    if (!layout)
      return gemm.emitError()
             << "no mma.sync operand layout for `" << a.getName()
             << "`: " << errorText(layout.takeError());
    return pinFragment(gemm, a, *layout,
                       "reads it as its A operand for a " +
                           std::to_string(warps.warpsM) + "x" +
                           std::to_string(warps.warpsN) + " warp split");
  }

  /// Gives fragment `alloc` the layout `gemm` needs; one it already has
  /// from another gemm or a pin is a located error naming both.
  LogicalResult pinFragment(tile::GemmOp gemm, tile::AllocOp alloc,
                            const LinearLayout &layout, const Twine &what) {
    auto attr = tile::FragmentAttr::get(gemm.getContext(), layout);
    if (tile::FragmentAttr old = alloc.getLayoutAttr(); old && old != attr) {
      InFlightDiagnostic diag = gemm.emitError()
                                << "conflicting layouts for fragment `"
                                << alloc.getName() << "`: this T.gemm " << what;
      if (Operation *prev = accOwner.lookup(alloc))
        diag << ", but the T.gemm at " << simt::formatLoc(prev->getLoc())
             << " gave it another";
      else
        diag << ", but it is pinned to another layout at "
             << simt::formatLoc(alloc.getLoc());
      return diag;
    }
    alloc.setLayoutAttr(attr);
    accOwner.try_emplace(alloc, gemm);
    return success();
  }

  LogicalResult pickShared(tile::GemmOp gemm, tile::AllocOp alloc, bool isA) {
    // A buffer a wgmma gemm reads keeps the canonical swizzle it recorded:
    // the mma.sync lowering reads every shared operand through the
    // buffer's swizzle and atoms (slotIndices).
    if (kind != MMAKind::Warpgroup)
      if (Operation *owner = sharedOwner.lookup(alloc))
        if (tile::MmaAttr mma = gemm::readMma(cast<tile::GemmOp>(owner));
            mma && mma.getKind() == tile::MmaKind::wgmma)
          return success();
    if (kind == MMAKind::Warpgroup) {
      FailureOr<tile::SwizzleAttr> attr = gemm::wgmmaSwizzle(gemm, isA);
      if (failed(attr))
        return failure();
      return recordShared(gemm, alloc, *attr);
    }
    auto type = cast<MemRefType>(alloc.getType());
    int64_t elemBytes = type.getElementTypeBitWidth() / 8;
    XorSwizzle swizzle;
    ArrayRef<int64_t> tileShape = type.getShape().take_back(2);
    llvm::Expected<SharedLayout> layout =
        pickSharedLayout(tileShape[0], tileShape[1], elemBytes);
    if (!layout) {
      llvm::consumeError(layout.takeError());
    } else if (gemm::onlyGemmUses(alloc)) {
      if (std::optional<XorSwizzle> found = xorOf(*layout))
        swizzle = *found;
    }
    // xorOf's XOR has the mode's bit count (1, 2, 3 for 32B, 64B, 128B).
    auto attr = tile::SwizzleAttr::get(
        gemm.getContext(), tile::SwizzleMode(swizzle.bits), swizzle.bits,
        swizzle.bits ? swizzle.base : 0, swizzle.bits ? swizzle.shift : 0,
        /*atom=*/0);
    return recordShared(gemm, alloc, attr);
  }

  LogicalResult recordShared(tile::GemmOp gemm, tile::AllocOp alloc,
                             tile::SwizzleAttr attr) {
    if (Attribute old = alloc->getAttr(gemm::kSharedLayoutAttr);
        old && old != attr) {
      Operation *prev = sharedOwner.lookup(alloc);
      return gemm.emitError()
             << "conflicting shared layouts for `" << alloc.getName()
             << "`: this T.gemm wants " << attr << " but "
             << (prev ? "the T.gemm at " + simt::formatLoc(prev->getLoc())
                      : std::string("its allocation"))
             << " gave it " << old;
    }
    alloc->setAttr(gemm::kSharedLayoutAttr, attr);
    sharedOwner.try_emplace(alloc, gemm);
    return success();
  }

  Operation *kernel;
  int64_t threads, warpSize;
  const TargetInfo &target;
  MMAKind baseKind, kind; // the kernel's, the current gemm's
  const llvm::DenseSet<Operation *> &wgmma;
  llvm::StringRef path;
  llvm::DenseMap<Operation *, Operation *> accOwner, sharedOwner;
};

} // namespace

/// Every path reads B from shared memory: a whole 2-D fragment B (KDA's
/// `kg`, computed in registers by a T.Parallel loop) is staged through a
/// shared buffer of its shape, as TileLang's mma.sync path does for a
/// register B, by a tile.copy right before the gemm (none before a gemm
/// that directly follows another reading the same fragment: the fragment
/// is unchanged). tile-insert-barriers fences the copy like any other.
static void stageFragmentB(Operation *kernel) {
  SmallVector<tile::GemmOp> gemms;
  kernel->walk([&](tile::GemmOp gemm) {
    auto alloc = gemm.getB().getDefiningOp<tile::AllocOp>();
    auto type = dyn_cast<MemRefType>(gemm.getB().getType());
    if (alloc && type && type.getRank() == 2 && type.hasStaticShape() &&
        tile::getMemorySpace(type) == tile::MemorySpace::fragment &&
        !gemm.isRegion(1))
      gemms.push_back(gemm);
  });
  llvm::DenseMap<Value, Value> staged;
  for (tile::GemmOp gemm : gemms) {
    Value frag = gemm.getB();
    auto type = cast<MemRefType>(frag.getType());
    auto [it, inserted] = staged.try_emplace(frag, Value());
    if (inserted) {
      // The buffer lives with the kernel's other allocations.
      auto alloc = frag.getDefiningOp<tile::AllocOp>();
      auto owner = gemm->getParentOfType<tile::KernelOp>();
      OpBuilder top(alloc->getContext());
      if (owner)
        top.setInsertionPointToStart(owner.getBody());
      else
        top.setInsertionPointAfter(alloc);
      it->second = tile::AllocOp::create(
          top, alloc.getLoc(),
          tile::getBufferType(type.getShape(), type.getElementType(),
                              tile::MemorySpace::shared),
          (alloc.getName() + "_staged").str());
    }
    Value buffer = it->second;
    auto prev = dyn_cast_or_null<tile::GemmOp>(gemm->getPrevNode());
    if (!prev || prev.getB() != buffer) {
      OpBuilder b(gemm);
      Location loc = gemm.getLoc();
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      SmallVector<Value> zeros(2, zero);
      tile::CopyOp::create(b, loc, frag, zeros, type.getShape(), buffer, zeros,
                           type.getShape());
    }
    gemm.getBMutable().assign(buffer);
  }
}

LogicalResult gemm::inferGemmLayouts(Operation *kernel,
                                     const TargetInfo &target) {
  stageFragmentB(kernel);
  std::optional<int64_t> threads = simt::kernelThreads(kernel);
  tile::GemmOp first;
  kernel->walk([&](tile::GemmOp op) {
    if (!first)
      first = op;
  });
  if (!first)
    return success();
  if (!threads)
    return kernel->emitError("cannot tell how many threads this kernel has");
  std::optional<MMAKind> kind = pickMmaKind(target);
  if (!kind)
    return first.emitError() << "T.gemm: " << target.chip()
                             << " has no matrix instruction tilec lowers";
  // Warpgroup MMA where the chip has it, for each class of gemms coupled
  // through fragments whose gemms can all take it (chooseWgmma);
  // otherwise the kind above.
  bool hasWgmma = llvm::any_of(target.mmaInstructions(), [](auto &i) {
    return i.kind == MMAKind::Warpgroup;
  });
  gemm::WgmmaChoice choice;
  if (hasWgmma)
    choice = gemm::chooseWgmma(kernel, target, *threads);
  // T.wgmma_gemm asks for wgmma: where the kernel cannot take it, an error
  // (TileLang's contract), never mma.sync.
  if (failed(gemm::checkAsyncGemms(kernel, hasWgmma, choice)))
    return failure();
  LLVM_DEBUG({
    for (auto &entry : choice.kept)
      llvm::dbgs() << "tile-infer-layouts: mma.sync, not wgmma: "
                   << entry.second.second << "\n";
  });
  // tilec --remarks (the module's tile.remarks): the choice, at the
  // kernel's first gemm, or, where a wgmma chip keeps mma.sync, at each
  // gemm that could not take wgmma, with the reason.
  if (Operation *module = kernel->getParentOfType<ModuleOp>();
      module && module->hasAttr("tile.remarks")) {
    if (hasWgmma && choice.kept.empty()) {
      first.emitRemark("the kernel's gemms use wgmma");
    } else if (hasWgmma) {
      llvm::SetVector<Operation *> culprits;
      kernel->walk([&](tile::GemmOp gemm) {
        if (auto it = choice.kept.find(gemm); it != choice.kept.end())
          culprits.insert(it->second.first);
      });
      for (Operation *culprit : culprits) {
        int64_t coupled = llvm::count_if(choice.kept, [&](auto &entry) {
          return entry.second.first == culprit;
        });
        InFlightDiagnostic remark = culprit->emitRemark();
        if (choice.wgmma.empty())
          remark << "the kernel's gemms use mma.sync, not wgmma: ";
        else
          remark << "this T.gemm"
                 << (coupled == 2  ? " and the one that shares fragments "
                                     "with it use"
                     : coupled > 2 ? " and the " + std::to_string(coupled - 1) +
                                         " that share fragments with it use"
                                   : " uses")
                 << " mma.sync, not wgmma ("
                 << (choice.wgmma.size() == 1
                         ? std::string("the kernel's other gemm uses")
                         : "the kernel's other " +
                               std::to_string(choice.wgmma.size()) +
                               " gemms use")
                 << " wgmma): ";
        remark << choice.kept.lookup(culprit).second;
      }
    } else {
      first.emitRemark() << "the kernel's gemms use "
                         << (*kind == MMAKind::Wave ? "MFMA" : "mma.sync")
                         << " (" << target.chip() << " has no wgmma)";
    }
  }
  return GemmInference(kernel, *threads, target.warpSize(), target, *kind,
                       choice.wgmma)
      .run();
}

bool gemm::targetHasMma(const TargetInfo &target, tile::MmaAttr mma) {
  MMAKind kind = mma.getKind() == tile::MmaKind::mma_sync ? MMAKind::WarpSync
                 : mma.getKind() == tile::MmaKind::wgmma  ? MMAKind::Warpgroup
                                                          : MMAKind::Wave;
  return llvm::any_of(target.mmaInstructions(), [&](const MMAInstruction &i) {
    return i.kind == kind && i.opName == mma.getInstruction() &&
           i.m == mma.getM() && i.k == mma.getK() &&
           (i.nStep ? mma.getN() % i.nStep == 0 && mma.getN() <= i.n
                    : i.n == mma.getN());
  });
}

std::optional<MMAKind> gemm::pickMmaKind(const TargetInfo &target) {
  // wgmma (MMAKind::Warpgroup) is chosen per class of coupled gemms
  // (chooseWgmma) over this.
  for (MMAKind kind : {MMAKind::WarpSync, MMAKind::Wave})
    if (llvm::any_of(target.mmaInstructions(),
                     [&](const MMAInstruction &i) { return i.kind == kind; }))
      return kind;
  return std::nullopt;
}

int64_t gemm::operandRowDim(tile::CopyOp copy) {
  auto src = cast<MemRefType>(copy.getSrc().getType());
  auto dst = cast<MemRefType>(copy.getDst().getType());
  if (src.getRank() < 2 || dst.getRank() != 2 || !dst.hasStaticShape())
    return -1;
  ArrayRef<int64_t> extents = copy.getSrcExtents();
  int64_t last = src.getRank() - 1;
  if (extents[last] != dst.getDimSize(1))
    return -1;
  // The row dimension: the one other extent that is not 1 (the last but
  // one when every other extent is 1).
  int64_t rowDim = last - 1, wide = 0;
  for (int64_t d = 0; d < last; ++d)
    if (extents[d] != 1) {
      rowDim = d;
      ++wide;
    }
  if (wide > 1)
    return -1;
  if (extents[rowDim] != dst.getDimSize(0))
    return -1;
  return rowDim;
}

GemmWarpPolicy gemm::toPolicy(tile::GemmWarpPolicy policy) {
  switch (policy) {
  case tile::GemmWarpPolicy::full_row:
    return GemmWarpPolicy::FullRow;
  case tile::GemmWarpPolicy::full_col:
    return GemmWarpPolicy::FullCol;
  case tile::GemmWarpPolicy::square:
    break;
  }
  return GemmWarpPolicy::Square;
}

bool gemm::isOperandCopy(tile::CopyOp copy) {
  auto src = cast<MemRefType>(copy.getSrc().getType());
  auto dst = cast<MemRefType>(copy.getDst().getType());
  if (!tile::isGlobal(src) || dst.getRank() != 2 ||
      tile::getMemorySpace(dst) != tile::MemorySpace::shared ||
      src.getElementType() != dst.getElementType() || !dst.hasStaticShape())
    return false;
  if (operandRowDim(copy) < 0 || copy.getDstExtents() != dst.getShape())
    return false;
  // Columns must be the contiguous dimension.
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(src.getStridesAndOffset(strides, offset)) || strides.back() != 1)
    return false;
  for (Value offsetValue : copy.getDstOffsets()) {
    std::optional<int64_t> v = getConstantIntValue(offsetValue);
    if (!v || *v != 0)
      return false;
  }
  int64_t bytes = dst.getElementTypeBitWidth() / 8;
  return bytes > 0 && dst.getDimSize(1) * bytes % 16 == 0;
}

XorSwizzle gemm::readSwizzle(Operation *alloc) {
  auto attr = alloc->getAttrOfType<tile::SwizzleAttr>(kSharedLayoutAttr);
  if (!attr)
    return {};
  return XorSwizzle{attr.getBits(), attr.getBase(), attr.getShift()};
}

int64_t gemm::readSwizzleAtom(Operation *alloc) {
  auto attr = alloc->getAttrOfType<tile::SwizzleAttr>(kSharedLayoutAttr);
  return attr ? attr.getAtom() : 0;
}

int64_t gemm::swizzledOffset(int64_t rows, int64_t cols,
                             const XorSwizzle &swizzle, int64_t atom, int64_t r,
                             int64_t c) {
  return atomSwizzledOffset(rows, cols, swizzle, atom, r, c);
}

SmallVector<Value, 2> gemm::swizzledIndices(OpBuilder &b, Location loc,
                                            ArrayRef<int64_t> shape,
                                            const XorSwizzle &swizzle,
                                            int64_t atom, Value row,
                                            Value col) {
  if (!swizzle.bits)
    return {row, col};
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  int64_t rows = shape[0], cols = shape[1];
  // The offset within the row's atom (the whole row without atoms), and
  // the atom's start.
  int64_t width = atom ? atom : cols;
  Value inAtom = atom ? arith::AndIOp::create(b, loc, col, cst(atom - 1)) : col;
  Value offset = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, row, cst(width)), inAtom);
  // offset ^ (((offset >> (base + shift)) & mask) << base)
  Value src =
      arith::ShRUIOp::create(b, loc, offset, cst(swizzle.base + swizzle.shift));
  Value masked =
      arith::AndIOp::create(b, loc, src, cst((int64_t(1) << swizzle.bits) - 1));
  Value moved = arith::ShLIOp::create(b, loc, masked, cst(swizzle.base));
  Value swz = arith::XOrIOp::create(b, loc, offset, moved);
  if (atom) {
    Value atomIndex = arith::ShRUIOp::create(b, loc, col, cst(log2Exact(atom)));
    swz = arith::AddIOp::create(
        b, loc, swz,
        arith::MulIOp::create(b, loc, atomIndex, cst(rows * atom)));
  }
  if (!llvm::isPowerOf2_64(uint64_t(cols)))
    return {arith::DivUIOp::create(b, loc, swz, cst(cols)),
            arith::RemUIOp::create(b, loc, swz, cst(cols))};
  int log2Cols = log2Exact(cols);
  return {arith::ShRUIOp::create(b, loc, swz, cst(log2Cols)),
          arith::AndIOp::create(b, loc, swz, cst(cols - 1))};
}
