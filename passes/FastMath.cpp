//===- FastMath.cpp - tile-fast-math: approximate device float math -------===//
//
// Algorithm: one walk over the pass's op; every op implementing
// ArithFastMathInterface inside a tile.kernel or gpu.func gets the flags
// `arcp contract afn` added to its own: approximate division and library
// functions and contraction, what nvcc's --use_fast_math means (less its
// flush to zero). Not `reassoc` (LLVM would undo the FMA form kernels write,
// x * s - m * s, into a subtract and a multiply) and not `nnan`/`ninf`
// (attention masks are -inf by design, and exp2(-inf) must stay 0). The flag
// lives on each op rather than in a module-wide switch because that is where
// MLIR's lowerings look: the libdevice patterns pick __nv_fast_* per op
// (`afn`), arith-to-llvm copies the flags onto each LLVM instruction, and LLVM
// 22's NVPTX backend chooses div.approx per instruction (`afn`), no longer from
// a function attribute.
//
// The pipeline runs this pass twice: before the SIMT lowering, so every
// pass sees the flags on the ops the user wrote (and clones keep them), and
// after it, for the float ops the lowering creates (the combiners of
// shuffle reductions, the truncations of fragment stores, ...).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileOps.h"
#include "tilec/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-fast-math"

namespace tilec {
#define GEN_PASS_DEF_TILEFASTMATH
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

/// Whether `op` runs on the device: it sits in a kernel body, before or
/// after outlining. gpu.funcs that are not kernels are device functions.
bool isOnDevice(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (isa<tilec::tile::KernelOp, gpu::GPUFuncOp>(parent))
      return true;
  return false;
}

struct TileFastMath : tilec::impl::TileFastMathBase<TileFastMath> {
  using TileFastMathBase::TileFastMathBase;

  void runOnOperation() override {
    constexpr arith::FastMathFlags wanted = arith::FastMathFlags::arcp |
                                            arith::FastMathFlags::contract |
                                            arith::FastMathFlags::afn;
    unsigned changed = 0;
    getOperation()->walk([&](arith::ArithFastMathInterface op) {
      arith::FastMathFlags old = arith::FastMathFlags::none;
      if (arith::FastMathFlagsAttr attr = op.getFastMathFlagsAttr())
        old = attr.getValue();
      if ((old & wanted) == wanted || !isOnDevice(op))
        return;
      op->setAttr(op.getFastMathAttrName(),
                  arith::FastMathFlagsAttr::get(&getContext(), old | wanted));
      ++changed;
    });
    // The maxnum / minnum intrinsics tile-lower-simt makes of arith's.
    constexpr LLVM::FastmathFlags llvmWanted = LLVM::FastmathFlags::arcp |
                                               LLVM::FastmathFlags::contract |
                                               LLVM::FastmathFlags::afn;
    getOperation()->walk([&](LLVM::FastmathFlagsInterface op) {
      LLVM::FastmathFlags old = LLVM::FastmathFlags::none;
      if (LLVM::FastmathFlagsAttr attr = op.getFastmathAttr())
        old = attr.getValue();
      if ((old & llvmWanted) == llvmWanted || !isOnDevice(op))
        return;
      op->setAttr(op.getFastmathAttrName(),
                  LLVM::FastmathFlagsAttr::get(&getContext(), old | llvmWanted));
      ++changed;
    });
    LLVM_DEBUG(llvm::dbgs()
               << "tile-fast-math: marked " << changed << " ops\n");
    if (changed == 0)
      markAllAnalysesPreserved();
  }
};

} // namespace
