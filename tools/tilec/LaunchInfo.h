//===- LaunchInfo.h - What the launch header needs, read from the IR ------===//
//
// After lowering, every decision the header depends on is an attribute:
// parameter names and shapes on the prim_func's arguments, and on each
// outlined gpu.func its threads, grid expressions and dynamic shared memory.
// This reads them into the plain description targets/header renders.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TOOLS_LAUNCHINFO_H
#define TILEC_TOOLS_LAUNCHINFO_H

#include "tilec/Target/Codegen.h"
#include "tilec/Target/Header.h"

#include "mlir/IR/BuiltinOps.h"

namespace tilec {

/// Fills `unit.functions` from the lowered module; resources (from ptxas)
/// are attached to the kernels they name. Reports errors on the module.
mlir::LogicalResult
collectLaunchInfo(mlir::ModuleOp module,
                  const std::vector<KernelResources> &resources,
                  header::Unit &unit);

} // namespace tilec

#endif // TILEC_TOOLS_LAUNCHINFO_H
