//===- TileDialect.h - The tile dialect, attributes and enums ---*- C++ -*-===//
//-*-===//
//
// Declares the `tile` dialect (TileLang-level IR), its enums (memory space,
// GEMM warp policy, reduction/scan/loop kinds, swizzle order) and their
// attributes, plus small queries on tile buffers that every pass needs.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_DIALECT_TILEDIALECT_H
#define TILEC_DIALECT_TILEDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

#include "tilec/Layout/LinearLayout.h"
#include "tilec/Target/TargetInfo.h"

#include <optional>

#include "tilec/Dialect/TileDialect.h.inc"
#include "tilec/Dialect/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tilec/Dialect/TileAttrs.h.inc"

namespace tilec::tile {

/// The on-chip memory space of `type`, or nullopt for a global tensor (a
/// memref without memory space) and for foreign memory spaces.
std::optional<MemorySpace> getMemorySpace(mlir::MemRefType type);

/// True if `type` is a global tensor: a memref with no memory space.
inline bool isGlobal(mlir::MemRefType type) { return !type.getMemorySpace(); }

/// The module attribute that holds the #tile.target.
inline constexpr llvm::StringLiteral kTargetAttrName = "tile.target";

/// A kernel function's promise that it runs one block per multiprocessor
/// (an i32 of at least 1: at least that many blocks fit at once), which a
/// target may pass on to its assembler (NVPTX: `.minnctapersm`, so that
/// ptxas knows each thread's registers at entry and honours setmaxnreg).
inline constexpr llvm::StringLiteral kMinBlocksPerMultiprocessorAttrName =
    "tile.min_blocks_per_multiprocessor";

/// The `tile.target` of `op` or of its nearest ancestor that has one (the
/// builtin module); null if there is none.
TargetAttr lookupTarget(mlir::Operation *op);

/// The chip `op` is compiled for; when no enclosing module names one,
/// emits an error on `op` (saying how to set it) and returns null.
const TargetInfo *requireTarget(mlir::Operation *op);

/// The memref type of a tile buffer of `shape` x `elementType` in `space`.
mlir::MemRefType getBufferType(llvm::ArrayRef<int64_t> shape,
                               mlir::Type elementType, MemorySpace space);

} // namespace tilec::tile

#endif // TILEC_DIALECT_TILEDIALECT_H
