//===- UninitializedReads.h - tile-uninitialized-reads ----------*- C++ -*-===//
//
// Declared here rather than in Passes.td: a warning-only analysis that no
// other pass depends on (passes/UninitializedReads.cpp says what it does).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PASSES_UNINITIALIZEDREADS_H
#define TILEC_PASSES_UNINITIALIZEDREADS_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace tilec {
/// Warns where a kernel reads a shared buffer before anything writes it.
std::unique_ptr<mlir::Pass> createTileUninitializedReads();
} // namespace tilec

#endif // TILEC_PASSES_UNINITIALIZEDREADS_H
