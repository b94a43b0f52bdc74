//===- TileAttrs.td - Attributes and enums of `tile` ------*- tablegen -*-===//
//
// The memory-space attribute that tags on-chip memrefs and the enums that
// spell TileLang's keyword arguments (GEMM warp policy, reduction kinds,
// loop kinds, swizzle order). Each enum is a dialect attribute so that the
// generic form stays readable (`#tile<reduce_kind max>`) and ops print the
// bare keyword (`tile.reduce max ...`).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEATTRS_TD
#define TILEC_DIALECT_TILEATTRS_TD

include "tilec/Dialect/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

class Tile_EnumAttr<EnumAttrInfo info, string mnemonic>
    : EnumAttr<Tile_Dialect, info, mnemonic>;

//===----------------------------------------------------------------------===//
// Memory spaces
//===----------------------------------------------------------------------===//

def Tile_MemorySpace : I32EnumAttr<"MemorySpace",
    "on-chip memory space of a tile buffer", [
      I32EnumAttrCase<"shared", 0>,
      I32EnumAttrCase<"fragment", 1>,
      I32EnumAttrCase<"local", 2>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tilec::tile";
}

def Tile_MemorySpaceAttr : Tile_EnumAttr<Tile_MemorySpace, "space"> {
  let summary = "memory space of an on-chip tile buffer";
  let description = [{
    Used as the memory space of a `memref`:

    - `shared`: shared memory of the thread block (`T.alloc_shared`);
    - `fragment`: a tile spread over the registers of the block's threads,
      laid out by a fragment layout (`T.alloc_fragment`);
    - `local`: registers private to each thread (`T.alloc_local`, and a
      rank-0 buffer for `T.alloc_var`).

    A memref without a memory space is a global tensor.

    ```mlir
    memref<128x32xf16, #tile.space<shared>>
    ```
  }];
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Op enums
//===----------------------------------------------------------------------===//

def Tile_GemmWarpPolicy : I32EnumAttr<"GemmWarpPolicy",
    "how the warps of a block split a GEMM tile", [
      I32EnumAttrCase<"square", 0>,
      I32EnumAttrCase<"full_row", 1, "full_row">,
      I32EnumAttrCase<"full_col", 2, "full_col">
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tilec::tile";
}
def Tile_GemmWarpPolicyAttr
    : Tile_EnumAttr<Tile_GemmWarpPolicy, "gemm_policy">;

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "reduction combiner", [
      I32EnumAttrCase<"sum", 0>,
      I32EnumAttrCase<"max", 1>,
      I32EnumAttrCase<"min", 2>,
      I32EnumAttrCase<"abssum", 3>,
      I32EnumAttrCase<"absmax", 4>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tilec::tile";
}
def Tile_ReduceKindAttr : Tile_EnumAttr<Tile_ReduceKind, "reduce_kind">;

def Tile_ScanKind : I32EnumAttr<"ScanKind", "prefix-scan combiner", [
      I32EnumAttrCase<"sum", 0>,
      I32EnumAttrCase<"max", 1>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tilec::tile";
}
def Tile_ScanKindAttr : Tile_EnumAttr<Tile_ScanKind, "scan_kind">;

def Tile_LoopKind : I32EnumAttr<"LoopKind", "how a sequential loop runs", [
      I32EnumAttrCase<"serial", 0>,
      I32EnumAttrCase<"unroll", 1>,
      I32EnumAttrCase<"vectorized", 2>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tilec::tile";
}
def Tile_LoopKindAttr : Tile_EnumAttr<Tile_LoopKind, "loop_kind">;

def Tile_SwizzleOrder : I32EnumAttr<"SwizzleOrder",
    "direction in which block rasterization walks a panel", [
      I32EnumAttrCase<"row", 0>,
      I32EnumAttrCase<"col", 1>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tilec::tile";
}
def Tile_SwizzleOrderAttr
    : Tile_EnumAttr<Tile_SwizzleOrder, "swizzle_order">;

#endif // TILEC_DIALECT_TILEATTRS_TD
