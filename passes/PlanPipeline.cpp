//===- PlanPipeline.cpp - tile-plan-pipeline: schedule T.Pipelined loops --===//
//
// The pass wrapper of gemm::planPipelines (PipelineLoops.cpp): records, per
// T.Pipelined loop whose body it can pipeline, the stage and order of each
// op and the stage count of each shared buffer that becomes a ring.
// tile-lower-simt applies the plan. Runs after tile-infer-layouts, which
// decides which shared buffers are T.gemm operands.
//
//===----------------------------------------------------------------------===//

#include "GemmLayouts.h"

#include "tilec/Passes/Passes.h"

namespace tilec {
#define GEN_PASS_DEF_TILEPLANPIPELINE
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {
struct TilePlanPipeline : tilec::impl::TilePlanPipelineBase<TilePlanPipeline> {
  using TilePlanPipelineBase::TilePlanPipelineBase;
  void runOnOperation() override {
    bool any = false;
    getOperation()->walk([&](tile::PipelinedOp) { any = true; });
    if (!any)
      return;
    const TargetInfo *target = tile::requireTarget(getOperation());
    if (!target)
      return signalPassFailure();
    if (failed(gemm::planPipelines(getOperation(),
                                   target->maxSharedMemoryPerBlock())))
      signalPassFailure();
  }
};
} // namespace
