//===- TileOps.td - Operations of the tile dialect ---------*- tablegen -*-===//
//
// One op per TileLang primitive. The ops keep the tile-level meaning (a
// whole-box copy, a whole-tile GEMM, an element-wise loop over a tile) so
// that layout inference, pipelining and warp specialization can reason about
// them before they are lowered. Every op that runs on the device must sit
// inside a `tile.kernel` (the `InKernel` trait checks it).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEOPS_TD
#define TILEC_DIALECT_TILEOPS_TD

include "tilec/Dialect/TileAttrs.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Shared definitions
//===----------------------------------------------------------------------===//

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

/// Device code: the op must be nested (at any depth) in a `tile.kernel`, or
/// in the `gpu.launch` / `gpu.func` a kernel has been lowered to.
def Tile_InKernel : NativeOpTrait<"InKernel"> {
  let cppNamespace = "::tilec::tile";
}

def Tile_Scalar : AnyTypeOf<[AnySignlessIntegerOrIndex, AnyFloat]>;
def Tile_ScalarOrBuffer : AnyTypeOf<[AnySignlessIntegerOrIndex, AnyFloat,
                                     AnyMemRef]>;

//===----------------------------------------------------------------------===//
// Grid and terminator
//===----------------------------------------------------------------------===//

def Tile_YieldOp : Tile_Op<"yield", [
    Pure, ReturnLike, Terminator,
    ParentOneOf<["KernelOp", "ParallelOp", "PipelinedOp", "ForOp"]>]> {
  let summary = "terminator of the tile dialect's region ops";
  let description = [{
    Ends the body of `tile.kernel`, `tile.parallel`, `tile.pipelined` and
    `tile.for`. It carries no values and is implicit in the custom syntax.

    ```mlir
    tile.yield
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_KernelOp : Tile_Op<"kernel", [
    RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface,
                              ["getAsmBlockArgumentNames"]>]> {
  let summary = "a grid of thread blocks (T.Kernel)";
  let description = [{
    The grid of a kernel launch: `grid` holds one extent per grid dimension
    (1 to 3, x first) and `threads` the number of threads per block. The body
    runs once per block; its block arguments are the block indices, one
    `index` per grid dimension.

    ```mlir
    tile.kernel blocks(%bx, %by) in (%gx, %gy) threads(128) {
      ...
    }
    ```
  }];
  let arguments = (ins Variadic<Index>:$grid, I64Attr:$threads);
  let regions = (region SizedRegion<1>:$region);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    // Creates the body block (one index argument per grid extent) and its
    // terminator; fill it with `getBody()->getTerminator()` as insertion
    // point.
    OpBuilder<(ins "::mlir::ValueRange":$grid, "int64_t":$threads)>
  ];
  let extraClassDeclaration = [{
    /// The block indices, one per grid dimension.
    ::mlir::Block::BlockArgListType getBlockIndices() {
      return getBody()->getArguments();
    }
  }];
}

def Tile_ThreadIdOp : Tile_Op<"thread_id", [
    Pure, Tile_InKernel,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "index of the current thread in its block";
  let description = [{
    `T.get_thread_binding(dim)`: the thread index along block dimension
    `dim` (0 = x, 1 = y, 2 = z), printed as `x`, `y` or `z`.

    ```mlir
    %tx = tile.thread_id x
    ```
  }];
  let arguments = (ins I64Attr:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "custom<Dim>($dim) attr-dict";
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "int64_t":$dim), [{
      build($_builder, $_state, $_builder.getIndexType(),
            $_builder.getI64IntegerAttr(dim));
    }]>
  ];
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

def Tile_AllocOp : Tile_Op<"alloc", [
    Tile_InKernel,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "allocate an on-chip tile buffer";
  let description = [{
    `T.alloc_shared`, `T.alloc_fragment`, `T.alloc_local` and `T.alloc_var`:
    a buffer of static shape in the memory space of its type. `name` keeps
    the user's variable name for diagnostics and dumps (the result is
    printed under that name); `layout`, a `#tile.fragment` of the buffer's
    shape on fragments only, is filled by layout inference (or pinned by a
    T.gemm or `T.annotate_layout`); `reducer` (fragments only) marks
    `T.alloc_reducer`'s buffers. A rank-0 buffer in the `local` space is
    a scalar variable.

    ```mlir
    %A_shared = tile.alloc "A_shared" : memref<128x32xf16, #tile.space<shared>>
    %acc = tile.alloc "acc" : memref<f32, #tile.space<local>>
    ```
  }];
  let arguments = (ins StrAttr:$name, OptionalAttr<Tile_FragmentAttr>:$layout,
                       OptionalAttr<Tile_ReducerAttr>:$reducer);
  let results = (outs Res<AnyMemRef, "", [MemAlloc]>:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::MemRefType":$type, "::llvm::StringRef":$name), [{
      build($_builder, $_state, type, $_builder.getStringAttr(name),
            ::tilec::tile::FragmentAttr(), ::tilec::tile::ReducerAttr());
    }]>
  ];
}

