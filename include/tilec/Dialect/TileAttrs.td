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
// The target
//===----------------------------------------------------------------------===//

def Tile_TargetAttr : AttrDef<Tile_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "the chip a module is compiled for";
  let description = [{
    Set once, on the builtin module, as `tile.target`: by the driver from
    `--target`, or by `tile-set-target` in tests. Every pass and the code
    emitters read the chip's facts (warp size, shared memory, which
    asynchronous-copy and matrix instructions exist) through the
    `TargetInfo` this attribute names; no pass takes a chip option.

    ```mlir
    module attributes {tile.target = #tile.target<"sm_90a">} { ... }
    ```
  }];
  let parameters = (ins StringRefParameter<"chip name">:$chip);
  let assemblyFormat = "`<` $chip `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The chip's facts; never null once the attribute has verified.
    const ::tilec::TargetInfo &getInfo() const;
  }];
}

//===----------------------------------------------------------------------===//
// Decisions: the tensor-core instruction of a T.gemm
//===----------------------------------------------------------------------===//

def Tile_MmaKind : I32EnumAttr<"MmaKind",
    "family of matrix instructions a T.gemm is lowered to", [
      I32EnumAttrCase<"mma_sync", 0>,
      I32EnumAttrCase<"wgmma", 1>,
      I32EnumAttrCase<"mfma", 2>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tilec::tile";
}

def Tile_OperandSource : I32EnumAttr<"OperandSource",
    "where a matrix instruction reads an operand from", [
      I32EnumAttrCase<"shared", 0>,
      I32EnumAttrCase<"registers", 1>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tilec::tile";
}

