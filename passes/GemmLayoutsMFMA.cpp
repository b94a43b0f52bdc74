//===- GemmLayoutsMFMA.cpp - Layout decisions of the MFMA GEMM path -------===//
//
// Part of tile-infer-layouts for AMD chips (called from GemmLayouts.cpp
// after the operand checks both paths share). Per tile.gemm:
//  1. candidates: the target's matrix instructions (TargetInfo) issued by
//     one wavefront with the gemm's input type (fp16, bf16, or fp32:
//     v_mfma_f32_32x32x2f32 / 16x16x4f32, exact fp32 products, not the
//     xf32 forms), an f32 accumulator and a shape MfmaLayouts.h has
//     layouts for, widest tile first (a 32x32x8 instruction reads each
//     operand element once per 32 products, a 16x16x16 one once per 16);
//  2. the first candidate whose K divides the gemm's and whose tile splits
//     the accumulator over the waves (computeWavePartition, the gemm's
//     policy) wins;
//  3. k packing: 2 when K holds two instruction steps (required when the
//     gemm's k_pack asks for 2), so a lane reads 8 consecutive k (16 bytes)
//     for two instructions; `tile.mma` (#tile.mma, kind mfma) records the
//     instruction's op name, its shape, the wave split and the packing;
//  4. the accumulator layout: mfmaAccumulatorLayout (C = A B issued as
//     C^T = B^T A^T, so each lane's registers run along n).
//
//===----------------------------------------------------------------------===//

#include "GemmLayouts.h"

#include "mlir/IR/Builders.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace tilec;

namespace {

struct Candidate {
  const MMAInstruction *instr;
  MfmaShape shape;
};

} // namespace

FailureOr<gemm::AccumulatorPlan> gemm::planMfma(tile::GemmOp gemm,
                                                const TargetInfo &target,
                                                int64_t m, int64_t n, int64_t k,
                                                Type in, int64_t threads,
                                                int64_t waveSize,
                                                bool aInRegisters) {
  if (waveSize != kMfmaLanes)
    return gemm.emitError()
           << "T.gemm on the MFMA path needs waves of " << kMfmaLanes
           << " lanes, the warp size is " << waveSize;
  int64_t numWaves = threads / waveSize;
  // LowerGemmMFMA.cpp numbers the waves as a power-of-two grid; the
  // phantom waves of an odd count (placeWarps) are not supported there.
  if (!isPowerOfTwo(numWaves))
    return gemm.emitError()
           << "T.gemm on the MFMA path needs a power-of-two number of waves, "
              "the block has "
           << numWaves << " (" << threads << " threads)";
  MMAElementType type = in.isF16()    ? MMAElementType::F16
                        : in.isBF16() ? MMAElementType::BF16
                                      : MMAElementType::F32;
  SmallVector<Candidate> candidates;
  for (const MMAInstruction &instr : target.mmaInstructions()) {
    if (instr.kind != MMAKind::Wave || instr.a != type || instr.b != type ||
        instr.acc != MMAElementType::F32 || instr.nStep != 0 ||
        instr.operandsInSharedMemory || instr.threads != kMfmaLanes)
      continue;
    llvm::Expected<MfmaShape> shape = getMfmaShape(instr.m, instr.n, instr.k);
    if (!shape) {
      llvm::consumeError(shape.takeError());
      continue;
    }
    candidates.push_back({&instr, *shape});
  }
  // Widest tile first; the table's order among equals.
  llvm::sort(candidates, [](const Candidate &x, const Candidate &y) {
    unsigned areaX = x.instr->m * x.instr->n, areaY = y.instr->m * y.instr->n;
    return areaX != areaY ? areaX > areaY : x.instr < y.instr;
  });
  if (candidates.empty())
    return gemm.emitError()
           << "T.gemm on the MFMA path: " << target.chip()
           << " has no wave-wide matrix instruction for "
           << stringifyMMAElementType(type) << " inputs and f32 accumulation";

  // T.gemm's k_pack (TileLang's AMD knob, default 1) asks for packing;
  // without it packing is used where K allows.
  int64_t askedPack = gemm.getKPack();
  if (askedPack != 1 && askedPack != 2)
    return gemm.emitError() << "T.gemm on the MFMA path takes k_pack 1 or 2, "
                               "got "
                            << askedPack;
  // A in registers is read as an accumulator holds it: 4 k per lane and
  // instruction step, so no packing.
  if (aInRegisters && askedPack != 1)
    return gemm.emitError() << "T.gemm on the MFMA path with A in registers "
                               "takes k_pack 1, got "
                            << askedPack;
  if (aInRegisters && gemm.getTransposeA())
    return gemm.emitError("T.gemm with A in registers does not take "
                          "transpose_A");
  std::string why;
  for (const Candidate &cand : candidates) {
    const MMAInstruction &instr = *cand.instr;
    std::string name = instr.opName.str();
    int64_t step = askedPack * int64_t(instr.k);
    if (k % step) {
      why += "; " + name + ": K = " + std::to_string(k) +
             " is not a multiple of " + std::to_string(step);
      continue;
    }
    if (aInRegisters && mfmaLaneElements(cand.shape) == 4 &&
        k % int64_t(instr.n)) {
      why += "; " + name + ": A in registers needs K a multiple of " +
             std::to_string(instr.n) + ", got " + std::to_string(k);
      continue;
    }
    llvm::Expected<WarpPartition> waves = computeWavePartition(
        gemm::toPolicy(gemm.getPolicy()), m, n, numWaves, cand.shape);
    if (!waves) {
      why += "; " + name + ": " + llvm::toString(waves.takeError());
      continue;
    }
    llvm::Expected<LinearLayout> acc =
        mfmaAccumulatorLayout(m, n, cand.shape, *waves);
    if (!acc) {
      why += "; " + name + ": " + llvm::toString(acc.takeError());
      continue;
    }
    int64_t kPack = !aInRegisters && k % (2 * int64_t(instr.k)) == 0 ? 2 : 1;
    assert(kPack >= askedPack && "k was checked against the asked packing");
    gemm->setAttr(tile::MmaAttr::getAttrName(),
                  tile::MmaAttr::get(gemm.getContext(), tile::MmaKind::mfma,
                                     instr.opName, instr.m, instr.n, instr.k,
                                     waves->warpsM, waves->warpsN,
                                     aInRegisters
                                         ? tile::OperandSource::registers
                                         : tile::OperandSource::shared,
                                     tile::OperandSource::shared, kPack));
    return AccumulatorPlan{std::move(*acc),
                           "the MFMA accumulator layout of " + name +
                               " for a " + std::to_string(waves->warpsM) + "x" +
                               std::to_string(waves->warpsN) + " wave split"};
  }
  return gemm.emitError() << "T.gemm on the MFMA path: no " << target.chip()
                          << " instruction fits a " << m << "x" << n << "x" << k
                          << " gemm over " << numWaves << " waves" << why;
}

std::optional<gemm::MfmaChoice> gemm::readMfma(tile::GemmOp gemm) {
  auto mma = gemm->getAttrOfType<tile::MmaAttr>(tile::MmaAttr::getAttrName());
  if (!mma || mma.getKind() != tile::MmaKind::mfma)
    return std::nullopt;
  llvm::Expected<MfmaShape> known =
      getMfmaShape(mma.getM(), mma.getN(), mma.getK());
  if (!known) {
    llvm::consumeError(known.takeError());
    return std::nullopt;
  }
  return MfmaChoice{mma.getInstruction().str(), *known, int(mma.getKPack())};
}
