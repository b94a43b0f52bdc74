//===- LowerGemmMFMA.cpp - tile-lower-simt: T.gemm on AMD MFMA ------------===//
//
// Applies the decisions of GemmLayoutsMFMA.cpp inside an outlined kernel
// (AMD chips; the operand copies into the shared buffers are the generic
// synchronous 16-byte ones of LowerGemm.cpp's lowerOperandCopies).
//
// tile.gemm: the `mfma` attribute names the instruction, its shape
// (M_i x N_i x K_i) and the k packing P. The accumulator's layout is read
// back and checked, register by register and thread by thread, to be the
// instruction's transposed accumulator (mfmaSwappedAccumulator: C = A B is
// issued as C^T = B^T A^T) tiled at a per-wave origin
// (M_i * (wave % wavesM), N_i * (wave / wavesM)) plus a constant per tile;
// this yields the wave's lists of m and n tile origins. Then, for every
// group of P * K_i along K (unrolled):
//  - per m tile, lane l reads A[m0 + l % M_i][k0 + 4P (l / M_i) + j],
//    j < 4P: one vector load of 4P elements (8 or 16 bytes, ds_read_b64 /
//    b128) when K is A's contiguous dimension, else 4P element loads (the
//    fp32 forms take one element per lane: 4 reads 1 here, and each
//    instruction gets an f32);
//  - per n tile, B[k0 + 4P (l / N_i) + j][n0 + l % N_i], the same way;
//  - per instruction t < P and accumulator tile, one rocdl.mfma.* (the
//    typed ROCDL op of the decision's name, from DeviceOpBuilder) with the
//    B elements [4t, 4t + 4) as its A operand and the A elements as its B
//    operand (vector<4xf16>, or vector<4xi16> holding bf16 for the `_1k`
//    forms) on the tile's vector<M_i N_i / 64 x f32> accumulator.
// A held in registers (FlashAttention's P; GemmLayouts.cpp pins it to
// mfmaRegisterOperandALayout, k_pack 1) is read from the fragment's
// registers instead: per m tile and k step the 4 a lane passes, looked up
// in its layout and checked for every thread (readRegisterTiles).
// Shared indices go through the buffer's XOR swizzle (slotIndices), which
// keeps 16-byte chunks whole, so the vector loads stay contiguous. The
// accumulator is read from its registers once and written back once.
// test/Unit/LayoutMfmaTest.cpp runs this decomposition on the CPU.
//
//===----------------------------------------------------------------------===//

#include "DeviceOps.h"
#include "GemmLayouts.h"
#include "GemmLowering.h"

#include "tilec/Layout/MfmaLayouts.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <array>
#include <map>
#include <set>

using namespace mlir;
using namespace tilec;
using namespace tilec::simt;

namespace {

Value cIdx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

class MfmaLowering {
public:
  MfmaLowering(KernelLowering &kernel, tile::GemmOp op)
      : kernel(kernel), op(op), loc(op.getLoc()) {}

