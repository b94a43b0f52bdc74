//===- Pipeline.cpp - The tile -> GPU pipeline ----------------------------===//
//
// Strings tilec's SIMT passes together with the upstream cleanups. The
// pipeline is the same for every chip: each pass reads the target facts
// (warp size, shared-memory limit, which instructions exist) from the
// module's `#tile.target` through TargetInfo, so no pass names a vendor and
// no pass takes a chip option:
//
//   tile-uninitialized-reads (warnings only)
//   -> tile-guard-global-accesses
//   -> [tile-strip-debug] -> [tile-fast-math] -> tile-decompose-scan
//   -> tile-infer-layouts -> tile-plan-pipeline -> tile-plan-warp-specialize
//   -> tile-insert-barriers
//   -> tile-outline-kernels
//   -> tile-lower-simt -> tile-plan-shared -> tile-lower-shared
//   -> [tile-fast-math] -> canonicalize, cse
//   -> arith-int-range-optimizations (per gpu.module: folds the bounds
//      checks that thread/block ranges settle, e.g. the tail guards of a
//      full block) -> canonicalize, cse
//
//===----------------------------------------------------------------------===//

#include "tilec/Passes/Passes.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void tilec::buildTileToGPUPipeline(OpPassManager &pm,
                                   const TileToGPUOptions &opts) {
  // First, on the ops as written: the order of the source.
  pm.addPass(createTileUninitializedReads());
  // TileLang's bounds-checked element accesses to global tensors, on the
  // ops as written: the lowering then sees them as guards a user wrote.
  pm.addPass(createTileGuardGlobalAccesses());
  if (opts.stripDebug)
    pm.addPass(createTileStripDebug());
  // Early, so that every pass sees the flags on the ops the user wrote and
  // the clones it makes of them keep them.
  if (opts.fastMath)
    pm.addPass(createTileFastMath());
  pm.addPass(createTileDecomposeScan());
  pm.addPass(createTileInferLayouts());
  pm.addPass(createTileShareStorage());
  pm.addPass(createTilePlanPipeline());
  pm.addPass(createTilePlanWarpSpecialize());
  pm.addPass(createTileInsertBarriers());
  pm.addPass(createTileOutlineKernels());
  TileLowerSIMTOptions lower;
  lower.indexBitwidth = opts.indexBitwidth;
  pm.addPass(createTileLowerSIMT(lower));
  pm.addPass(createTilePlanShared());
  pm.addPass(createTileLowerShared());
  pm.addPass(createTileLowerFp8Casts());
  // Again for the float ops the lowering created (reduction combiners,
  // expansions), before the cleanups fold and merge ops by their flags.
  if (opts.fastMath)
    pm.addPass(createTileFastMath());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(arith::createIntRangeOptimizationsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

namespace {
struct PipelineOptions : PassPipelineOptions<PipelineOptions> {
  Option<bool> stripDebug{*this, "strip-debug",
                          llvm::cl::desc("Drop tile.print/device_assert"),
                          llvm::cl::init(false)};
  Option<bool> fastMath{
      *this, "fast-math",
      llvm::cl::desc("Mark device float math fastmath<fast> (tile-fast-math)"),
      llvm::cl::init(false)};
};
} // namespace

void tilec::registerTileToGPUPipeline() {
  PassPipelineRegistration<PipelineOptions>(
      "tile-to-gpu", "Lower tile IR to a gpu.container_module (SIMT)",
      [](OpPassManager &pm, const PipelineOptions &options) {
        TileToGPUOptions opts;
        opts.stripDebug = options.stripDebug;
        opts.fastMath = options.fastMath;
        buildTileToGPUPipeline(pm, opts);
      });
}