def Tile_MmaAttr : AttrDef<Tile_Dialect, "Mma"> {
  let mnemonic = "mma";
  let summary = "the matrix instruction chosen for a T.gemm";
  let description = [{
    Recorded by tile-infer-layouts as `tile.mma` on each `tile.gemm` and
    followed by the lowering, which dispatches on `kind` and never chooses
    again:

    - `kind`: the instruction family (`mma_sync` one warp, `wgmma` one
      warpgroup reading shared memory, `mfma` one wavefront);
    - `instruction`: the op the lowering emits, from the chip's TargetInfo
      table (`"nvvm.mma.sync"`, `"rocdl.mfma.f32.32x32x8f16"`, ...);
    - `shape`: one instruction's m, n, k;
    - `warps`: how the gemm's warps (waves, warpgroups) split the
      accumulator tile, along M and along N;
    - `a`, `b`: where each operand is read from;
    - `k_pack` (MFMA only, default 1): instructions that share one operand
      read along K.

    ```mlir
    tile.gemm %As, %Bs, %C {tile.mma = #tile.mma<mma_sync, "nvvm.mma.sync",
        shape = [16, 8, 16], warps = [2, 2], a = shared, b = shared>}
    ```
  }];
  let parameters = (ins
    EnumParameter<Tile_MmaKind>:$kind,
    StringRefParameter<"the op the lowering emits">:$instruction,
    "int64_t":$m, "int64_t":$n, "int64_t":$k,
    "int64_t":$warpsM, "int64_t":$warpsN,
    EnumParameter<Tile_OperandSource>:$a,
    EnumParameter<Tile_OperandSource>:$b,
    DefaultValuedParameter<"int64_t", "1">:$kPack
  );
  let assemblyFormat = [{
    `<` $kind `,` $instruction `,` `shape` `=` `[` $m `,` $n `,` $k `]` `,`
    `warps` `=` `[` $warpsM `,` $warpsN `]` `,` `a` `=` $a `,` `b` `=` $b
    (`,` `k_pack` `=` $kPack^)? `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The name of the discardable attribute on tile.gemm.
    static constexpr ::llvm::StringLiteral getAttrName() {
      return ::llvm::StringLiteral("tile.mma");
    }
    /// Warps (waves, warpgroups) the instruction is spread over.
    int64_t getNumWarps() const { return getWarpsM() * getWarpsN(); }
  }];
}

//===----------------------------------------------------------------------===//
// Decisions: the swizzle of a shared buffer
//===----------------------------------------------------------------------===//

def Tile_SwizzleMode : I32EnumAttr<"SwizzleMode",
    "shared-memory swizzle width, as TMA and wgmma name them", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"b32", 1>,
      I32EnumAttrCase<"b64", 2>,
      I32EnumAttrCase<"b128", 3>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tilec::tile";
}

def Tile_SwizzleAttr : AttrDef<Tile_Dialect, "Swizzle"> {
  let mnemonic = "swizzle";
  let summary = "the swizzle chosen for a shared buffer";
  let description = [{
    Recorded by tile-infer-layouts as `tile.swizzle` on each shared
    `tile.alloc` a T.gemm reads, and followed by the copies that fill it and
    the instructions that read it:

    - `mode`: the swizzle width, `none`, `b32`, `b64` or `b128` (the 32-,
      64- and 128-byte swizzles of TMA's tensor maps and wgmma's
      descriptors): rows of 16-byte units XORed over 2, 4 or 8 units;
    - `xor = [bits, base, shift]`: the same swizzle as CUTLASS's
      Swizzle<bits, base, shift> on the row-major *element* offset `o`:
      `o ^ (((o >> (base + shift)) & (2^bits - 1)) << base)`, `bits` being
      the mode's (1, 2, 3); absent for `none`;
    - `atom = W` (wgmma / TMA operands): the columns are cut into atoms of
      `W` elements (one swizzle wide), each atom a `rows x W` tile stored
      whole after the previous one and swizzled as above on its own
      offset: the canonical layout wgmma's descriptors and TMA's 128-,
      64- and 32-byte swizzles name (element (r, c) at
      `(c / W) * rows * W + xor(r * W + c % W)`). Absent when the row is
      one atom wide.

    ```mlir
    %As = tile.alloc "A_shared" {tile.swizzle = #tile.swizzle<b64, xor = [2, 3, 3]>}
        : memref<128x32xf16, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" {tile.swizzle = #tile.swizzle<b128, xor = [3, 3, 3], atom = 64>}
        : memref<64x256xf16, #tile.space<shared>>
    ```
  }];
  let parameters = (ins
    EnumParameter<Tile_SwizzleMode>:$mode,
    DefaultValuedParameter<"int32_t", "0">:$bits,
    DefaultValuedParameter<"int32_t", "0">:$base,
    DefaultValuedParameter<"int32_t", "0">:$shift,
    DefaultValuedParameter<"int64_t", "0">:$atom
  );
  let assemblyFormat = [{
    `<` $mode (`,` `xor` `=` `[` $bits^ `,` $base `,` $shift `]`)?
        (`,` `atom` `=` $atom^)? `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The name of the discardable attribute on shared tile.allocs.
    static constexpr ::llvm::StringLiteral getAttrName() {
      return ::llvm::StringLiteral("tile.swizzle");
    }
  }];
}

//===----------------------------------------------------------------------===//
// Decisions: fragment and loop layouts
//===----------------------------------------------------------------------===//

def Tile_FragmentAttr : AttrDef<Tile_Dialect, "Fragment"> {
  let mnemonic = "fragment";
  let summary = "a linear layout of a tile over the registers of a block";
  let description = [{
    Which register of which thread holds each element of a tile: a linear
    map over GF(2) (lib/Layout's LinearLayout) from the bits of (register,
    lane, warp) to the tile's coordinates. Each input bit has a basis, a
    tuple of one coordinate per tile dimension, and register r of lane l of warp w holds
    the XOR of the bases of the bits set in r, l and w. A dimension whose
    extent is not a power of two is laid out over its padded extent (the
    next power of two); registers past the tile hold nothing. Warps count
    from the first warp of the partition that runs the op (a T.ws region's
    `tile.partition`, else the kernel's).

    Recorded by tile-infer-layouts (and pinned by T.gemm's operand layouts
    or T.annotate_layout) as the `layout` of a fragment `tile.alloc`, and as
    the `loop_layout` of a `tile.parallel` whose points it spreads like a
    fragment; tile-lower-simt follows it. The ops check it against their
    shape: one coordinate per dimension, each inside the padded extent, at
    most 62 bits in all.

    ```mlir
    %C = tile.alloc "C" {layout = #tile.fragment<register = [(0, 1), (8, 0)],
        lane = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)], warp = []>}
        : memref<16x8xf32, #tile.space<fragment>>
    ```
  }];
  // The bases flattened, `rank` values each (rank 0 when there are none).
  let parameters = (ins
    "int64_t":$rank,
    ArrayRefParameter<"int32_t", "register bases">:$registerBases,
    ArrayRefParameter<"int32_t", "lane bases">:$laneBases,
    ArrayRefParameter<"int32_t", "warp bases">:$warpBases
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    // The one way passes record a layout: `layout`'s in dims register,
    // lane and warp (any may be absent), its out dims dim0.. in any order.
    AttrBuilder<(ins "const ::tilec::LinearLayout &":$layout)>
  ];
  let extraClassDeclaration = [{
    /// Bits of the register (lane, warp) index: the layout spans 2^bits.
    unsigned getNumRegisterBits() const {
      return getRank() ? getRegisterBases().size() / getRank() : 0;
    }
    unsigned getNumLaneBits() const {
      return getRank() ? getLaneBases().size() / getRank() : 0;
    }
    unsigned getNumWarpBits() const {
      return getRank() ? getWarpBases().size() / getRank() : 0;
    }
    /// The basis of register (lane, warp) bit `i`: one value per dimension.
    ::llvm::ArrayRef<int32_t> getRegisterBasis(unsigned i) const {
      return getRegisterBases().slice(i * getRank(), getRank());
    }
    ::llvm::ArrayRef<int32_t> getLaneBasis(unsigned i) const {
      return getLaneBases().slice(i * getRank(), getRank());
    }
    ::llvm::ArrayRef<int32_t> getWarpBasis(unsigned i) const {
      return getWarpBases().slice(i * getRank(), getRank());
    }
    /// The layout of a tile of `shape` (inputs register, lane, warp;
    /// outputs dim0.. at the padded extents); an error saying why the
    /// bases do not fit that shape.
    ::llvm::Expected<::tilec::LinearLayout>
    getLinearLayout(::llvm::ArrayRef<int64_t> shape) const;
    /// Checks the layout against a tile of `shape`, as the ops that carry
    /// it do (`what` names the tile in the message).
    ::llvm::LogicalResult
    verifyShape(::llvm::function_ref<::mlir::InFlightDiagnostic()> emitError,
                ::llvm::ArrayRef<int64_t> shape, ::llvm::StringRef what) const;

  }];
}

def Tile_StridedAttr : AttrDef<Tile_Dialect, "Strided"> {
  let mnemonic = "strided";
  let summary = "a T.Parallel loop run in block-strided steps";
  let description = [{
    The `loop_layout` of a `tile.parallel` that touches no fragment: its
    points, flattened row-major, are dealt out `vec` consecutive points per
    thread and step, the block striding over the rest (the vector width is
    chosen for 16-byte accesses where the rows allow it).

    - `vec`: consecutive points per thread and step (at least 1);
    - `realign = V` (optional, a power of two >= 2, with `vec = 1`): rows
      whose stride is not a multiple of V elements run as V-element vectors
      cut at the rows' 16-byte boundaries, found at run time
      (RealignedLoops.cpp).

    ```mlir
    tile.parallel (%i, %j) in [128, 64]
        attributes {loop_layout = #tile.strided<vec = 4>} {...}
    ```
  }];
  let parameters = (ins "int64_t":$vec,
                        DefaultValuedParameter<"int64_t", "0">:$realign);
  let assemblyFormat = [{
    `<` `vec` `=` $vec (`,` `realign` `=` $realign^)? `>`
  }];
  let genVerifyDecl = 1;
}

/// What a `tile.parallel`'s `loop_layout` holds.
def Tile_LoopLayoutAttr : AnyAttrOf<[Tile_FragmentAttr, Tile_StridedAttr]>;

def Tile_AnySwizzleAttr : AttrDef<Tile_Dialect, "AnySwizzle"> {
  let mnemonic = "any_swizzle";
  let summary = "T.annotate_layout's make_swizzled_layout for a shared buffer";
  let description = [{
    Asks that a shared buffer be swizzled (TileLang's
    `make_swizzled_layout`), with the swizzle tile-infer-layouts chooses
    for it, as it does for every shared operand of a T.gemm (`#tile.swizzle`).

    ```mlir
    tile.annotate_layout %S layout(#tile.any_swizzle)
        : memref<64x64xf16, #tile.space<shared>>
    ```
  }];
}

/// What a `tile.annotate_layout` pins.
def Tile_AnnotatedLayoutAttr
    : AnyAttrOf<[Tile_FragmentAttr, Tile_AnySwizzleAttr]>;

//===----------------------------------------------------------------------===//
// Decisions: the warp roles of a pipelined loop
//===----------------------------------------------------------------------===//

def Tile_WarpSpecializeAttr : AttrDef<Tile_Dialect, "WarpSpecialize"> {
  let mnemonic = "warp_specialize";
  let summary = "producer and consumer warps of a pipelined loop";
  let description = [{
    Recorded by tile-plan-warp-specialize as `tile.warp_specialize` on a
    `tile.pipelined` loop (and copied by tile-outline-kernels onto its
    gpu.func), followed by the lowering:

    - `consumers`: the threads the kernel was written for (threads 0 ..
      consumers - 1): they run everything but the loop's operand copies,
      and every layout, copy and reduction of the kernel is spread over
      them;
    - `producers`: the threads added after them (a warpgroup), one of
      which issues the loop's operand copies (TMA loads) into the ring,
      running ahead of the consumers by as many stages as the ring has;
    - `registers = [c, p]`: what each consumer and each producer thread
      may use after the split (`setmaxnreg.inc` / `.dec`), chosen so that
      `consumers * c + producers * p` fits the register file.

    The launch block is `consumers + producers` threads.

    ```mlir
    tile.pipelined %k = %c0 to %n step %c1 num_stages(4)
        attributes {tile.warp_specialize = #tile.warp_specialize<
            consumers = 256, producers = 128, registers = [232, 40]>} {...}
    ```
  }];
  let parameters = (ins
    "int64_t":$consumers,
    "int64_t":$producers,
    "int64_t":$consumerRegisters,
    "int64_t":$producerRegisters
  );
  let assemblyFormat = [{
    `<` `consumers` `=` $consumers `,` `producers` `=` $producers `,`
        `registers` `=` `[` $consumerRegisters `,` $producerRegisters `]` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The name of the discardable attribute on tile.pipelined / gpu.func.
    static constexpr ::llvm::StringLiteral getAttrName() {
      return ::llvm::StringLiteral("tile.warp_specialize");
    }
    /// Threads of the launch block.
    int64_t getThreads() const { return getConsumers() + getProducers(); }
  }];
}

def Tile_TmaStoreAttr : AttrDef<Tile_Dialect, "TmaStore"> {
  let mnemonic = "tma_store";
  let summary = "a shared -> global tile.copy done by the TMA unit";
  let description = [{
    Recorded by tile-infer-layouts (PlanTmaStores.cpp) as `tile.tma_store`
    on a `tile.copy` from a whole 2-D shared buffer into a box of a kernel
    tensor argument, on chips with TMA; tile-lower-simt follows it
    (LowerTmaStore.cpp): the threads fence their shared writes for the
    async proxy, a barrier, then one thread issues one
    `cp.async.bulk.tensor` store per box and waits for the boxes to be read.

    - `box`: the tensor map's box, innermost dimension first (the swizzle
      atom's width, then the buffer's rows along the destination dimension
      they run on, 1 elsewhere);
    - `swizzle`: the map's swizzle in bytes (0, 32, 64, 128), the shared
      buffer's `tile.swizzle` mode (boxes then cover one atom each).

    ```mlir
    tile.copy %O_shared[%c0, %c0] to %Output[%b, %r, %h, %c0] [128, 128] ...
        {tile.tma_store = #tile.tma_store<box = [64, 1, 128, 1], swizzle = 128>}
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$box, "int64_t":$swizzle);
  let assemblyFormat = [{
    `<` `box` `=` `[` $box `]` `,` `swizzle` `=` $swizzle `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    static constexpr ::llvm::StringLiteral getAttrName() {
      return ::llvm::StringLiteral("tile.tma_store");
    }
  }];
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

def Tile_ReducerReplication : I32EnumAttr<"ReducerReplication",
    "which threads hold private copies of a reducer's elements", [
      I32EnumAttrCase<"all", 0>,
      I32EnumAttrCase<"none", 1>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tilec::tile";
}

def Tile_ReducerAttr : AttrDef<Tile_Dialect, "Reducer"> {
  let mnemonic = "reducer";
  let summary = "a fragment that threads accumulate into privately (T.alloc_reducer)";
  let description = [{
    Marks a fragment `tile.alloc` as TileLang's reducer: `kind` (sum, max
    or min) is the only update its T.Parallel stores may make
    (`r[i] = r[i] + x`, `T.max(r[i], x)`, `T.min(r[i], x)`), each thread
    into its own copy of the element, and `tile.finalize_reducer` combines
    the copies with `kind`. `replication = all`: the threads that the
    updating loop spreads over one element each keep a private partial of
    it (the layout inference lays the reducer out as that loop's layout
    projected onto the reducer's dimensions; replicated lanes and warps are
    the partial holders). `replication = none`: every element has one
    owner thread, which does all its updates (finalize has nothing to
    combine).

    ```mlir
    %o = tile.alloc "o" {reducer = #tile.reducer<sum, all>}
        : memref<128xf32, #tile.space<fragment>>
    ```
  }];
  let parameters = (ins EnumParameter<Tile_ReduceKind>:$kind,
                        EnumParameter<Tile_ReducerReplication>:$replication);
  let assemblyFormat = "`<` $kind `,` $replication `>`";
}

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


//===----------------------------------------------------------------------===//
// Warp partitions (T.ws)
//===----------------------------------------------------------------------===//

def Tile_PartitionAttr : AttrDef<Tile_Dialect, "Partition"> {
  let mnemonic = "partition";
  let summary = "the threads of a block that run an op: [begin, begin + threads)";
  let description = [{
    Recorded by tile-infer-layouts as `tile.partition` on a `tile.ws`
    region (the warpgroups TileLang's `T.ws(i, ...)` names, or the whole
    warps of a thread-branch arm: `begin` a multiple of the warp size) and
    on every fragment whose users all sit in one such region; the
    fragment's layout then spans `threads` threads, thread `begin + t`
    holding what layout thread `t` holds (the lowering numbers the threads
    from `begin`). tile-lower-simt follows it: the region runs on those
    threads only, and the ops in it spread their work over them.

    ```mlir
    tile.ws [1] attributes {tile.partition = #tile.partition<begin = 128,
                                                            threads = 128>}
    ```
  }];
  let parameters = (ins "int64_t":$begin, "int64_t":$threads);
  let assemblyFormat = [{
    `<` `begin` `=` $begin `,` `threads` `=` $threads `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    static constexpr ::llvm::StringLiteral getAttrName() {
      return ::llvm::StringLiteral("tile.partition");
    }
    int64_t getEnd() const { return getBegin() + getThreads(); }
  }];
}

#endif // TILEC_DIALECT_TILEATTRS_TD
