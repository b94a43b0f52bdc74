//===- TileDialect.td - The tile dialect -------------------*- tablegen -*-===//
//
// The `tile` dialect is tilec's TileLang-level IR: one op per `T.*`
// primitive, keeping the programmer's tiles, buffers and schedule hints so
// that later passes can decide layouts, pipelines and warp roles before
// anything is lowered to SIMT code.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEDIALECT_TD
#define TILEC_DIALECT_TILEDIALECT_TD

include "mlir/IR/DialectBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::tilec::tile";
  let summary = "TileLang-level kernels: grids, tiles, copies and GEMMs";
  let description = [{
    The `tile` dialect models a TileLang kernel as written by its author:
    a grid of thread blocks (`tile.kernel`), buffers in the shared, fragment
    (per-thread registers distributed over the block) and local memory
    spaces, and whole-tile operations (`tile.copy`, `tile.gemm`,
    `tile.reduce`, `tile.parallel` loops, ...).

    Buffers are builtin `memref` values. A memref with no memory space is a
    global tensor (a kernel parameter); the on-chip spaces are spelled with
    the `#tile.space<...>` attribute:

    ```mlir
    memref<1024x1024xf16>                              // global tensor
    memref<128x32xf16, #tile.space<shared>>            // T.alloc_shared
    memref<128x128xf32, #tile.space<fragment>>         // T.alloc_fragment
    memref<f32, #tile.space<local>>                    // T.alloc_var
    ```

    Scalars are builtin integer, float and index values; scalar math uses
    the upstream `arith` and `math` dialects and single-element accesses use
    `memref.load` / `memref.store`. A kernel entry point is a `func.func`
    carrying the unit attribute `tile.kernel`; its body holds one
    `tile.kernel` op, the grid.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect"
  ];
  let useDefaultAttributePrinterParser = 1;
  // Checks the `tile.kernel` unit attribute on kernel entry functions.
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The unit attribute that marks a `func.func` as a kernel entry point.
    static constexpr ::llvm::StringLiteral getKernelFuncAttrName() {
      return ::llvm::StringLiteral("tile.kernel");
    }

  private:
    void registerAttributes();

  public:
  }];
}

#endif // TILEC_DIALECT_TILEDIALECT_TD
