//===- MLIRGen.h - From the AST to the tile dialect -------------*- C++ -*-===//
//
// Elaboration: binds each kernel factory's compile-time parameters, runs the
// factory body at compile time and traces every @T.prim_func it defines into
// a func.func of tile-dialect ops. Semantic checks (names, arity, keywords,
// dtypes, shapes) happen here, each reported at the user's source position.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_MLIRGEN_MLIRGEN_H
#define TILEC_MLIRGEN_MLIRGEN_H

#include "tilec/Support/IndexWidth.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>
#include <utility>
#include <vector>

namespace tilec {
class DiagnosticEngine;
namespace ast {
class Module;
} // namespace ast

/// One instantiation of a kernel factory.
struct InstanceSpec {
  std::string factory; // empty: every factory that has the parameters
  std::string name;    // empty: the factory's name (suffixed if repeated)
  /// name -> Python literal text (as given to -D).
  std::vector<std::pair<std::string, std::string>> params;
};

struct MLIRGenOptions {
  /// `-D` bindings, applied to every instance.
  std::vector<std::pair<std::string, std::string>> defines;
  /// From `--instances`; empty means one instance of each factory.
  std::vector<InstanceSpec> instances;
  std::string target = "sm_90a";
  /// `-findex-bits=`: the width of the kernels' index arithmetic, proved per
  /// kernel under Auto (tilec/Support/IndexWidth.h).
  IndexBits indexBits = IndexBits::Auto;
};

/// Loads the dialects MLIRGen emits into `context`.
void loadMLIRGenDialects(mlir::MLIRContext &context);

/// Builds the module, or returns null after reporting errors through `diag`.
mlir::OwningOpRef<mlir::ModuleOp> elaborate(const ast::Module &module,
                                            mlir::MLIRContext &context,
                                            DiagnosticEngine &diag,
                                            const MLIRGenOptions &options);

/// Parses an `--instances` JSON file's text: a list whose items are either
/// flat objects of parameter values or {"factory":..., "name":...,
/// "params": {...}}. Returns an error message on malformed input.
std::string parseInstancesJSON(llvm::StringRef text,
                               std::vector<InstanceSpec> &out);

} // namespace tilec

#endif // TILEC_MLIRGEN_MLIRGEN_H
