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
  return std::nullopt;
}

const MMAInstruction *gemm::findMmaSync(const TargetInfo &target, Type a,
                                        Type b) {
  std::optional<MMAElementType> ta = mmaSyncElementType(a),
                                tb = mmaSyncElementType(b);
  if (!ta || !tb)
    return nullptr;
  for (const MMAInstruction &instr : target.mmaInstructions())
    if (instr.kind == MMAKind::WarpSync && instr.m == 16 && instr.n == 8 &&
        instr.a == *ta && instr.b == *tb && instr.acc == MMAElementType::F32)
      return &instr;
  return nullptr;
}

} // namespace tilec
