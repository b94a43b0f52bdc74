//===- EmitLayouts.h - tilec --emit=layouts ---------------------*- C++ -*-===//
#ifndef TILEC_TOOLS_EMITLAYOUTS_H
#define TILEC_TOOLS_EMITLAYOUTS_H

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace tilec {

/// Runs layout inference (and the pipeline planner, for ring depths) on a
/// tile-dialect module and draws every fragment's thread/register map and
/// every shared buffer's banks: one SVG document, or an HTML page with one
/// SVG per buffer. Errors are reported on the module's ops.
mlir::FailureOr<std::string> renderLayouts(mlir::ModuleOp module,
                                           const std::string &chip, bool html);

} // namespace tilec

#endif // TILEC_TOOLS_EMITLAYOUTS_H
