//===- LowerFp8Casts.cpp - tile-lower-fp8-casts: fp8 conversions as cvt ---===//
//
// LLVM IR has no 8-bit float type: MLIR's LLVM conversion turns f8 memory
// into i8 but has no lowering for the conversions themselves. On NVIDIA
// chips with OCP fp8 (sm_89+) each is one cvt of a pair, used on one lane:
// truncf x -> the low byte of cvt.rn.satfinite.e4m3x2.f32(0, x) (the
// second operand lands in the low half, as the PTX ISA says); extf y ->
// element 0 of cvt.rn.f16x2.e4m3x2(zext y), exact in f16, then widened
// or narrowed exactly (every e4m3 / e5m2 value is an f16, bf16 and f32
// value). Vectors are converted element by element. The cvts come from the
// module's DeviceOpBuilder (packOcpFp8x2, unpackOcpFp8x2); a vendor whose
// builder has no OCP fp8 conversions gets a located error.
//
//===----------------------------------------------------------------------===//

#include "tilec/Passes/Passes.h"
#include "tilec/Target/DeviceOpBuilder.h"

namespace tilec {
#define GEN_PASS_DEF_TILELOWERFP8CASTS
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

bool isOcpFp8(Type type) {
  Type elem = getElementTypeOrSelf(type);
  return isa<Float8E4M3FNType, Float8E5M2Type>(elem);
}

/// One scalar conversion at `b`.
Value convertScalar(const tilec::DeviceOpBuilder &device, OpBuilder &b,
                    Location loc, Value in, Type to) {
  Type i8 = b.getI8Type(), i16 = b.getI16Type(), f32 = b.getF32Type();
  if (isOcpFp8(to)) {
    Value x = in;
    if (!in.getType().isF32())
      x = arith::ExtFOp::create(b, loc, f32, in);
    Value zero = arith::ConstantOp::create(b, loc, f32, b.getZeroAttr(f32));
    Value pair = device.packOcpFp8x2(b, loc, zero, x, to);
    Value low = arith::TruncIOp::create(b, loc, i8, pair);
    return arith::BitcastOp::create(b, loc, to, low);
  }
  Value bits = arith::BitcastOp::create(b, loc, i8, in);
  Value wide = arith::ExtUIOp::create(b, loc, i16, bits);
  Value pair = device.unpackOcpFp8x2(b, loc, wide, in.getType());
  Value h = vector::ExtractOp::create(b, loc, pair, ArrayRef<int64_t>{0});
  if (to.isF16())
    return h;
  Value f = arith::ExtFOp::create(b, loc, f32, h);
  if (to.isF32())
    return f;
  if (to.getIntOrFloatBitWidth() > 32)
    return arith::ExtFOp::create(b, loc, to, f);
  return arith::TruncFOp::create(b, loc, to, f); // bf16: exact
}

Value convert(const tilec::DeviceOpBuilder &device, OpBuilder &b, Location loc,
              Value in, Type to) {
  auto vec = dyn_cast<VectorType>(to);
  if (!vec)
    return convertScalar(device, b, loc, in, to);
  SmallVector<Value> elems;
  SmallVector<int64_t> shape(vec.getShape());
  int64_t n = vec.getNumElements();
  auto flatIn =
      VectorType::get({n}, cast<VectorType>(in.getType()).getElementType());
  Value flat = vector::ShapeCastOp::create(b, loc, flatIn, in);
  for (int64_t i = 0; i < n; ++i) {
    Value e = vector::ExtractOp::create(b, loc, flat, ArrayRef<int64_t>{i});
    elems.push_back(convertScalar(device, b, loc, e, vec.getElementType()));
  }
  Value out = vector::FromElementsOp::create(
      b, loc, VectorType::get({n}, vec.getElementType()), elems);
  return vector::ShapeCastOp::create(b, loc, vec, out);
}

struct TileLowerFp8Casts
    : tilec::impl::TileLowerFp8CastsBase<TileLowerFp8Casts> {
  void runOnOperation() override {
    SmallVector<Operation *> casts;
    getOperation()->walk([&](Operation *op) {
      if ((isa<arith::TruncFOp>(op) && isOcpFp8(op->getResult(0).getType())) ||
          (isa<arith::ExtFOp>(op) && isOcpFp8(op->getOperand(0).getType())))
        casts.push_back(op);
    });
    if (casts.empty())
      return;
    tilec::tile::TargetAttr target = tilec::tile::lookupTarget(getOperation());
    const tilec::TargetInfo *info =
        target ? tilec::TargetInfo::lookup(target.getChip()) : nullptr;
    if (!info)
      return;
    // Without this error the conversion reached LLVM IR translation, which
    // fails with no location.
    const tilec::DeviceOpBuilder &device = tilec::DeviceOpBuilder::get(*info);
    if (!device.hasOcpFp8Conversions()) {
      casts.front()->emitError()
          << "converting to or from float8 (OCP e4m3 / e5m2) is not "
             "supported on "
          << device.vendorName() << " chips yet (" << info->chip() << ")";
      return signalPassFailure();
    }
    // The chips whose tensor cores take OCP fp8 are the ones with its cvt.
    if (!info->hasMMA(tilec::MMAElementType::F8E4M3,
                      tilec::MMAElementType::F32)) {
      casts.front()->emitError()
          << "converting to or from float8 needs a chip with fp8 "
             "conversions (sm_89 or newer); "
          << info->chip() << " has none";
      return signalPassFailure();
    }
    for (Operation *op : casts) {
      OpBuilder b(op);
      Value out = convert(device, b, op->getLoc(), op->getOperand(0),
                          op->getResult(0).getType());
      op->getResult(0).replaceAllUsesWith(out);
      op->erase();
    }
  }
};

} // namespace
