//===- Pipeline.cpp - The tile -> GPU pipeline ----------------------------===//
//
// Strings tilec's SIMT passes together with the upstream cleanups, with
// the target facts (warp size, shared-memory limit, whether a device trap
// exists) taken from TargetInfo so no pass names a vendor:
//
//   [tile-strip-debug] -> [tile-fast-math] -> tile-decompose-scan
//   -> tile-infer-layouts -> tile-plan-pipeline -> tile-insert-barriers
//   -> tile-outline-kernels
//   -> tile-lower-simt -> tile-plan-shared -> tile-lower-shared
//   -> [tile-fast-math] -> canonicalize, cse
//   -> arith-int-range-optimizations (per gpu.module: folds the bounds
//      checks that thread/block ranges settle, e.g. the tail guards of a
//      full block) -> canonicalize, cse
//
//===----------------------------------------------------------------------===//

#include "tilec/Passes/Passes.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

LogicalResult tilec::buildTileToGPUPipeline(OpPassManager &pm,
                                            const TileToGPUOptions &opts) {
  std::unique_ptr<TargetInfo> target = TargetInfo::get(opts.chip);
  if (!target)
    return failure();
  if (opts.stripDebug)
    pm.addPass(createTileStripDebug());
  // Early, so that every pass sees the flags on the ops the user wrote and
  // the clones it makes of them keep them.
  if (opts.fastMath)
    pm.addPass(createTileFastMath());
  TileInferLayoutsOptions infer;
  infer.warpSize = opts.warpSize ? opts.warpSize : target->warpSize();
  infer.chip = opts.chip;
  pm.addPass(createTileDecomposeScan());
  pm.addPass(createTileInferLayouts(infer));
  TilePlanPipelineOptions pipeline;
  pipeline.maxSharedBytes = target->maxSharedMemoryPerBlock();
  pm.addPass(createTilePlanPipeline(pipeline));
  pm.addPass(createTileInsertBarriers());
  pm.addPass(createTileOutlineKernels());
  TileLowerSIMTOptions lower;
  // AMD has no __assertfail: asserts print and the kernel goes on.
  lower.assertLowering = target->isNVIDIA() ? "assert" : "printf";
  lower.indexBitwidth = opts.indexBitwidth;
  lower.chip = opts.chip;
  pm.addPass(createTileLowerSIMT(lower));
  TilePlanSharedOptions plan;
  plan.maxBytes = target->maxSharedMemoryPerBlock();
  pm.addPass(createTilePlanShared(plan));
  pm.addPass(createTileLowerShared());
  // Again for the float ops the lowering created (reduction combiners,
  // expansions), before the cleanups fold and merge ops by their flags.
  if (opts.fastMath)
    pm.addPass(createTileFastMath());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(arith::createIntRangeOptimizationsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  return success();
}

namespace {
struct PipelineOptions : PassPipelineOptions<PipelineOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("Target chip"),
                           llvm::cl::init("sm_90a")};
  Option<unsigned> warpSize{*this, "warp-size",
                            llvm::cl::desc("Threads per warp (0: the chip's)"),
                            llvm::cl::init(0)};
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
        opts.chip = options.chip;
        opts.warpSize = options.warpSize;
        opts.stripDebug = options.stripDebug;
        opts.fastMath = options.fastMath;
        // An unknown chip leaves the pipeline empty; report it loudly.
        if (failed(buildTileToGPUPipeline(pm, opts)))
          llvm::errs() << "tile-to-gpu: unknown chip '" << opts.chip << "'\n";
      });
}
