//===- Passes.h - tilec's tile-level passes ---------------------*- C++ -*-===//
//
// Declares the create functions and options of every pass in Passes.td,
// `registerTilePasses()`, which makes them available to tilec-opt and to
// textual pipelines, and the pipeline that lowers tile IR to the GPU-level
// module the code emitters in targets/ accept.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_PASSES_PASSES_H
#define TILEC_PASSES_PASSES_H

#include "tilec/Dialect/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <memory>
#include <string>

namespace tilec {

// Declares, per pass `TileFoo`: `struct TileFooOptions` (when the pass has
// options), `std::unique_ptr<mlir::Pass> createTileFoo()` and
// `createTileFoo(const TileFooOptions &)`.
#define GEN_PASS_DECL
#include "tilec/Passes/Passes.h.inc"

// Defines `registerTilePasses()` and `registerTileStripDebug()` etc.
#define GEN_PASS_REGISTRATION
#include "tilec/Passes/Passes.h.inc"

/// What the tile -> GPU pipeline needs to know about the target.
/// The chip is not an option: the passes read it from the module's
/// `#tile.target` (set by the driver, or by tile-set-target).
struct TileToGPUOptions {
  /// Drop tile.print and tile.device_assert (release builds).
  bool stripDebug = false;
  /// Mark every float op of the kernels fastmath<fast> (tile-fast-math):
  /// approximate division and exp/log/sin, no NaN/Inf guarantees.
  bool fastMath = false;
  /// Width of `index` when the module is lowered to LLVM (CodegenOptions'
  /// indexBitwidth; the tensor-core lowering needs it).
  unsigned indexBitwidth = 32;
};

/// Appends to `pm` (anchored on the builtin module) the passes that turn a
/// module of traced prim_funcs (tile dialect) into a `gpu.container_module`
/// whose `gpu.module @tilec_kernels` holds one `gpu.func` kernel per
/// `tile.kernel`, using only upstream gpu/arith/math/memref/scf/cf/vector
/// ops: [tile-strip-debug], [tile-fast-math], tile-decompose-scan,
/// tile-infer-layouts, tile-plan-pipeline, tile-insert-barriers,
/// tile-outline-kernels, tile-lower-simt, tile-plan-shared,
/// tile-lower-shared, [tile-fast-math] and the upstream cleanups
/// (canonicalize, cse, integer-range folding). The module must carry a
/// `#tile.target`; the passes that need it fail, located, without one.
void buildTileToGPUPipeline(mlir::OpPassManager &pm,
                            const TileToGPUOptions &opts);

/// Registers the pipeline as `tile-to-gpu` (options `strip-debug`,
/// `fast-math`) for tilec-opt.
void registerTileToGPUPipeline();

} // namespace tilec

#endif // TILEC_PASSES_PASSES_H
