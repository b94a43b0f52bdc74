//===- ROCDLOpBuilder.cpp - The AMD operations of tilec's decisions -------===//
//
// DeviceOpBuilder for AMD chips. CDNA has no named barriers, cp.async,
// mbarriers, TMA or register reallocation (TargetInfo says so, and the
// passes do not ask for them here); what it has of the builders' list is
// the MFMA family. A `#tile.mma` decision names its MFMA by op name (the
// TargetInfo table's), and each name maps to its typed ROCDL op below.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/DeviceOpBuilder.h"
#include "tilec/Target/InitDeviceOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace tilec;

namespace {

using MfmaCreate = Value (*)(OpBuilder &, Location, Type, ValueRange);

template <typename OpTy>
Value createMfma(OpBuilder &b, Location loc, Type accType, ValueRange args) {
  return OpTy::create(b, loc, accType, args).getResult();
}

/// The typed ROCDL op of each MFMA the TargetInfo tables of gfx90a and
/// gfx942 list; null for another name.
MfmaCreate mfmaCreator(StringRef instruction) {
  return llvm::StringSwitch<MfmaCreate>(instruction)
#define MFMA(NAME, OP) .Case("rocdl.mfma." NAME, &createMfma<ROCDL::OP>)
      MFMA("f32.32x32x8f16", mfma_f32_32x32x8f16)
      MFMA("f32.16x16x16f16", mfma_f32_16x16x16f16)
      MFMA("f32.32x32x8bf16.1k", mfma_f32_32x32x8bf16_1k)
      MFMA("f32.16x16x16bf16.1k", mfma_f32_16x16x16bf16_1k)
      MFMA("f32.32x32x2f32", mfma_f32_32x32x2f32)
      MFMA("f32.16x16x4f32", mfma_f32_16x16x4f32)
      MFMA("f32.32x32x4.xf32", mfma_f32_32x32x4_xf32)
      MFMA("f32.16x16x8.xf32", mfma_f32_16x16x8_xf32)
      MFMA("i32.32x32x8i8", mfma_i32_32x32x8i8)
      MFMA("i32.16x16x16i8", mfma_i32_16x16x16i8)
      MFMA("i32.32x32x16.i8", mfma_i32_32x32x16_i8)
      MFMA("i32.16x16x32.i8", mfma_i32_16x16x32_i8)
      MFMA("f32.32x32x16.fp8.fp8", mfma_f32_32x32x16_fp8_fp8)
      MFMA("f32.32x32x16.fp8.bf8", mfma_f32_32x32x16_fp8_bf8)
      MFMA("f32.32x32x16.bf8.fp8", mfma_f32_32x32x16_bf8_fp8)
      MFMA("f32.32x32x16.bf8.bf8", mfma_f32_32x32x16_bf8_bf8)
      MFMA("f32.16x16x32.fp8.fp8", mfma_f32_16x16x32_fp8_fp8)
      MFMA("f32.16x16x32.fp8.bf8", mfma_f32_16x16x32_fp8_bf8)
      MFMA("f32.16x16x32.bf8.fp8", mfma_f32_16x16x32_bf8_fp8)
      MFMA("f32.16x16x32.bf8.bf8", mfma_f32_16x16x32_bf8_bf8)
      MFMA("f64.16x16x4f64", mfma_f64_16x16x4f64)
#undef MFMA
      .Default(nullptr);
}

class ROCDLOpBuilder final : public DeviceOpBuilder {
public:
  StringRef vendorName() const override { return "AMD"; }

  Value mfma(OpBuilder &b, Location loc, StringRef instruction, Type accType,
             Value a, Value bOperand, Value acc) const override {
    MfmaCreate create = mfmaCreator(instruction);
    if (!create)
      return Value();
    // cbsz, abid, blgp: no broadcast between blocks or lanes.
    Value zero = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
    return create(b, loc, accType, ValueRange{a, bOperand, acc, zero, zero,
                                              zero});
  }
};

} // namespace

void tilec::registerAMDGPUDeviceOps() {
  DeviceOpBuilder::registerBuilder(Vendor::AMD,
                                   std::make_unique<ROCDLOpBuilder>());
}
