//===- GuardedSteps.h - tile-lower-simt: per-element bounds checks -*- C++ -*-//
//
// The steps of a strided T.Parallel loop of one element per thread and step
// under bounds checks, every step's loads first (GuardedSteps.cpp). Only
// LowerParallel.cpp uses it.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PASSES_GUARDEDSTEPS_H
#define TILEC_PASSES_GUARDEDSTEPS_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace tilec::simt {

/// One step for emitGuardedSteps: the iteration's coordinates and, for a
/// partial last step, whether it is inside the loop.
struct GuardedStep {
  llvm::SmallVector<mlir::Value> coords;
  mlir::Value inside;
  /// How far the step's coordinates are from those of step `base` (an
  /// earlier step, or itself), along the first dimension only (the others
  /// equal); -1 when they are not so.
  int64_t shift = -1;
  size_t base = 0;
};

/// Whether the body of a strided loop is bounds checks `guards` (from
/// hoistableGuards) over loads and arithmetic followed by stores, every
/// other top-level op free of memory effects.
bool guardedStepsFit(mlir::Block *body, llvm::ArrayRef<mlir::scf::IfOp> guards);

/// Emits the steps of such a loop (induction variables `ivs`) whose
/// iterations end in their stores (trailingStores): every step's loads and
/// arithmetic under its checks first, then every step's stores.
void emitGuardedSteps(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::Block *body, llvm::ArrayRef<mlir::scf::IfOp> guards,
                      mlir::ValueRange ivs, llvm::ArrayRef<GuardedStep> steps);

} // namespace tilec::simt

#endif // TILEC_PASSES_GUARDEDSTEPS_H