  LogicalResult run(OpBuilder &b) {
    if (op.isRegion(0) || op.isRegion(1) || op.isRegion(2))
      return op.emitError("T.gemm on a region of a buffer is not supported "
                          "yet on the MFMA path");
    const Fragment *acc = kernel.fragment(op.getC());
    if (!acc)
      return op.emitError("the accumulator of T.gemm is not a lowered "
                          "fragment");
    std::optional<gemm::MfmaChoice> choice = gemm::readMfma(op);
    if (!choice)
      return op.emitError("T.gemm has no mfma decision (tile.mma); run "
                          "tile-infer-layouts first");
    tile::MmaAttr mma = gemm::readMma(op);
    wavesM = mma.getWarpsM();
    wavesN = mma.getWarpsN();
    mfma = *choice;
    dims = getMfmaDims(mfma.shape);
    laneElems = mfmaLaneElements(mfma.shape);
    if (failed(readTiles(*acc)))
      return failure();
    return emit(b, *acc);
  }

private:
  /// Checks the accumulator layout and collects the wave's tile origins.
  LogicalResult readTiles(const Fragment &acc) {
    const Layout &layout = acc.layout;
    int64_t regs = layout.numRegisters();
    regsPerTile = dims.m * dims.n / kMfmaLanes;
    LinearLayout atom = mfmaSwappedAccumulator(mfma.shape);
    auto fail = [&](const Twine &why) {
      return op.emitError()
             << "the layout of `" << acc.name << "` is not a "
             << mfma.instruction << " accumulator tiling for a " << wavesM
             << "x" << wavesN << " wave split: " << why;
    };
    if (layout.numLanes() != kMfmaLanes || regs % regsPerTile ||
        layout.rank() != 2 || layout.numWarps() != wavesM * wavesN)
      return fail("wrong register, lane or wave count");
    for (int64_t g = 0; g < regs / regsPerTile; ++g) {
      SmallVector<int64_t> origin =
          layout.unflatten(layout.elementAt(regsPerTile * g, 0));
      if (origin[0] % dims.m || origin[1] % dims.n)
        return fail("a tile does not start on the instruction's grid");
      for (int64_t w = 0; w < layout.numWarps(); ++w)
        for (int64_t l = 0; l < kMfmaLanes; ++l)
          for (int64_t i = 0; i < regsPerTile; ++i) {
            auto out = atom.apply({int32_t(i), int32_t(l)});
            if (!out) {
              llvm::consumeError(out.takeError());
              return fail("cannot evaluate the instruction's layout");
            }
            int64_t m = origin[0] + dims.m * (w % wavesM) + (*out)[0];
            int64_t n = origin[1] + dims.n * (w / wavesM) + (*out)[1];
            if (layout.elementAt(regsPerTile * g + i, w * kMfmaLanes + l) !=
                layout.flatten({m, n}))
              return fail("register " + Twine(regsPerTile * g + i) +
                          " of lane " + Twine(l) + " of wave " + Twine(w));
          }
      mTiles.insert(origin[0]);
      nTiles.insert(origin[1]);
      tileOfOrigin[{origin[0], origin[1]}] = g;
    }
    if (int64_t(mTiles.size() * nTiles.size()) != regs / regsPerTile)
      return fail("the tiles do not form a grid");
    return success();
  }

  /// This lane's E P elements of one operand tile (E = laneElems: 4, or 1
  /// for fp32), k .. k + E P - 1 at `mn` along the other dimension, as a
  /// vector of the element type. `kIsDim0`: the buffer is stored K x MN.
  Value loadOperand(OpBuilder &b, SharedSlot slot, Value mn, Value k,
                    bool kIsDim0) {
    auto type = cast<MemRefType>(slot.buffer.getType());
    Type elem = type.getElementType();
    int64_t count = laneElems * mfma.kPack;
    auto vecType = VectorType::get({count}, elem);
    Value row = kIsDim0 ? k : mn, col = kIsDim0 ? mn : k;
    int64_t cols = type.getShape().back();
    int64_t elemBytes = type.getElementTypeBitWidth() / 8;
    // K along the buffer's rows: the 4P elements are contiguous; aligned to
    // their size when the row length is a multiple of it (k is), which the
    // swizzle (on 16-byte chunks) preserves.
    if (!kIsDim0 && cols % count == 0) {
      SmallVector<Value, 3> at = slotIndices(b, loc, slot, row, col);
      return vector::LoadOp::create(b, loc, vecType, slot.buffer, at,
                                    /*nontemporal=*/false,
                                    llvm::MaybeAlign(count * elemBytes));
    }
    SmallVector<Value> elems;
    for (int64_t j = 0; j < count; ++j) {
      Value kj = arith::AddIOp::create(b, loc, k, cIdx(b, loc, j));
      SmallVector<Value, 3> at = kIsDim0 ? slotIndices(b, loc, slot, kj, mn)
                                         : slotIndices(b, loc, slot, mn, kj);
      elems.push_back(memref::LoadOp::create(b, loc, slot.buffer, at));
    }
    return vector::FromElementsOp::create(b, loc, vecType, elems);
  }

  /// Elements [4t, 4t + 4) of a loaded operand as the instruction's operand
  /// type: vector<4xf16>, or vector<4xi16> for bf16 (the `_1k` forms); for
  /// the fp32 forms element t, an f32.
  Value operandOf(OpBuilder &b, Value loaded, int64_t t) {
    auto type = cast<VectorType>(loaded.getType());
    if (laneElems == 1)
      return vector::ExtractOp::create(b, loc, loaded, ArrayRef<int64_t>{t});
    Value part = loaded;
    // A shuffle rather than extract_strided_slice: the GPU-to-LLVM
    // conversion of targets/ lowers the former directly.
    if (type.getNumElements() != 4)
      part = vector::ShuffleOp::create(
          b, loc, loaded, loaded,
          ArrayRef<int64_t>{4 * t, 4 * t + 1, 4 * t + 2, 4 * t + 3});
    if (type.getElementType().isBF16())
      part = vector::BitCastOp::create(
          b, loc, VectorType::get({4}, b.getI16Type()), part);
    return part;
  }

