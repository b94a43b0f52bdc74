# GEMM configurations on sm_90a, tilec alone against cuBLAS in the same process
# (SXS_NO_TILELANG=1): python3 ../shared/sxs/prepare.py --extra bench/debug/gemm_configs.py
# --only <the names> --out .dev/sxs_c, then there SXS_NO_TILELANG=1 python3 sxs_tma.py gemmcfg.
G = dict(group="gemmcfg", unit="TFLOP/s", work="2*A[0]*A[1]*B[1]", scale=0.1, ref="gemm_relu")
CASES = []
for bm, bn, bk, th, st in [(128, 256, 64, 256, 3), (128, 256, 64, 256, 4), (256, 128, 64, 256, 3),
                           (256, 128, 64, 256, 4), (128, 256, 32, 256, 6), (256, 128, 32, 256, 6),
                           (128, 128, 64, 256, 4), (128, 128, 64, 128, 4)]:
    for dt in ["float16", "bfloat16"]:
        CASES.append((f"g_{bm}x{bn}x{bk}_t{th}_s{st}_{dt[:4]}", "ex:gemm_relu.tile", "matmul",
                      {"block_M": bm, "block_N": bn, "block_K": bk, "threads": th, "num_stages": st, "dtype": dt},
                      ["C"], dict(G)))
# 8192^3 at the two 128x256x64 depths (issue #10's cuBLAS ratio at both sizes).
for st in [3, 4]:
    for dt in ["float16", "bfloat16"]:
        CASES.append((f"g8k_128x256x64_t256_s{st}_{dt[:4]}", "ex:gemm_relu.tile", "matmul",
                      {"M": 8192, "N": 8192, "K": 8192, "block_M": 128, "block_N": 256, "block_K": 64,
                       "threads": 256, "num_stages": st, "dtype": dt}, ["C"], dict(G)))
