//===- PlanShared.cpp - tile-plan-shared: offsets in dynamic shared memory
//-===//
//
// Algorithm: per gpu.func kernel, walk its shared tile.allocs in program
// order and give each the next offset aligned to `alignment` bytes (a bump
// allocator: no reuse between buffers whose lifetimes do not overlap yet).
// The total, rounded up to the alignment, becomes the kernel's
// `tile.dynamic_shared_bytes` and the dynamic shared-memory size of every
// gpu.launch_func of the kernel. Deciding only: tile-lower-shared applies
// the offsets.
//
// One dynamic buffer rather than static workgroup attributions because
// the sm_80/sm_90a paths need more than the 48 KiB of static shared memory
// a block may have, and because the launch header can then report and
// raise the limit from a single number.
//
//===----------------------------------------------------------------------===//

#include "GemmLayouts.h"
#include "SIMTLayout.h"

#include "tilec/Dialect/TileOps.h"
#include "tilec/Passes/Passes.h"

#include "llvm/Support/Debug.h"
#include "llvm/Support/MathExtras.h"

#define DEBUG_TYPE "tile-plan-shared"

namespace tilec {
#define GEN_PASS_DEF_TILEPLANSHARED
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

int64_t bufferBytes(MemRefType type) {
  int64_t bits = type.getElementType().isIndex()
                     ? 64
                     : type.getElementType().getIntOrFloatBitWidth();
  return type.getNumElements() * std::max<int64_t>(1, (bits + 7) / 8);
}

struct TilePlanShared : tilec::impl::TilePlanSharedBase<TilePlanShared> {
  using TilePlanSharedBase::TilePlanSharedBase;

  void runOnOperation() override {
    if (alignment < 1 || !llvm::isPowerOf2_64(uint64_t(alignment))) {
      getOperation().emitError()
          << "alignment must be a power of two, not " << int64_t(alignment);
      return signalPassFailure();
    }
    SmallVector<gpu::GPUFuncOp> kernels;
    getOperation().walk([&](gpu::GPUFuncOp func) {
      if (func.isKernel())
        kernels.push_back(func);
    });
    if (kernels.empty())
      return;
    const TargetInfo *target = tile::requireTarget(getOperation());
    if (!target)
      return signalPassFailure();
    for (gpu::GPUFuncOp kernel : kernels)
      if (failed(plan(kernel, target->maxSharedMemoryPerBlock())))
        return signalPassFailure();
  }

  LogicalResult plan(gpu::GPUFuncOp kernel, int64_t maxBytes) {
    SmallVector<tile::AllocOp> buffers;
    kernel.walk([&](tile::AllocOp alloc) {
      if (tile::getMemorySpace(alloc.getType()) == tile::MemorySpace::shared)
        buffers.push_back(alloc);
    });
    OpBuilder b(kernel.getContext());
    // A buffer may ask for more alignment (`tile.align`: wgmma operands
    // start on a swizzle period); the members of a storage group
    // (tile-share-storage) share one offset, aligned for all of them, and
    // the bytes of the largest.
    auto alignOf = [&](tile::AllocOp alloc) {
      int64_t align = alignment;
      if (auto want = alloc->getAttrOfType<IntegerAttr>("tile.align"))
        align = std::max<int64_t>(align, want.getInt());
      return align;
    };
    llvm::DenseMap<int64_t, std::pair<int64_t, int64_t>> groups; // align, bytes
    for (tile::AllocOp alloc : buffers) {
      if (!alloc.getType().hasStaticShape())
        return alloc.emitError("shared buffers need a static shape");
      if (auto g = alloc->getAttrOfType<IntegerAttr>(gemm::kStorageGroupAttr)) {
        auto &[align, bytes] = groups[g.getInt()];
        align = std::max(align, alignOf(alloc));
        bytes = std::max(bytes, bufferBytes(alloc.getType()));
      }
    }
    llvm::DenseMap<int64_t, int64_t> groupOffset;
    int64_t offset = 0;
    for (tile::AllocOp alloc : buffers) {
      int64_t align = alignOf(alloc), bytes = bufferBytes(alloc.getType());
      auto g = alloc->getAttrOfType<IntegerAttr>(gemm::kStorageGroupAttr);
      if (g) {
        if (auto it = groupOffset.find(g.getInt()); it != groupOffset.end()) {
          alloc->setAttr("tile.shared_offset", b.getI64IntegerAttr(it->second));
          continue;
        }
        std::tie(align, bytes) = groups.lookup(g.getInt());
      }
      offset = int64_t(llvm::alignTo(uint64_t(offset), uint64_t(align)));
      alloc->setAttr("tile.shared_offset", b.getI64IntegerAttr(offset));
      if (g)
        groupOffset[g.getInt()] = offset;
      offset += bytes;
    }
    int64_t total =
        int64_t(llvm::alignTo(uint64_t(offset), uint64_t(alignment)));
    if (total > maxBytes) {
      InFlightDiagnostic diag = kernel.emitError()
                                << "kernel '" << kernel.getName() << "' needs "
                                << total
                                << " bytes of shared memory, more than the "
                                << maxBytes << " a block may use";
      for (tile::AllocOp alloc : buffers) {
        Diagnostic &note = diag.attachNote(alloc.getLoc());
        note << "`" << alloc.getName() << "`: " << bufferBytes(alloc.getType())
             << " bytes";
        if (auto stages = alloc->getAttrOfType<IntegerAttr>("tile.num_stages"))
          note << " (" << stages.getInt() << " pipeline stages of "
               << bufferBytes(alloc.getType()) / stages.getInt() << ")";
        if (auto g = alloc->getAttrOfType<IntegerAttr>(gemm::kStorageGroupAttr))
          note << " (storage group " << g.getInt()
               << ", shared with buffers whose lifetimes do not overlap)";
      }
      return failure();
    }
    kernel->setAttr("tile.dynamic_shared_bytes", b.getI64IntegerAttr(total));
    LLVM_DEBUG(llvm::dbgs() << kernel.getName() << ": " << total
                            << " bytes of shared memory\n");

    // Launches of this kernel get the size too.
    auto gpuModule = kernel->getParentOfType<gpu::GPUModuleOp>();
    Operation *top = gpuModule ? gpuModule->getParentOp() : nullptr;
    if (!top)
      return success();
    top->walk([&](gpu::LaunchFuncOp launch) {
      if (launch.getKernelModuleName() != gpuModule.getNameAttr() ||
          launch.getKernelName() != kernel.getNameAttr())
        return;
      b.setInsertionPoint(launch);
      Value bytes = arith::ConstantIntOp::create(b, launch.getLoc(),
                                                 b.getI32Type(), total);
      launch.getDynamicSharedMemorySizeMutable().assign(bytes);
    });
    return success();
  }
};

} // namespace
