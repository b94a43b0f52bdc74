//===- StepIndices.h - tile-lower-simt: indices of a strided loop's steps -===//
//
// Index questions the lowerings of strided T.Parallel loops ask of one
// iteration's body (GuardedSteps.cpp, RealignedLoops.cpp): whether an index
// moves with the loop's variable, and whether it is that variable plus terms
// that do not. Defined in GuardedSteps.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PASSES_STEPINDICES_H
#define TILEC_PASSES_STEPINDICES_H

#include "mlir/IR/Value.h"

namespace tilec::simt {

/// Whether `value` depends on `iv` (through the ops that compute it).
bool dependsOn(mlir::Value value, mlir::Value iv);

/// Whether `value` is `iv` + (terms independent of `iv`).
bool stepsWith(mlir::Value value, mlir::Value iv);

} // namespace tilec::simt

#endif // TILEC_PASSES_STEPINDICES_H
