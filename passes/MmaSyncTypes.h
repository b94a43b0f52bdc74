//===- MmaSyncTypes.h - Operand types of the mma.sync GEMM path -*- C++ -*-===//
//
// Which element types T.gemm takes on the mma.sync path and which table
// instruction each pair selects: f16 / bf16 (m16n8k16), f32 read as tf32
// (m16n8k8, as TileLang does for float32 operands), the OCP 8-bit floats
// e4m3 / e5m2 in any pairing (m16n8k32, sm_89+), int8 (m16n8k32 s8).
// The floats accumulate in f32 (f16 may in f16 too), int8 in s32, all
// with the same 16x8 accumulator fragment (f16 sums two to a register); the operand fragments are MmaLayouts.h's
// mmaSyncOperands(bits).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_PASSES_MMASYNCTYPES_H
#define TILEC_PASSES_MMASYNCTYPES_H

#include "tilec/Target/TargetInfo.h"

#include "mlir/IR/Types.h"

#include <optional>

namespace tilec::gemm {

/// The table's name for an MLIR operand type of mma.sync (f32 -> TF32),
/// or nullopt for a type the path does not take.
std::optional<MMAElementType> mmaSyncElementType(mlir::Type type);

/// Whether `type` is an operand type of some mma.sync instruction here.
inline bool isMmaSyncOperandType(mlir::Type type) {
  return mmaSyncElementType(type).has_value();
}

/// The accumulator type of products of `operand`: I32 for I8, else F32.
MMAElementType mmaAccumulatorType(MMAElementType operand);

/// The same for an MLIR operand type: i32 for i8, else f32.
mlir::Type accumulatorType(mlir::Type operand);

/// Whether products of `operand` may accumulate in `acc`: their
/// accumulatorType, or float16 for float16 operands.
bool isAccumulatorType(mlir::Type operand, mlir::Type acc);

/// The chip's mma.sync m16n8kK for A of type `a` and B of type `b` with
/// accumulator `c` (null: their mmaAccumulatorType), from its TargetInfo
/// table, or null.
const MMAInstruction *findMmaSync(const TargetInfo &target, mlir::Type a,
                                  mlir::Type b, mlir::Type c = nullptr);

} // namespace tilec::gemm

#endif // TILEC_PASSES_MMASYNCTYPES_H