  /// A in registers (FlashAttention's P): for each m tile origin and each
  /// k of the wave's lanes, the register of the fragment that holds
  /// A[m0 + M_i (w % wavesM) + l % M_i][k0 + E (l / M_i) + j], j < E
  /// (E = laneElems), the same in
  /// every thread (checked for all of them: a layout that does not put the
  /// element in that lane is an error, never a wrong read). Fills
  /// `regsA[{m0, k0}]` with the 4 registers.
  LogicalResult readRegisterTiles(const Fragment &a, int64_t kDim) {
    const Layout &layout = a.layout;
    auto fail = [&](const Twine &why) {
      return op.emitError()
             << "the layout of `" << a.name << "` is not the "
             << mfma.instruction << " register A operand for a " << wavesM
             << "x" << wavesN << " wave split: " << why;
    };
    if (mfma.kPack != 1)
      return fail("A in registers is read unpacked (k_pack 1)");
    if (layout.numLanes() != kMfmaLanes || layout.rank() != 2 ||
        layout.numWarps() != wavesM * wavesN)
      return fail("wrong lane or wave count");
    for (int64_t m0 : mTiles)
      for (int64_t k0 = 0; k0 < kDim; k0 += dims.k) {
        std::array<int64_t, 4> regs{-1, -1, -1, -1};
        for (int64_t j = 0; j < laneElems; ++j) {
          for (int64_t t = 0; t < layout.numThreads(); ++t) {
            int64_t w = t / kMfmaLanes, l = t % kMfmaLanes;
            int64_t m = m0 + dims.m * (w % wavesM) + l % dims.m;
            int64_t k = k0 + laneElems * (l / dims.m) + j;
            int64_t r = layout.findRegister(t, layout.flatten({m, k}));
            if (r < 0 || (regs[j] >= 0 && r != regs[j]))
              return fail("element (" + Twine(m) + ", " + Twine(k) +
                          ") of lane " + Twine(l) + " of wave " + Twine(w));
            regs[j] = r;
          }
        }
        regsA[{m0, k0}] = regs;
      }
    return success();
  }