def Tile_MakeTensorOp : Tile_Op<"make_tensor", [Pure, Tile_InKernel]> {
  let summary = "a global tensor at a device address known at run time";
  let description = [{
    `T.make_tensor(ptr, shape, dtype)`: the row-major global tensor of
    static `shape` whose first element is at `address`, a 64-bit device
    address read on the device (an element of a `T.ptr` table parameter).
    The result is a global memref like a tensor argument's, except that no
    launch header knows its address: passes that need one (TMA tensor
    maps, the header's argument checks) see an op result, not a kernel
    argument, and leave it alone. Lowered to the LLVM dialect as an
    `inttoptr` of the address in a memref descriptor.

    ```mlir
    %a = memref.load %A_ptrs[%g] : memref<3xi64>
    %A = tile.make_tensor %a : memref<256x4096xf16>
    ```
  }];
  let arguments = (ins I64:$address);
  let results = (outs AnyStaticShapeMemRef:$result);
  let assemblyFormat = "$address attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Tile_InKernel, Pure,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "a fragment seen with another shape (T.reshape)";
  let description = [{
    `T.reshape(frag, shape)` of a fragment: the same elements in the same
    threads' registers, indexed row-major in `shape` (element `(i, j, k)`
    of a `(N, Q, H)` view of an `(N, Q * H)` fragment is `(i, j * H + k)`).
    Its layout is the source's with the coordinates remapped, which layout
    inference records in `layout` (the source's reshaped, never chosen on
    its own); tile-lower-simt gives the view the source's registers. The
    source is a fragment `tile.alloc` (a view of a view is folded to one of
    the allocation), both shapes static with power-of-two extents, so that
    the remap is linear over the layout's bits. Shared and local buffers
    are reshaped in the frontend, by remapping each element access.

    ```mlir
    %sv = tile.reshape %s "s_reshaped"
        : memref<64x128xf32, #tile.space<fragment>>
        -> memref<64x2x64xf32, #tile.space<fragment>>
    ```
  }];
  let arguments = (ins AnyMemRef:$source, StrAttr:$name,
                       OptionalAttr<Tile_FragmentAttr>:$layout);
  let results = (outs AnyMemRef:$result);
  let assemblyFormat = [{
    $source $name attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_AllocBarrierOp : Tile_Op<"alloc_barrier", [Tile_InKernel]> {
  let summary = "allocate mbarriers in shared memory (T.alloc_barrier)";
  let description = [{
    Allocates one 64-bit mbarrier per entry of `arrive_counts` in shared
    memory; entry `i` expects `arrive_counts[i]` arrivals per phase.

    ```mlir
    %bar = tile.alloc_barrier [128, 128] : memref<2xi64, #tile.space<shared>>
    ```
  }];
  let arguments = (ins DenseI64ArrayAttr:$arrive_counts);
  let results = (outs Res<AnyMemRef, "", [MemAlloc]>:$result);
  let assemblyFormat = "$arrive_counts attr-dict `:` type($result)";
  let hasVerifier = 1;
  let builders = [
    // Infers memref<Nxi64, #tile.space<shared>>.
    OpBuilder<(ins "::llvm::ArrayRef<int64_t>":$arriveCounts)>
  ];
}

def Tile_AnnotateLayoutOp : Tile_Op<"annotate_layout", [Tile_InKernel]> {
  let summary = "pin the layout of an on-chip buffer (T.annotate_layout)";
  let description = [{
    Fixes the layout of a shared or fragment buffer; layout inference takes
    it as a constraint instead of choosing one: a fragment's
    `#tile.fragment` (of the buffer's shape), or `#tile.any_swizzle` on a
    shared buffer (TileLang's make_swizzled_layout).

    ```mlir
    tile.annotate_layout %As layout(#tile.any_swizzle)
        : memref<128x32xf16, #tile.space<shared>>
    ```
  }];
  let arguments = (ins AnyMemRef:$buffer, Tile_AnnotatedLayoutAttr:$layout);
  let assemblyFormat = [{
    $buffer `layout` `(` $layout `)` attr-dict `:` type($buffer)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data movement and initialisation
//===----------------------------------------------------------------------===//

def Tile_CopyOp : Tile_Op<"copy", [Tile_InKernel, AttrSizedOperandSegments]> {
  let summary = "copy a box of one buffer into a box of another (T.copy)";
  let description = [{
    Copies the box `[src_offsets, src_offsets + src_extents)` of `src` into
    the box `[dst_offsets, dst_offsets + dst_extents)` of `dst`, in any
    direction between global, shared, fragment and local buffers. A box may
    reach past the end of a global tensor: the lowering guards those
    elements (loads read zero, stores are skipped). The two boxes may have
    different ranks, but after dropping their unit extents their shapes
    must be equal; the element types may differ (the copy converts).

    `disable_tma` forbids the TMA path; `coalesced_width` forces the vector
    width (in elements) of the global accesses.

    ```mlir
    tile.copy %A[%m0, %k0] [128, 32] to %As[%c0, %c0] [128, 32]
        : memref<1024x1024xf16>, memref<128x32xf16, #tile.space<shared>>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "", [MemRead]>:$src,
    Variadic<Index>:$src_offsets,
    DenseI64ArrayAttr:$src_extents,
    Arg<AnyMemRef, "", [MemWrite]>:$dst,
    Variadic<Index>:$dst_offsets,
    DenseI64ArrayAttr:$dst_extents,
    UnitAttr:$disable_tma,
    OptionalAttr<I64Attr>:$coalesced_width);
  let assemblyFormat = [{
    $src `[` $src_offsets `]` $src_extents `to`
    $dst `[` $dst_offsets `]` $dst_extents
    attr-dict `:` type($src) `,` type($dst)
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$src, "::mlir::ValueRange":$srcOffsets,
                   "::llvm::ArrayRef<int64_t>":$srcExtents,
                   "::mlir::Value":$dst, "::mlir::ValueRange":$dstOffsets,
                   "::llvm::ArrayRef<int64_t>":$dstExtents), [{
      build($_builder, $_state, src, srcOffsets, srcExtents, dst, dstOffsets,
            dstExtents, /*disable_tma=*/false,
            /*coalesced_width=*/::mlir::IntegerAttr());
    }]>
  ];
}

def Tile_FillOp : Tile_Op<"fill", [Tile_InKernel]> {
  let summary = "set every element of a buffer (T.fill, T.clear)";
  let description = [{
    Stores `value` into every element of `dst`; `T.clear(buf)` is a fill
    with zero. The value's type is the buffer's element type.

    ```mlir
    tile.fill %C, %zero : memref<128x128xf32, #tile.space<fragment>>, f32
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemWrite]>:$dst,
                       Tile_Scalar:$value);
  let assemblyFormat = [{
    $dst `,` $value attr-dict `:` type($dst) `,` type($value)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicAddOp : Tile_Op<"atomic_add", [Tile_InKernel]> {
  let summary = "atomically add a scalar to one element (T.atomic_add)";
  let description = [{
    Adds `value` to `dst[indices]` atomically with respect to every other
    thread of the grid.

    ```mlir
    tile.atomic_add %Out[%i, %j], %v : memref<1024x1024xf32>, f32
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead, MemWrite]>:$dst,
                       Variadic<Index>:$indices, Tile_Scalar:$value);
  let assemblyFormat = [{
    $dst `[` $indices `]` `,` $value attr-dict `:` type($dst) `,` type($value)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def Tile_GemmOp : Tile_Op<"gemm", [Tile_InKernel, AttrSizedOperandSegments]> {
  let summary = "tile matrix multiply-accumulate C += op(A) * op(B) (T.gemm)";
  let description = [{
    `C[M, N] += op(A)[M, K] * op(B)[K, N]` over a whole tile, where
    `op(A)` is `A` (`M x K`) or, with `transpose_a`, the transpose of a
    `K x M` buffer, and likewise `op(B)` is `B` (`K x N`) or, with
    `transpose_b`, the transpose of an `N x K` buffer. A and B live in
    shared or fragment memory; C is a fragment. `clear_accum` zeroes C
    first. `policy` says how the block's warps split the tile; `k_pack` and
    `wg_wait` are passed through to the MMA lowering (AMD k-packing, the
    number of in-flight wgmma groups).

    `async` (T.wgmma_gemm) asks for wgmma and leaves the group in flight:
    the fence, the wgmmas and their commit_group are issued, no wait; `C`
    holds the product only after a `tile.wait_wgmma` that completes the
    group, and nothing but another async gemm into `C` may touch `C`
    before it. Only an f32 accumulator, and no `wg_wait` with it.

    An operand may be a region of its buffer (TileLang's `Q_s[:, 256:]`,
    `A_s[k % 2, :, :]`): `offsets`, one per dimension of the buffer, and
    `extents`, the region's two matrix extents, which span the buffer's
    last two dimensions (every leading dimension is an index: the stage
    of a ring). Without them the operand is the whole 2-D buffer. The
    matrix offsets (the last two) are compile-time constants; a leading
    index may be a run-time value.

    ```mlir
    tile.gemm %As, %Bs, %C transpose_b policy = full_row clear_accum
        : memref<128x32xf16, #tile.space<shared>>,
          memref<128x32xf16, #tile.space<shared>>,
          memref<128x128xf32, #tile.space<fragment>>
    tile.gemm %Qs[%c0, %c256] [64, 256], %KVs[%s, %c0, %c256] [64, 256], %S
        transpose_b
        : memref<64x512xf16, #tile.space<shared>>,
          memref<2x64x512xf16, #tile.space<shared>>,
          memref<64x64xf32, #tile.space<fragment>>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "", [MemRead]>:$a,
    Variadic<Index>:$a_offsets,
    OptionalAttr<DenseI64ArrayAttr>:$a_extents,
    Arg<AnyMemRef, "", [MemRead]>:$b,
    Variadic<Index>:$b_offsets,
    OptionalAttr<DenseI64ArrayAttr>:$b_extents,
    Arg<AnyMemRef, "", [MemRead, MemWrite]>:$c,
    Variadic<Index>:$c_offsets,
    OptionalAttr<DenseI64ArrayAttr>:$c_extents,
    UnitAttr:$transpose_a,
    UnitAttr:$transpose_b,
    DefaultValuedAttr<Tile_GemmWarpPolicyAttr,
                      "::tilec::tile::GemmWarpPolicy::square">:$policy,
    UnitAttr:$clear_accum,
    DefaultValuedAttr<I64Attr, "1">:$k_pack,
    DefaultValuedAttr<I64Attr, "0">:$wg_wait,
    UnitAttr:$async);
  let assemblyFormat = [{
    $a (`[` $a_offsets^ `]` $a_extents)? `,`
    $b (`[` $b_offsets^ `]` $b_extents)? `,`
    $c (`[` $c_offsets^ `]` $c_extents)?
    (`transpose_a` $transpose_a^)?
    (`transpose_b` $transpose_b^)?
    (`policy` `=` `` $policy^)?
    (`clear_accum` $clear_accum^)?
    (`async` $async^)?
    attr-dict `:` type($a) `,` type($b) `,` type($c)
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$a, "::mlir::Value":$b, "::mlir::Value":$c,
                   "bool":$transposeA, "bool":$transposeB,
                   "::tilec::tile::GemmWarpPolicy":$policy, "bool":$clearAccum,
                   "int64_t":$kPack, "int64_t":$wgWait), [{
      build($_builder, $_state, a, ::mlir::ValueRange(), nullptr, b,
            ::mlir::ValueRange(), nullptr, c, ::mlir::ValueRange(), nullptr,
            transposeA, transposeB, policy, clearAccum, kPack, wgWait,
            /*async=*/false);
    }]>
  ];
  let extraClassDeclaration = [{
    /// Operand `i` (0: A, 1: B, 2: C): its buffer, whether it is a region,
    /// its offsets (none for a whole buffer), and its matrix extents (the
    /// region's, or the buffer's two dimensions).
    ::mlir::Value getOperandBuffer(unsigned i);
    bool isRegion(unsigned i) { return !getOperandOffsets(i).empty(); }
    ::mlir::OperandRange getOperandOffsets(unsigned i);
    std::array<int64_t, 2> getOperandShape(unsigned i);
    /// The region's origin in the buffer's last two dimensions ((0, 0)
    /// for a whole buffer; the verifier makes them constants).
    std::array<int64_t, 2> getOperandOrigin(unsigned i);
    /// The index of the region's 2-D tile in a 3-D buffer (a ring's
    /// stage), or null.
    ::mlir::Value getOperandStage(unsigned i);
    /// M, N and K of the product.
    int64_t getM() { return getOperandShape(2)[0]; }
    int64_t getN() { return getOperandShape(2)[1]; }
    int64_t getK() {
      return getOperandShape(0)[getTransposeA() ? 0 : 1];
    }
  }];
}

def Tile_ReduceOp : Tile_Op<"reduce", [Tile_InKernel]> {
  let summary = "reduce a tile along one dimension (T.reduce_*)";
  let description = [{
    `T.reduce_sum / max / min / abssum / absmax(src, dst, dim, clear)`:
    combines the elements of `src` along `dim` into `dst`, whose shape is
    the shape of `src` without `dim` (or with `dim` kept as extent 1). With
    `clear` (the default) `dst` is overwritten, otherwise the result is
    combined with what `dst` holds.

    ```mlir
    tile.reduce max %S -> %m dim(1)
        : memref<128x64xf32, #tile.space<fragment>>
        -> memref<128xf32, #tile.space<fragment>>
    ```
  }];
  let arguments = (ins
    Tile_ReduceKindAttr:$kind,
    Arg<AnyMemRef, "", [MemRead]>:$src,
    Arg<AnyMemRef, "", [MemRead, MemWrite]>:$dst,
    I64Attr:$dim,
    DefaultValuedAttr<BoolAttr, "true">:$clear);
  let assemblyFormat = [{
    `` $kind $src `->` $dst `dim` `(` $dim `)` attr-dict
    `:` type($src) `->` type($dst)
  }];
  let hasVerifier = 1;
}

def Tile_FinalizeReducerOp : Tile_Op<"finalize_reducer", [Tile_InKernel]> {
  let summary = "combine the private copies of a reducer (T.finalize_reducer)";
  let description = [{
    `reducer` is a fragment whose `tile.alloc` carries a `#tile.reducer`:
    every element's copies, held by the threads its layout replicates it
    over, are combined with the reducer's kind (sum, max or min), and each
    holder ends with the result. Lowered like the cross-thread part of
    `tile.reduce`: xor shuffles across the replicated lanes, then a shared
    scratch buffer across the replicated warps.

    ```mlir
    tile.finalize_reducer %o : memref<128xf32, #tile.space<fragment>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead, MemWrite]>:$reducer);
  let assemblyFormat = "$reducer attr-dict `:` type($reducer)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The reducer's #tile.reducer (on its tile.alloc).
    ::tilec::tile::ReducerAttr getReducerAttr();
  }];
}

def Tile_ScanOp : Tile_Op<"scan", [Tile_InKernel]> {
  let summary = "inclusive prefix scan along a dimension (T.cumsum, T.cummax)";
  let description = [{
    Writes the inclusive prefix sum (or running maximum) of `src` along
    `dim` into `dst`, which has the shape of `src`; `reverse` scans from
    the last element towards the first.

    ```mlir
    tile.scan sum %x -> %y dim(0) reverse
        : memref<256xf32, #tile.space<shared>>
        -> memref<256xf32, #tile.space<shared>>
    ```
  }];
  let arguments = (ins
    Tile_ScanKindAttr:$kind,
    Arg<AnyMemRef, "", [MemRead]>:$src,
    Arg<AnyMemRef, "", [MemWrite]>:$dst,
    I64Attr:$dim,
    UnitAttr:$reverse);
  let assemblyFormat = [{
    `` $kind $src `->` $dst `dim` `(` $dim `)` (`reverse` $reverse^)? attr-dict
    `:` type($src) `->` type($dst)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

def Tile_ParallelOp : Tile_Op<"parallel", [
    Tile_InKernel, RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "element-wise loop nest over a tile (T.Parallel)";
  let description = [{
    Runs the body once for every point of the static iteration space
    `extents`, in parallel over the block's threads; the block arguments
    are the point's coordinates. How points map to threads is decided by
    layout inference and recorded in `loop_layout`: a `#tile.fragment` of
    shape `extents` (point p runs where that layout holds element p), or
    `#tile.strided` for a loop that touches no fragment.

    ```mlir
    tile.parallel (%i, %j) in [128, 64] {
      %x = memref.load %S[%i, %j] : memref<128x64xf32, #tile.space<fragment>>
      ...
    }
    ```
  }];
  let arguments = (ins DenseI64ArrayAttr:$extents,
                       OptionalAttr<Tile_LoopLayoutAttr>:$loop_layout);
  let regions = (region SizedRegion<1>:$region);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    // Creates the body block (one index argument per extent) and its
    // terminator.
    OpBuilder<(ins "::llvm::ArrayRef<int64_t>":$extents)>
  ];
  let extraClassDeclaration = [{
    ::mlir::Block::BlockArgListType getInductionVars() {
      return getBody()->getArguments();
    }
    /// The recorded loop layout as a fragment layout, or null.
    ::tilec::tile::FragmentAttr getFragmentLayout() {
      return ::llvm::dyn_cast_or_null<::tilec::tile::FragmentAttr>(
          getLoopLayoutAttr());
    }
    /// The recorded loop layout as a strided one, or null.
    ::tilec::tile::StridedAttr getStridedLayout() {
      return ::llvm::dyn_cast_or_null<::tilec::tile::StridedAttr>(
          getLoopLayoutAttr());
    }
  }];
}

def Tile_PipelinedOp : Tile_Op<"pipelined", [
    Tile_InKernel, RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "software-pipelined loop (T.Pipelined)";
  let description = [{
    A loop from `lb` to `ub` (exclusive) by `step` whose body the pipeline
    planner overlaps over `num_stages` iterations (0 or 1: no overlap).
    `order` and `stage` optionally fix, per top-level statement of the body
    (or per entry of `group`, when given), its position in the issue order
    and its pipeline stage; `group` bundles statement indices into units.

    ```mlir
    tile.pipelined %k = %c0 to %kt step %c1 num_stages(3) {
      ...
    }
    tile.pipelined %k = %c0 to %kt step %c1 num_stages(2)
        order [-1, 0, 1] stage [-1, 0, 1] {
      ...
    }
    ```
  }];
  let arguments = (ins Index:$lb, Index:$ub, Index:$step, I64Attr:$num_stages,
                       OptionalAttr<DenseI64ArrayAttr>:$order,
                       OptionalAttr<DenseI64ArrayAttr>:$stage,
                       OptionalAttr<TypedArrayAttrBase<DenseI64ArrayAttr,
                           "array of i64 arrays">>:$group);
  let regions = (region SizedRegion<1>:$region);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    // Creates the body block (the induction variable) and its terminator.
    OpBuilder<(ins "::mlir::Value":$lb, "::mlir::Value":$ub,
                   "::mlir::Value":$step, "int64_t":$numStages)>
  ];
  let extraClassDeclaration = [{
    ::mlir::BlockArgument getInductionVar() {
      return getBody()->getArgument(0);
    }
  }];
}

def Tile_ForOp : Tile_Op<"for", [
    Tile_InKernel, RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "sequential loop (range, T.serial, T.unroll, T.vectorized)";
  let description = [{
    A loop from `lb` to `ub` (exclusive) by `step`, run by every thread;
    `kind` asks for a plain loop, full unrolling or vectorization.

    ```mlir
    tile.for unroll %i = %c0 to %c8 step %c1 {
      ...
    }
    ```
  }];
  let arguments = (ins Tile_LoopKindAttr:$kind, Index:$lb, Index:$ub,
                       Index:$step);
  let regions = (region SizedRegion<1>:$region);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    // Creates the body block (the induction variable) and its terminator.
    OpBuilder<(ins "::tilec::tile::LoopKind":$kind, "::mlir::Value":$lb,
                   "::mlir::Value":$ub, "::mlir::Value":$step)>
  ];
  let extraClassDeclaration = [{
    ::mlir::BlockArgument getInductionVar() {
      return getBody()->getArgument(0);
    }
  }];
}

//===----------------------------------------------------------------------===//
// Scheduling hints and synchronisation
//===----------------------------------------------------------------------===//

def Tile_UseSwizzleOp : Tile_Op<"use_swizzle", [Tile_InKernel]> {
  let summary = "rasterize blocks in panels for L2 reuse (T.use_swizzle)";
  let description = [{
    Remaps the block indices of the enclosing kernel so that consecutive
    blocks walk panels of `panel_size` blocks in `order` (row or column
    major), which raises L2 hit rates for GEMM-like grids. With `enable`
    false the op is a no-op kept for fidelity to the source.

    ```mlir
    tile.use_swizzle panel_size = 10, order = row
    ```
  }];
  let arguments = (ins I64Attr:$panel_size, Tile_SwizzleOrderAttr:$order,
                       DefaultValuedAttr<BoolAttr, "true">:$enable);
  let assemblyFormat = [{
    `panel_size` `=` $panel_size `,` `order` `=` `` $order attr-dict
  }];
  let hasVerifier = 1;
}

def Tile_BarrierOp : Tile_Op<"barrier", [Tile_InKernel]> {
  let summary = "block-wide barrier (__syncthreads)";
  let description = [{
    Waits until every thread of the block has reached it, and makes their
    shared-memory writes visible to each other.

    ```mlir
    tile.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

def Tile_PrintOp : Tile_Op<"print", [Tile_InKernel]> {
  let summary = "print a scalar or a buffer from the device (T.print)";
  let description = [{
    Prints `value` (a scalar, or every element of a buffer) with an
    optional message prefix. `tile-strip-debug` removes it.

    ```mlir
    tile.print %x msg("x =") : f32
    tile.print %As : memref<128x32xf16, #tile.space<shared>>
    ```
  }];
  let arguments = (ins Tile_ScalarOrBuffer:$value, OptionalAttr<StrAttr>:$msg);
  let builders = [
    // An empty `msg` leaves the attribute out.
    OpBuilder<(ins "::mlir::Value":$value,
                   CArg<"::llvm::StringRef", "\"\"">:$msg), [{
      build($_builder, $_state, value,
            msg.empty() ? ::mlir::StringAttr() : $_builder.getStringAttr(msg));
    }]>
  ];
  let assemblyFormat = [{
    $value (`msg` `(` $msg^ `)`)? attr-dict `:` type($value)
  }];
}

def Tile_DeviceAssertOp : Tile_Op<"device_assert", [Tile_InKernel]> {
  let summary = "trap when a condition is false (T.device_assert)";
  let description = [{
    Aborts the kernel, printing `msg`, on every thread where `cond` is
    false. `tile-strip-debug` removes it unless told to keep asserts.

    ```mlir
    tile.device_assert %ok, "index in range"
    ```
  }];
  let arguments = (ins I1:$cond, DefaultValuedStrAttr<StrAttr, "">:$msg);
  let assemblyFormat = "$cond (`,` $msg^)? attr-dict";
}


//===----------------------------------------------------------------------===//
// Explicit warp specialization and mbarriers (TileLang's Hopper forms)
//===----------------------------------------------------------------------===//

def Tile_WsOp : Tile_Op<"ws", [
    Tile_InKernel, RecursiveMemoryEffects, SingleBlock, NoTerminator]> {
  let summary = "a region run by some warpgroups only (T.ws)";
  let description = [{
    `with T.ws(i, ...)`: the body runs on the threads of warpgroups `i, ...`
    (threads `[128 i, 128 (i + 1))`, the ids consecutive) only, and what it
    spreads over threads (copies, fills, T.Parallel loops, T.gemm) it
    spreads over those. tile-infer-layouts records the thread range as a
    `#tile.partition` (TileAttrs.td). A region made from an arm of a thread
    branch that is whole warps but not whole warpgroups (ThreadPartitions.cpp:
    threads [32, 96) of 96) names the warpgroups it lies in and carries its
    own `tile.partition`, which is kept; the verifier checks that it lies
    inside them.

    ```mlir
    tile.ws [1] {
      tile.gemm %As, %Bs, %C ...
    }
    ```
  }];
  let arguments = (ins DenseI64ArrayAttr:$warpgroups);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$warpgroups attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def Tile_MBarrierArriveOp : Tile_Op<"mbarrier_arrive", [Tile_InKernel]> {
  let summary = "arrive on an mbarrier (T.barrier_arrive, T.mbarrier_arrive)";
  let description = [{
    Every thread that runs it arrives once on barrier `index` of `barriers`
    (a `tile.alloc_barrier`).

    ```mlir
    tile.mbarrier_arrive %bars[%i] : memref<2xi64, #tile.space<shared>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead, MemWrite]>:$barriers,
                       Index:$index);
  let assemblyFormat = "$barriers `[` $index `]` attr-dict `:` type($barriers)";
}

def Tile_MBarrierWaitOp : Tile_Op<"mbarrier_wait", [Tile_InKernel]> {
  let summary = "wait for an mbarrier phase (T.barrier_wait, "
                "T.mbarrier_wait_parity)";
  let description = [{
    Blocks until the phase of barrier `index` whose parity is `parity`
    (0 or 1; the low bit is used) has completed, as PTX's
    `mbarrier.try_wait.parity`: on a fresh barrier parity 1 passes at once.

    ```mlir
    tile.mbarrier_wait %bars[%i], %parity : memref<2xi64, #tile.space<shared>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead, MemWrite]>:$barriers,
                       Index:$index, Index:$parity);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $parity attr-dict `:` type($barriers)
  }];
}

def Tile_MBarrierExpectTxOp : Tile_Op<"mbarrier_expect_tx", [Tile_InKernel]> {
  let summary = "expect bytes on an mbarrier (T.mbarrier_expect_tx)";
  let description = [{
    Each thread that runs it adds `bytes` to the transaction count of the
    barrier's current phase (no arrival).

    ```mlir
    tile.mbarrier_expect_tx %bars[%i], %bytes : memref<1xi64, #tile.space<shared>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead, MemWrite]>:$barriers,
                       Index:$index, Index:$bytes);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $bytes attr-dict `:` type($barriers)
  }];
}

def Tile_FenceProxyAsyncOp : Tile_Op<"fence_proxy_async", [Tile_InKernel]> {
  let summary = "order shared-memory writes before async-proxy reads "
                "(T.fence_proxy_async)";
  let description = [{
    `fence.proxy.async.shared::cta`: this thread's ordinary writes to
    shared memory become visible to TMA and wgmma.
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_WaitWgmmaOp : Tile_Op<"wait_wgmma", [Tile_InKernel]> {
  let summary = "wait for in-flight async gemms (T.wait_wgmma)";
  let description = [{
    `wgmma.wait_group pending`: blocks until at most `pending` of the
    warpgroup's most recent async `tile.gemm` groups (T.wgmma_gemm, one
    group each) are still in flight; the accumulators of the groups it
    completes may be read after it.

    ```mlir
    tile.wait_wgmma 0
    ```
  }];
  let arguments = (ins I64Attr:$pending);
  let assemblyFormat = "$pending attr-dict";
  let hasVerifier = 1;
}

def Tile_SetMaxNRegOp : Tile_Op<"set_max_nreg", [Tile_InKernel]> {
  let summary = "re-allocate the warpgroup's registers (T.set_max_nreg)";
  let description = [{
    `setmaxnreg.inc` (`increase`) or `.dec` to `count` registers per
    thread, for the warpgroup that runs it; `count` is a multiple of 8 in
    [24, 256].

    ```mlir
    tile.set_max_nreg 240 increase
    ```
  }];
  let arguments = (ins I64Attr:$count, UnitAttr:$increase);
  let assemblyFormat = "$count (`increase` $increase^)? attr-dict";
  let hasVerifier = 1;
}

def Tile_TmaCopyOp : Tile_Op<"tma_copy",
    [Tile_InKernel, AttrSizedOperandSegments]> {
  let summary = "a TMA load completing on an mbarrier (T.tma_copy)";
  let description = [{
    Copies the box `[src_offsets, src_offsets + src_extents)` of the global
    tensor `src` into the shared buffer `dst` (at `dst_offsets`) with the
    tensor memory accelerator, issued by the first thread of the threads
    that run it, which also adds the box's bytes to barrier `index` of
    `barriers` (`mbarrier.expect_tx`, no arrival): the barrier's phase
    completes when its arrivals are in and the bytes have landed.

    ```mlir
    tile.tma_copy %A[%m0, %k0] [128, 64] to %As[%c0, %c0] [128, 64]
        barrier %bars[%c0]
        : memref<1024x1024xf16>, memref<128x64xf16, #tile.space<shared>>,
          memref<1xi64, #tile.space<shared>>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "", [MemRead]>:$src,
    Variadic<Index>:$src_offsets,
    DenseI64ArrayAttr:$src_extents,
    Arg<AnyMemRef, "", [MemWrite]>:$dst,
    Variadic<Index>:$dst_offsets,
    DenseI64ArrayAttr:$dst_extents,
    Arg<AnyMemRef, "", [MemRead, MemWrite]>:$barriers,
    Index:$index);
  let assemblyFormat = [{
    $src `[` $src_offsets `]` $src_extents `to`
    $dst `[` $dst_offsets `]` $dst_extents
    `barrier` $barriers `[` $index `]`
    attr-dict `:` type($src) `,` type($dst) `,` type($barriers)
  }];
}

//===----------------------------------------------------------------------===//
// Raw asynchronous copies (T.ptx_cp_async)
//===----------------------------------------------------------------------===//

def Tile_CpAsyncOp : Tile_Op<"cp_async",
    [Tile_InKernel, AttrSizedOperandSegments]> {
  let summary = "one thread's asynchronous copy of a few elements "
                "(T.ptx_cp_async)";
  let description = [{
    Every thread that runs it copies `elements` consecutive elements
    (4, 8 or 16 bytes) from element `src_indices` of the global tensor
    `src` to element `dst_indices` of the shared buffer `dst` with one
    `cp.async`, which completes asynchronously: a later
    `tile.cp_async_wait` of its group or a `tile.cp_async_arrive` on an
    mbarrier tracks it. With `predicate` false nothing is read and the
    destination is zero-filled. The destination element is where the
    buffer's layout puts it (its `tile.swizzle`, when it is a swizzled
    tensor-core operand); the run must stay contiguous there.

    ```mlir
    tile.cp_async %KV[%b, %r, %h, %c] to %KV_s[%s, %i, %j], 8
        : memref<4x64x1x512xf16>, memref<2x64x512xf16, #tile.space<shared>>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "", [MemRead]>:$src,
    Variadic<Index>:$src_indices,
    Arg<AnyMemRef, "", [MemWrite]>:$dst,
    Variadic<Index>:$dst_indices,
    I64Attr:$elements,
    Optional<I1>:$predicate);
  let assemblyFormat = [{
    $src `[` $src_indices `]` `to` $dst `[` $dst_indices `]` `,` $elements
    (`if` $predicate^)? attr-dict `:` type($src) `,` type($dst)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The bytes one copy moves.
    int64_t getBytes() {
      return getElements() *
             (llvm::cast<mlir::MemRefType>(getDst().getType())
                  .getElementTypeBitWidth() / 8);
    }
  }];
}

def Tile_CpAsyncArriveOp : Tile_Op<"cp_async_arrive", [Tile_InKernel]> {
  let summary = "arrive on an mbarrier when this thread's cp.async copies "
                "land (T.cp_async_barrier_noinc)";
  let description = [{
    `cp.async.mbarrier.arrive.noinc`: every thread that runs it has barrier
    `index` of `barriers` receive one arrival once all of the thread's
    earlier `tile.cp_async` copies have completed. The arrival is one of
    the barrier's expected count (no increment of the pending count).

    ```mlir
    tile.cp_async_arrive %bars[%i] : memref<2xi64, #tile.space<shared>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead, MemWrite]>:$barriers,
                       Index:$index);
  let assemblyFormat = "$barriers `[` $index `]` attr-dict `:` type($barriers)";
}

def Tile_CpAsyncCommitOp : Tile_Op<"cp_async_commit", [Tile_InKernel]> {
  let summary = "close this thread's group of cp.async copies "
                "(T.ptx_commit_group)";
  let description = [{
    `cp.async.commit_group` for the kernel's own `tile.cp_async` copies;
    dropped from a kernel that has none (the copies TileLang's
    `prefer_async` stores would have made are synchronous in tilec).
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_CpAsyncWaitOp : Tile_Op<"cp_async_wait", [Tile_InKernel]> {
  let summary = "wait for this thread's cp.async groups (T.ptx_wait_group)";
  let description = [{
    `cp.async.wait_group pending`: at most `pending` of the thread's most
    recent groups stay in flight; dropped, like `tile.cp_async_commit`,
    from a kernel without `tile.cp_async`.

    ```mlir
    tile.cp_async_wait 0
    ```
  }];
  let arguments = (ins I64Attr:$pending);
  let assemblyFormat = "$pending attr-dict";
  let hasVerifier = 1;
}

#endif // TILEC_DIALECT_TILEOPS_TD
