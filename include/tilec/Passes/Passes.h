//===- Passes.h - tilec's tile-level passes ---------------------*- C++ -*-===//
//
// Declares the create functions and options of every pass in Passes.td and
// `registerTilePasses()`, which makes them available to tilec-opt and to
// textual pipelines.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_PASSES_PASSES_H
#define TILEC_PASSES_PASSES_H

#include "tilec/Dialect/TileDialect.h"

#include "mlir/Pass/Pass.h"

#include <memory>

namespace tilec {

// Declares, per pass `TileFoo`: `struct TileFooOptions` (when the pass has
// options), `std::unique_ptr<mlir::Pass> createTileFoo()` and
// `createTileFoo(const TileFooOptions &)`.
#define GEN_PASS_DECL
#include "tilec/Passes/Passes.h.inc"

// Defines `registerTilePasses()` and `registerTileStripDebug()` etc.
#define GEN_PASS_REGISTRATION
#include "tilec/Passes/Passes.h.inc"

} // namespace tilec

#endif // TILEC_PASSES_PASSES_H
