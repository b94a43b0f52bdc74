//===- Passes.td - tilec's tile-level passes ---------------*- tablegen -*-===//
//
// Every pass of tilec that works on the tile dialect, with its flag,
// summary, description and options. Passes are named `tile-<verb>-<noun>`;
// each lives in its own file under passes/.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PASSES_PASSES_TD
#define TILEC_PASSES_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileStripDebug : Pass<"tile-strip-debug"> {
  let summary = "Remove tile.print and tile.device_assert ops";
  let description = [{
    Erases every `tile.print` and, unless `keep-asserts` is set, every
    `tile.device_assert` nested under the op the pass runs on. Release
    builds use it so that debugging statements left in a kernel cost
    neither registers nor a printf buffer.

    Example (`-tile-strip-debug=keep-asserts=true` keeps the assert):

    ```mlir
    tile.print %x msg("x =") : f32     // erased
    tile.device_assert %ok, "in range" // erased unless keep-asserts
    ```
  }];
  let options = [
    Option<"keepAsserts", "keep-asserts", "bool", /*default=*/"false",
           "Keep tile.device_assert ops (only tile.print is removed)">
  ];
  let dependentDialects = ["::tilec::tile::TileDialect"];
}

#endif // TILEC_PASSES_PASSES_TD