  LogicalResult emit(OpBuilder &b, const Fragment &acc) {
    auto aType = cast<MemRefType>(op.getA().getType());
    int64_t kDim =
        op.getTransposeA() ? aType.getShape()[0] : aType.getShape()[1];
    const Fragment *fragA = kernel.fragment(op.getA());
    if (fragA && failed(readRegisterTiles(*fragA, kDim)))
      return failure();
    Type f32 = b.getF32Type();
    auto accType = VectorType::get({regsPerTile}, f32);
    SharedSlot slotA{op.getA(), Value()}, slotB{op.getB(), Value()};

    // Per-thread values, at the gemm (CSE'd with the other gemms).
    Value tid = kernel.threadId();
    Value lane = arith::RemUIOp::create(b, loc, tid, cIdx(b, loc, kMfmaLanes));
    Value wave = arith::DivUIOp::create(b, loc, tid, cIdx(b, loc, kMfmaLanes));
    Value waveRow = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, wave, cIdx(b, loc, wavesM)),
        cIdx(b, loc, dims.m));
    Value waveCol = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, wave, cIdx(b, loc, wavesM)),
        cIdx(b, loc, dims.n));
    int64_t pack = mfma.kPack, groupK = pack * dims.k;
    // Row of A / column of B this lane reads, and its first k in a group.
    Value aLane = arith::AddIOp::create(
        b, loc, waveRow,
        arith::RemUIOp::create(b, loc, lane, cIdx(b, loc, dims.m)));
    Value bLane = arith::AddIOp::create(
        b, loc, waveCol,
        arith::RemUIOp::create(b, loc, lane, cIdx(b, loc, dims.n)));
    Value aK = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, lane, cIdx(b, loc, dims.m)),
        cIdx(b, loc, laneElems * pack));
    Value bK = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, lane, cIdx(b, loc, dims.n)),
        cIdx(b, loc, laneElems * pack));

    int64_t numTiles = int64_t(tileOfOrigin.size());
    SmallVector<Value> accs(numTiles);
    for (int64_t g = 0; g < numTiles; ++g) {
      if (op.getClearAccum()) {
        accs[g] = arith::ConstantOp::create(
            b, loc, accType, DenseElementsAttr::get(accType, 0.0f));
        continue;
      }
      SmallVector<Value> elems;
      for (int64_t i = 0; i < regsPerTile; ++i)
        elems.push_back(kernel.loadRegister(b, loc, acc, regsPerTile * g + i));
      accs[g] = vector::FromElementsOp::create(b, loc, accType, elems);
    }
    const DeviceOpBuilder &device = deviceOps(op);

    SmallVector<int64_t> ms(mTiles.begin(), mTiles.end());
    SmallVector<int64_t> ns(nTiles.begin(), nTiles.end());
    for (int64_t k0 = 0; k0 < kDim; k0 += groupK) {
      SmallVector<Value> aOps, bOps;
      for (int64_t m0 : ms) {
        if (fragA) {
          SmallVector<Value> elems;
          for (int64_t j = 0; j < laneElems; ++j)
            elems.push_back(
                kernel.loadRegister(b, loc, *fragA, regsA[{m0, k0}][j]));
          aOps.push_back(vector::FromElementsOp::create(
              b, loc, VectorType::get({laneElems}, fragA->elementType),
              elems));
          continue;
        }
        Value m = arith::AddIOp::create(b, loc, aLane, cIdx(b, loc, m0));
        Value k = arith::AddIOp::create(b, loc, aK, cIdx(b, loc, k0));
        aOps.push_back(loadOperand(b, slotA, m, k, op.getTransposeA()));
      }
      for (int64_t n0 : ns) {
        Value n = arith::AddIOp::create(b, loc, bLane, cIdx(b, loc, n0));
        Value k = arith::AddIOp::create(b, loc, bK, cIdx(b, loc, k0));
        bOps.push_back(loadOperand(b, slotB, n, k, !op.getTransposeB()));
      }
      for (int64_t t = 0; t < pack; ++t)
        for (size_t mi = 0; mi < ms.size(); ++mi)
          for (size_t ni = 0; ni < ns.size(); ++ni) {
            // Serpentine order over n: consecutive instructions share an
            // operand.
            size_t nj = mi % 2 ? ns.size() - 1 - ni : ni;
            int64_t g = tileOfOrigin[{ms[mi], ns[nj]}];
            // C^T = B^T A^T: B's fragment is the instruction's A operand.
            Value bPart = operandOf(b, bOps[nj], t);
            Value aPart = operandOf(b, aOps[mi], t);
            accs[g] = device.mfma(b, loc, mfma.instruction, accType, bPart,
                                  aPart, accs[g]);
            if (!accs[g])
              return op.emitError() << "T.gemm: " << mfma.instruction
                                    << " is not an MFMA tilec can emit";
          }
    }
    for (int64_t g = 0; g < numTiles; ++g)
      for (int64_t i = 0; i < regsPerTile; ++i)
        kernel.storeRegister(
            b, loc, acc, regsPerTile * g + i,
            vector::ExtractOp::create(b, loc, accs[g], ArrayRef<int64_t>{i}));
    return success();
  }

  KernelLowering &kernel;
  tile::GemmOp op;
  Location loc;
  gemm::MfmaChoice mfma;
  MfmaDims dims{0, 0, 0};
  int64_t wavesM = 1, wavesN = 1, regsPerTile = 0;
  /// A / B elements a lane passes per instruction (mfmaLaneElements).
  int64_t laneElems = 4;
  std::set<int64_t> mTiles, nTiles;
  std::map<std::pair<int64_t, int64_t>, int64_t> tileOfOrigin;
  /// A in registers: per (m tile origin, k step), the registers a lane
  /// passes to the instruction (the first laneElems).
  std::map<std::pair<int64_t, int64_t>, std::array<int64_t, 4>> regsA;
};

} // namespace

LogicalResult simt::lowerMfmaGemm(KernelLowering &kernel, tile::GemmOp op) {
  OpBuilder b(op);
  if (failed(MfmaLowering(kernel, op).run(b)))
    return failure();
  op.erase();
  return success();
}
