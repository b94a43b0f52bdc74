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

def TileSetTarget : Pass<"tile-set-target", "::mlir::ModuleOp"> {
  let summary = "Record the target chip on the module (tilec's --target)";
  let description = [{
    Sets the module's `tile.target` attribute to `#tile.target<"CHIP">`,
    the one place every later pass and the code emitters read the chip
    from. The driver sets the attribute while building the module from a
    `.tile` file; this pass is the same step for IR read by `tilec-opt`. A
    module that already names another chip is an error: the target is
    decided once.

    ```mlir
    // -tile-set-target=chip=gfx942
    module attributes {tile.target = #tile.target<"gfx942">} { ... }
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"",
           "The chip: sm_80, sm_90a, gfx90a or gfx942">
  ];
  let dependentDialects = ["::tilec::tile::TileDialect"];
}

def TileUninitializedReads : Pass<"tile-uninitialized-reads", "::mlir::ModuleOp"> {
  let summary = "Warn where a shared buffer is read before anything writes it";
  let description = [{
    A warning-only analysis, first in the pipeline (on the ops as written):
    the first read of each shared buffer (`T.alloc_shared`) that no earlier
    op in the kernel body, in pre-order, can have written gets a located
    warning; the kernel still compiles. Kernels synchronized by hand
    (T.ws regions, mbarriers, TMA) and T.Pipelined loops with a written
    `order` / `stage` are left alone; an op whose effects on the buffer are
    unknown counts as writing it. passes/UninitializedReads.cpp.
  }];
  let dependentDialects = ["::tilec::tile::TileDialect"];
}

def TileGuardGlobalAccesses : Pass<"tile-guard-global-accesses", "::mlir::ModuleOp"> {
  let summary = "Bounds-check element accesses to global tensors (TileLang's safe memory access)";
  let description = [{
    An element load, store or atomic on a kernel's global tensor argument
    whose index the pass cannot prove inside the tensor's shape (intervals
    of block / thread indices and loop variables, the grid or loop bound
    being the extent itself, the conditions of the `if`s around it) runs
    under `scf.if` of the missing checks; a load yields 0 where they fail.
    TileLang's LegalizeSafeMemoryAccess gives these accesses that meaning;
    its `TL_DISABLE_SAFE_MEMORY_ACCESS` pass config
    (`tile.disable_safe_memory_access` on the prim_func or the module)
    turns it off. Constant indices are not checked. Runs on the ops as
    written, before layout inference. passes/GuardGlobalAccesses.cpp.

    ```mlir
    memref.store %v, %Logits[%bx, %idx] : memref<?x?xf32>
    // becomes, %seq_len_kv being the tensor's second extent:
    %in = arith.cmpi slt, %idx, %seq_len_kv : index
    scf.if %in {
      memref.store %v, %Logits[%bx, %idx] : memref<?x?xf32>
    }
    ```
  }];
  let dependentDialects = ["::tilec::tile::TileDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

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

def TileLowerFp8Casts : Pass<"tile-lower-fp8-casts", "::mlir::ModuleOp"> {
  let summary = "Conversions to and from the OCP 8-bit floats as NVVM cvt";
  let description = [{
    Rewrites every `arith.truncf` to `f8E4M3FN` / `f8E5M2` (from f32, f16
    or bf16; scalars and vectors) as the chip's `cvt.rn.satfinite`
    conversion (`llvm.nvvm.ff.to.e4m3x2.rn`: round to nearest even, values
    past the largest finite one saturate, as TileLang's fp8 casts do), and
    every `arith.extf` from them as `cvt.rn.f16x2.e4m3x2` (exact) then an
    exact widening. LLVM has no 8-bit float type, so without this pass the
    translation to LLVM IR fails. NVIDIA chips with OCP fp8 tensor cores
    (sm_89+) have the instructions; on other NVIDIA chips such a conversion
    is a located error. Other vendors are left alone.

    ```mlir
    %y = arith.truncf %x : f32 to f8E4M3FN
    // becomes
    %p = llvm.call_intrinsic "llvm.nvvm.ff.to.e4m3x2.rn"(%zero, %x)
    %y = arith.bitcast (arith.trunci %p : i16 to i8) : i8 to f8E4M3FN
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileFastMath : Pass<"tile-fast-math"> {
  let summary = "Approximate float math in kernels (--fast-math)";
  let description = [{
    Adds the fast-math flags `arcp`, `contract` and `afn` to every op
    implementing `ArithFastMathInterface` (arith float arithmetic and
    comparisons, math ops) that runs on the device: ops nested in a
    `tile.kernel`, or in a `gpu.func` once kernels are outlined. Host code
    around a `tile.kernel` (grid sizes, launch arguments) keeps IEEE
    semantics. `tilec --fast-math` runs it, the analogue of nvcc's
    `--use_fast_math` (without its flush to zero); the `tile-to-gpu`
    pipeline (`fast-math=true`) runs it first on the tile IR and again
    after tile-lower-shared, for the float ops the lowering created.

    The flags are what the code generators read: `math.exp` with `afn`
    lowers to `__nv_fast_expf` (`ex2.approx`) instead of `__nv_expf`,
    `arith.divf` with `afn` to PTX `div.approx.f32` instead of the IEEE
    `div.rn.f32` with its slow path. Deliberately not set: `reassoc` (LLVM
    would turn the FMA form kernels write, `x * s - m * s`, back into a
    subtract and a multiply) and `nnan`/`ninf` (attention masks are `-inf`
    by design, and `exp2(-inf)` must stay 0).

    Example:

    ```mlir
    tile.kernel blocks(%bx) in (%c1) threads(128) {
      %e = math.exp %x : f32        // math.exp %x fastmath<arcp,contract,afn>
      %y = arith.divf %x, %e : f32  // arith.divf %x, %e fastmath<arcp,...>
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

//===----------------------------------------------------------------------===//
// SIMT lowering: tile dialect -> GPU dialect (no tensor cores)
//===----------------------------------------------------------------------===//

def TileDecomposeScan : Pass<"tile-decompose-scan"> {
  let summary = "Rewrite T.cumsum / T.cummax into shared-memory tile ops";
  let description = [{
    Stages each `tile.scan` whose source or destination is not in shared
    memory (a fragment) through a shared scratch buffer (`scan_scratch`,
    allocated at the top of the kernel): a copy of the source into it, a
    `tile.scan` of the scratch in place (or from a shared source into it),
    and a copy of the scratch into the destination. A scan between shared
    buffers is kept; `tile-lower-simt` lowers it (warp shuffles along the
    contiguous dimension, a thread per column vector along the others).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def TileInferLayouts : Pass<"tile-infer-layouts"> {
  let summary = "Choose fragment layouts and T.Parallel loop layouts (SIMT)";
  let description = [{
    Decides, for every kernel (a `tile.kernel` or an outlined `gpu.func`)
    nested under the pass's op, how each fragment buffer is spread over the
    block's threads and how each `tile.parallel` loop distributes its
    iterations, and records the choice as attributes:

    - `layout` on each fragment `tile.alloc`: a LinearLayout from
      (register, lane, warp) to the buffer's coordinates, printed as a
      dictionary with one list of bases per input dimension, e.g.
      `{lane = [array<i32: 0, 8>, ...], register = [array<i32: 0, 1>, ...],
      warp = [...]}` (see docs/lowering.md);
    - `loop_layout` on each `tile.parallel`: the same form over the loop's
      iteration space for loops that touch fragments, or `{vec = N}` for
      loops over global/shared memory only, which run as a strided loop,
      `N` consecutive iterations per thread.

    Rules, in levels, strongest first (as TileLang's strict, common and
    free levels): layouts pinned by hand (a `layout` already present,
    `tile.annotate_layout`) are kept; a reduction's output gets its
    input's layout with the reduced dimension collapsed (replicated over
    the threads that shared it), and a fragment-to-fragment copy passes a
    layout on; a loop takes the layout of the largest fragment it indexes
    with its own induction variables and passes it on to fragments it
    indexes alike; only a fragment none of these reaches takes its layout
    from a copy from or to a global or shared buffer (a blocked layout with
    threads along the contiguous dimension and `16 / element bytes`
    contiguous elements per thread; one copy at a time, each followed by
    propagation); remaining loops and fragments get a fresh blocked
    layout. Finally every
    fragment access inside a loop is checked to be held by the thread that
    runs the iteration. A conflict in a loop laid out like a fragment a
    copy laid out runs the inference again with that copy first (up to 4
    such retries, TileLang's free-mode roots); where every run conflicts,
    the first run's error names both buffers and the lines their layouts
    come from.

    `tile.gemm` (the mma.sync path, decided first so that the accumulator
    layout counts as pinned; see docs/lowering.md): `warp_partition =
    array<i64: warpsM, warpsN>` on the gemm (computeWarpPartition of its
    policy), the block-level mma.sync m16n8k16 accumulator layout as the
    `layout` of its accumulator fragment, and `shared_layout = {swizzle =
    "64B", xor = array<i32: bits, base, shift>}` on its shared operands
    (pickSharedLayout's XOR swizzle on the row-major offset; `"none"` for a
    buffer that other ops also access). A fragment or buffer two gemms want
    laid out differently is an error naming it and both places.

    The chip comes from the module's `tile.target` (warp size, which
    matrix instructions exist). On AMD chips (gfx90a, gfx942) T.gemm takes
    the MFMA path: the instruction is the widest wave-wide f16/bf16 MFMA of the
    chip's TargetInfo table whose tile splits the accumulator over the
    waves, recorded as `mfma = {instruction = "rocdl.mfma.f32.32x32x8f16",
    k_pack = 2, shape = array<i64: 32, 32, 8>}` next to `warp_partition`;
    the accumulator gets the instruction's transposed D tiled over the block
    (C = A B is issued as C^T = B^T A^T, so a lane's registers run along
    N); shared operands get the same swizzles.
  }];
  let dependentDialects = ["::tilec::tile::TileDialect"];
}

def TileShareStorage : Pass<"tile-share-storage"> {
  let summary = "Let shared buffers whose lifetimes do not overlap share storage";
  let description = [{
    For a kernel whose shared buffers, with every `T.Pipelined` operand
    copy at its loop's stage count, do not fit a block's shared memory:
    gives the shared buffers allocated at the top of its body whose uses
    (intervals over the body's top-level ops) do not overlap one
    `tile.storage_group = N` each, so that tile-plan-pipeline keeps the
    rings that would not fit otherwise and tile-plan-shared places the
    members at one offset. Ring candidates (copy destinations inside a
    `T.Pipelined` body) and kernels that synchronize by hand (`T.ws`,
    mbarriers, `T.tma_copy`) are left alone. Must run before
    tile-insert-barriers, whose barrier before every shared-memory writer
    orders a group's members.
  }];
}

def TilePlanPipeline : Pass<"tile-plan-pipeline"> {
  let summary = "Plan the cp.async software pipelines of T.Pipelined loops";
  let description = [{
    For each `tile.pipelined` loop with `num_stages` S >= 2 holding
    `tile.gemm`s and copies from global memory into their operand buffers
    (those tile-infer-layouts gave a `shared_layout`, used only inside the
    loop, read by gemms only), records the schedule: `tile.stage` (0 for
    those copies, issued S - 1 iterations ahead; S - 1 for every other op,
    which keeps its order) and `tile.order` (the position in the body) on
    every op, and `tile.num_stages = S` on each operand buffer, which
    becomes a ring of S buffers. tile-lower-simt applies the plan (cp.async
    prologue, waits and barriers, ring slots); loops left unplanned keep
    synchronous copies.

    The kernel's shared buffers plus the extra ring slots must fit the
    shared memory of the module's `tile.target`: S is lowered until they
    do (a warning at the loop says so), and a loop that does not fit at 2
    stages stays unplanned.

    ```mlir
    tile.pipelined %k = %c0 to %n step %c1 num_stages(3) {
      tile.copy %A[...] to %As[...] {tile.order = 0, tile.stage = 0}
      tile.gemm %As, %Bs, %C {tile.order = 2, tile.stage = 2}
    }
    ```
  }];
  let dependentDialects = ["::tilec::tile::TileDialect"];
}

def TilePlanWarpSpecialize : Pass<"tile-plan-warp-specialize"> {
  let summary = "Decide producer and consumer warps of pipelined wgmma loops";
  let description = [{
    On chips with TMA and setmaxnreg, records `tile.warp_specialize =
    #tile.warp_specialize<consumers = C, producers = 128, registers = [c,
    p]>` on a planned `tile.pipelined` loop (tile-plan-pipeline) whose
    gemms are wgmma and whose operand copies can all be TMA loads, when it
    is the kernel's only pipelined loop, directly in the kernel body, with
    offsets and bounds that side-effect-free ops compute. tile-outline-
    kernels launches C + 128 threads; tile-lower-simt gives the added
    warpgroup the loads (one thread, gated by the ring's empty barriers)
    and the kernel's own threads everything else, each side setting its
    register budget. TileLang's `TL_DISABLE_WARP_SPECIALIZED` and
    `TL_DISABLE_TMA_LOWER` pass configs turn it off.

    ```mlir
    tile.pipelined %k = %c0 to %c64 step %c1 num_stages(3)
        attributes {tile.warp_specialize = #tile.warp_specialize<
            consumers = 256, producers = 128, registers = [240, 24]>} {...}
    ```
  }];
  let dependentDialects = ["::tilec::tile::TileDialect"];
}

def TileInsertBarriers : Pass<"tile-insert-barriers"> {
  let summary = "Synchronize the block around writes to shared memory";
  let description = [{
    TileLang programs do not synchronize shared memory by hand: the
    compiler does. This pass puts a `tile.barrier` before and after every
    tile-level op that writes a shared buffer (`tile.copy` or `tile.fill`
    into shared memory, a `tile.parallel` loop storing to one,
    `tile.atomic_add` on one), so that the threads that later read the
    buffer see the writes (after) and the threads still reading the old
    contents finish first (before; this also orders the iterations of a
    loop). A barrier that would directly follow another is not added, nor
    one before a top-level op that no shared-memory access precedes.

    Writes to shared memory outside these ops (a plain store in the kernel
    body) are the program's to synchronize with `T.sync_threads()`.
    Barriers inside divergent control flow are the program's
    responsibility too, as in CUDA.

    ```mlir
    tile.copy %A[...] to %As[...]      // becomes
    tile.barrier
    tile.copy %A[...] to %As[...]
    tile.barrier
    ```
  }];
  let dependentDialects = ["::tilec::tile::TileDialect"];
}

def TileOutlineKernels : Pass<"tile-outline-kernels", "::mlir::ModuleOp"> {
  let summary = "Outline tile.kernel ops into gpu.func kernels";
  let description = [{
    For every `func.func` marked `tile.kernel` (a traced prim_func), moves
    each `tile.kernel` op it holds into a `gpu.func` kernel of the
    `gpu.module @tilec_kernels` (the module becomes a
    `gpu.container_module`) and replaces it with a `gpu.launch_func`.

    Naming: a prim_func `@f` with one kernel launches `@f_kernel`; with
    several, `@f_kernel0`, `@f_kernel1`, ... in program order.

    ABI: every kernel takes all of the prim_func's arguments, in order.
    Global tensors with a static shape keep their memref type; those with a
    dynamic shape become a rank-0 memref (a bare base pointer) reshaped
    inside the kernel from the symbol arguments (each dynamic dimension's
    size is its `tile.shape` entry: a symbol name or an expression over
    symbols; without `tile.shape`, the only symbol); `index` arguments (the
    `T.dynamic` symbols) become `i32`. Pointer arguments get `llvm.noalias`
    and `llvm.align = 16`.

    Inside the kernel, block indices become `gpu.block_id`,
    `tile.thread_id` becomes `gpu.thread_id`, `tile.use_swizzle` remaps the
    block indices (panel rasterization) and pure host values the kernel
    uses are recomputed. Launch data are kept as attributes: on the
    `gpu.func`, `gpu.known_block_size`, `gpu.known_grid_size` (when
    static), `tile.threads`, `tile.grid_host`, `tile.func`, `tile.launch`;
    on the `func.func`, `tile.kernels` (the kernels in launch order).
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect"
  ];
}

def TileLowerSIMT : Pass<"tile-lower-simt", "::mlir::ModuleOp"> {
  let summary = "Lower the tile ops of gpu.func kernels to SIMT code";
  let description = [{
    Applies the layouts chosen by `tile-infer-layouts` inside every
    outlined `gpu.func` kernel:

    - a fragment becomes a per-thread register array (`memref.alloca`)
      indexed by compile-time constants only, so LLVM keeps it in
      registers; a `tile.parallel` loop over fragments is unrolled over the
      thread's registers, its induction variables rebuilt from the thread
      id and the register number through the loop layout;
    - a `tile.parallel` loop with a `{vec = N}` layout becomes a strided
      loop over the block's threads, `N` unrolled iterations per step;
    - `tile.copy` between a fragment and global/shared memory moves each
      thread's registers in vectors (16-byte `vector.load`/`store` where
      alignment is provable), other copies are strided over the threads;
      out-of-range elements of a global box read zero and are not stored;
    - `tile.reduce`: a per-thread partial over registers, `gpu.shuffle xor`
      across the lanes that share an output element, shared memory across
      warps when needed;
    - `tile.scan` over shared buffers: along the last dimension, groups of
      lanes own a line and scan 16-byte vectors chunk by chunk with
      `gpu.shuffle up`; along another, a thread per column vector walks
      down the line; lines split into segments when they are fewer than
      the threads, the segments' totals passed through shared memory;
    - `T.Parallel` loops: the clones of a load or store for consecutive
      iterations along the last dimension become one aligned vector
      access; bounds checks of a strided loop's vector are tested once
      for all its iterations, which then run unchecked;
    - `arith.maxnumf`/`minnumf` become `llvm.intr.maxnum`/`minnum` (one
      `max.f32` on NVIDIA instead of `arith-expand`'s compare and
      selects);
    - `tile.fill`, `tile.atomic_add` (`memref.atomic_rmw`), `tile.barrier`
      (`gpu.barrier`), `tile.print` (`gpu.printf`), `tile.device_assert`
      (`cf.assert`, or `gpu.printf` with `assert-lowering=printf`);
    - `tile.for`: `serial` becomes `scf.for`, `unroll` and `vectorized` are
      fully unrolled when their bounds are static; `tile.pipelined` becomes
      a plain `scf.for` keeping its schedule as `tile.*` attributes;
    - local buffers become `memref.alloca`;
    - with `fp-contract` (the default, as nvcc's `--fmad=true`), float
      arith ops in kernels get the `contract` fast-math flag so that
      multiply-adds become FMAs.

    - `tile.gemm` (A, B in shared memory, mma.sync path): per warp and
      k-step of 16, `nvvm.ldmatrix` x4 (transposed for B stored K x N; x2
      for a warp's odd last n8 tile of B) and `nvvm.mma.sync` m16n8k16 on the accumulator's registers, as
      `warp_partition` and the accumulator layout say; copies from global
      memory into its swizzled operand buffers store 16-byte chunks at
      their swizzled place; loops planned by `tile-plan-pipeline` become
      cp.async pipelines over rings of `tile.num_stages` buffers
      (`nvvm.cp.async.shared.global` .cg, `commit.group`, `wait.group`).
    - `tile.gemm` on a chip without mma.sync (AMD, `chip=gfx942`): per wave
      and k-step, operand vectors read from shared memory (8 or 16 bytes
      where K is contiguous) and the `rocdl.mfma.*` op of the gemm's `mfma`
      attribute per accumulator tile. Chips without asynchronous copies
      keep T.Pipelined loops synchronous (copies, barriers, gemm).

    Shared buffers stay `tile.alloc`s (the scratch of cross-warp reductions
    is added as one more, shared by every reduction of an element type)
    for `tile-plan-shared`.
  }];
  let options = [
    Option<"assertLowering", "assert-lowering", "std::string",
           /*default=*/"\"\"",
           "How tile.device_assert is lowered: `assert` (cf.assert, which "
           "traps through __assertfail on NVIDIA) or `printf` (print and go "
           "on); empty: `assert` where the target has a device assert">,
    Option<"unrollLimit", "unroll-limit", "int64_t", /*default=*/"16",
           "Strided T.Parallel loops with at most this many steps per "
           "thread are unrolled">,
    Option<"fpContract", "fp-contract", "bool", /*default=*/"true",
           "Allow a * b + c to fuse into one FMA in kernels (nvcc's and "
           "TileLang's default, --fmad=true)">,
    Option<"indexBitwidth", "index-bitwidth", "int64_t", /*default=*/"32",
           "Width of `index` in the code emitter's LLVM lowering (the "
           "tensor-core ops take addresses from memref descriptors)">
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::ROCDL::ROCDLDialect", "::mlir::LLVM::LLVMDialect"
  ];
}

def TilePlanShared : Pass<"tile-plan-shared", "::mlir::ModuleOp"> {
  let summary = "Place the shared buffers of each kernel in one dynamic buffer";
  let description = [{
    Gives every shared `tile.alloc` of a `gpu.func` kernel a byte offset
    (`tile.shared_offset`) in the kernel's single dynamic shared-memory
    buffer, in program order, each aligned to `alignment` bytes, and
    records the total as `tile.dynamic_shared_bytes` on the kernel and as
    the dynamic shared-memory size of its `gpu.launch_func`. A kernel
    whose total exceeds what one block of the module's `tile.target` may
    use gets an error listing the buffers.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"16",
           "Byte alignment of every shared buffer">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def TileLowerShared : Pass<"tile-lower-shared", "::mlir::ModuleOp"> {
  let summary = "Lower shared tile.allocs to views of dynamic shared memory";
  let description = [{
    Replaces each shared `tile.alloc` that carries a `tile.shared_offset`
    by a `memref.view` of `gpu.dynamic_shared_memory` at that offset, in
    the GPU workgroup address space, and retypes its users; a
    `memref.memory_space_cast` of the buffer to the workgroup space (how
    the tensor-core lowering hands shared buffers to nvvm ops) becomes
    the view itself.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect",
    "::mlir::arith::ArithDialect"
  ];
}

#endif // TILEC_PASSES_PASSES_TD
