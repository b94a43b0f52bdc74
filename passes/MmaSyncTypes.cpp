//===- MmaSyncTypes.cpp - Operand types of the mma.sync GEMM path ---------===//

#include "MmaSyncTypes.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace tilec {

std::optional<MMAElementType> gemm::mmaSyncElementType(Type type) {
  if (type.isF16())
    return MMAElementType::F16;
  if (type.isBF16())
    return MMAElementType::BF16;
  if (type.isF32())
    return MMAElementType::TF32;
  if (isa<Float8E4M3FNType>(type))
    return MMAElementType::F8E4M3;
  if (isa<Float8E5M2Type>(type))
    return MMAElementType::F8E5M2;
  // int8 (signed: the frontend takes T.int8 operands only).
  if (type.isInteger(8))
    return MMAElementType::I8;
  return std::nullopt;
}

MMAElementType gemm::mmaAccumulatorType(MMAElementType operand) {
  return operand == MMAElementType::I8 ? MMAElementType::I32
                                       : MMAElementType::F32;
}

Type gemm::accumulatorType(Type operand) {
  return operand.isInteger(8)
             ? Type(IntegerType::get(operand.getContext(), 32))
             : Type(Float32Type::get(operand.getContext()));
}

bool gemm::isAccumulatorType(Type operand, Type acc) {
  // float16 products may also sum in float16 (TileLang's accum_dtype
  // "float16"; mma.sync's f16 accumulator).
  return acc == accumulatorType(operand) || (operand.isF16() && acc.isF16());
}

const MMAInstruction *gemm::findMmaSync(const TargetInfo &target, Type a,
                                        Type b, Type c) {
  std::optional<MMAElementType> ta = mmaSyncElementType(a),
                                tb = mmaSyncElementType(b);
  if (!ta || !tb || (*ta == MMAElementType::I8) != (*tb == MMAElementType::I8))
    return nullptr;
  MMAElementType acc = c && c.isF16() ? MMAElementType::F16
                                      : gemm::mmaAccumulatorType(*ta);
  for (const MMAInstruction &instr : target.mmaInstructions())
    if (instr.kind == MMAKind::WarpSync && instr.m == 16 && instr.n == 8 &&
        instr.a == *ta && instr.b == *tb && instr.acc == acc)
      return &instr;
  return nullptr;
}

} // namespace tilec
