# The project's cases for the side-by-side run against TileLang
# (../shared/sxs/prepare.py --extra bench/debug/sxs_cases.py): the odd and
# small instances of the memory-bound examples, the guarded 2-D elementwise
# kernel, T.cumsum / T.cummax, and the fp8 GEMM (examples/gemm_fp8.tile,
# against cuBLAS's fp8 GEMM through torch._scaled_mm), each on the same
# source for both systems.
# Sources "ho:" are in this folder; their references and library baselines
# are in sxs_refs.py beside this file (copied next to sxs.py as
# refs_extra.py). The fp8 inputs need bench/sxs_tma.py (it knows the fp8
# dtypes).
MB = dict(group="membound", unit="GB/s")
FP8 = dict(group="gemm", unit="TFLOP/s", work="2*A[0]*A[1]*B[0]", tol=1e-2)
CASES = [
    # Instances the tile does not divide.
    ("vector_add_1000003", "ex:vector_add.tile", "vector_add", {"N": 1000003}, ["C"],
     dict(MB, work="3*A[0]*2", tl_returns=True, tol=1e-3)),
    ("softmax_1001", "ex:softmax.tile", "softmax", {"M": 1001, "N": 4096}, ["Y"],
     dict(MB, work="2*X[0]*X[1]*2", tl_returns=True, tol=2e-3)),
    ("rmsnorm_silu_1001x4000", "ex:rmsnorm_silu.tile", "rmsnorm_silu", {"M": 1001, "hidden": 4000},
     ["Y"], dict(MB, work="2*X[0]*X[1]*2", tl_returns=True, tol=2e-3)),
    # T.Parallel(32, 256) with `if r < M and c < N`, bf16.
    ("guarded_4099x1000", "ho:simt2_guard.tile", "guarded_add", {"M": 4099, "N": 1000}, ["C"],
     dict(MB, work="3*A[0]*A[1]*2", ref="guarded_add", tol=1e-2)),
    ("guarded_4099x1001", "ho:simt2_guard.tile", "guarded_add", {"M": 4099, "N": 1001}, ["C"],
     dict(MB, work="3*A[0]*A[1]*2", ref="guarded_add", tol=1e-2)),
    ("guarded_4096x1024", "ho:simt2_guard.tile", "guarded_add", {"M": 4096, "N": 1024}, ["C"],
     dict(MB, work="3*A[0]*A[1]*2", ref="guarded_add", tol=1e-2)),
    # Odd row strides (simt4: realigned 16-byte vectors): both sizes odd,
    # a small instance, fp32 (4-element vectors).
    ("guarded_4097x999", "ho:simt2_guard.tile", "guarded_add", {"M": 4097, "N": 999}, ["C"],
     dict(MB, work="3*A[0]*A[1]*2", ref="guarded_add", tol=1e-2)),
    ("guarded_1001x1001", "ho:simt2_guard.tile", "guarded_add", {"M": 1001, "N": 1001}, ["C"],
     dict(MB, work="3*A[0]*A[1]*2", ref="guarded_add", tol=1e-2)),
    ("guarded_4099x1001_f32", "ho:simt2_guard.tile", "guarded_add",
     {"M": 4099, "N": 1001, "dtype": "float32"}, ["C"],
     dict(MB, work="3*A[0]*A[1]*4", ref="guarded_add", tol=1e-5)),
    # T.cumsum over fragments (prefix and suffix sums of each row).
    ("cumsum_4096x64", "ex:cumsum.tile", "cumsum", {}, ["Z"],
     dict(MB, work="3*X[0]*X[1]*4", tl_returns=True, ref="cumsum", tol=1e-5)),
    ("cumsum_1001x64", "ex:cumsum.tile", "cumsum", {"M": 1001}, ["Z"],
     dict(MB, work="3*X[0]*X[1]*4", tl_returns=True, ref="cumsum", tol=1e-5)),
    # The row-wise T.cumsum over 64x64 fp32 shared tiles of 1024x1024,
    # a column scan, a reverse max-scan, and odd sizes (partial tiles).
    ("scan_rows_1024", "ho:rel_scan.tile", "scan", {"M": 1024, "N": 1024, "dim": 1}, ["B"],
     dict(MB, work="2*A[0]*A[1]*4", ref="tile_scan", tol=1e-5)),
    ("scan_cols_1024", "ho:rel_scan.tile", "scan", {"M": 1024, "N": 1024, "dim": 0}, ["B"],
     dict(MB, work="2*A[0]*A[1]*4", ref="tile_scan", tol=1e-5)),
    ("cummax_rows_1024_rev", "ho:rel_scan.tile", "scan",
     {"M": 1024, "N": 1024, "dim": 1, "op": "max", "reverse": True}, ["B"],
     dict(MB, work="2*A[0]*A[1]*4", ref="tile_scan", tol=1e-5)),
    ("scan_odd_rows", "ho:rel_scan.tile", "scan",
     {"M": 1001, "N": 1003, "block_M": 40, "block_N": 100, "dim": 1}, ["B"],
     dict(MB, work="2*A[0]*A[1]*4", ref="tile_scan", tol=1e-5)),
    ("scan_odd_cols_rev_max", "ho:rel_scan.tile", "scan",
     {"M": 1001, "N": 1003, "block_M": 100, "block_N": 40, "dim": 0, "op": "max", "reverse": True},
     ["B"], dict(MB, work="2*A[0]*A[1]*4", ref="tile_scan", tol=1e-5)),
    # fp8 e4m3 GEMM, bf16 out: TileLang's example configuration (128x128,
    # 128 threads) at 4096^3 and 8192^3, and 128x256 with 256 threads.
    ("gemm_fp8_4096", "ex:gemm_fp8.tile", "matmul_fp8",
     {"M": 4096, "N": 4096, "K": 4096, "in_dtype": "float8_e4m3fn"}, ["C"], dict(FP8)),
    ("gemm_fp8_8192", "ex:gemm_fp8.tile", "matmul_fp8", {"in_dtype": "float8_e4m3fn"}, ["C"],
     dict(FP8)),
    ("gemm_fp8_8192_256", "ex:gemm_fp8.tile", "matmul_fp8",
     {"in_dtype": "float8_e4m3fn", "block_N": 256, "threads": 256, "num_stages": 3}, ["C"],
     dict(FP8)),
    # 384 threads (12 warps, np6): 192x256 blocks, FullRow (on sm_90a 3 wgmma
    # warpgroups of 64 rows, TileLang's split too; its Square search would
    # take 1x3 warpgroups of 85.3 columns). M = 4608 = 24 x 192; and the
    # 4096 of gemm_relu_big, whose last row of blocks is partial.
    ("gemm_relu_384t", "ho:np6_gemm_relu.tile", "matmul",
     {"M": 4608, "N": 4096, "K": 4096, "block_M": 192, "block_N": 256, "block_K": 64,
      "threads": 384, "num_stages": 3}, ["C"],
     dict(group="gemm", unit="TFLOP/s", work="2*A[0]*A[1]*B[1]", ref="gemm_relu", scale=0.1)),
    ("gemm_relu_384t_4096", "ho:np6_gemm_relu.tile", "matmul",
     {"block_M": 192, "block_N": 256, "block_K": 64, "threads": 384, "num_stages": 3}, ["C"],
     dict(group="gemm", unit="TFLOP/s", work="2*A[0]*A[1]*B[1]", ref="gemm_relu", scale=0.1)),
]
