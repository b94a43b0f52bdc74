"""GPU check of issue 15's fourth round (helper simt4): guarded elementwise
loops over rows whose stride is not a multiple of a 16-byte vector (odd N),
now 16-byte vectors cut at each row's 16-byte boundary, found at run time
(passes/RealignedLoops.cpp), next to their aligned twins; and sm_90a wgmma
GEMM loops whose rings do not fit, now pipelining fewer operands (B copied
in the body, fenced for wgmma's async proxy) against the same kernel with no
pipeline, with TMA (warp roles) and without (TL_DISABLE_TMA_LOWER, cp.async).

Two steps, from the repository root (bench/debug/simt4_check.sh wraps them):

    python3 bench/debug/simt4_check.py prepare [TILEC]  # build machine -> bench/.out/simt4_check
    python3 bench/debug/simt4_check.py run              # GPU machine, bench/.out carried

`run` is simt3_check's: every instance launched through the CUDA driver on
random inputs with the output poisoned with NaN, every element compared with
a float64 torch reference, the kernel timed (triton's do_bench median, L2
flushed) against torch's own operation and a device copy of the same bytes;
one table; exit status 1 if any element is wrong.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import simt3_check as s3  # noqa: E402

OUT = "bench/.out/simt4_check"


def guarded(m, n, **kw):
    name = f"guarded_{m}x{n}" + "".join(f"_{k}{v}" for k, v in kw.items())
    return dict(name=name, M=m, N=n, **kw)


GUARDED = [
    # Odd rows: realigned vectors.
    guarded(4099, 1001), guarded(4097, 999), guarded(1001, 1001), guarded(1001, 3),
    guarded(2053, 4097), guarded(4099, 1001, dtype="float16"),
    guarded(4099, 1001, dtype="float32"),
    guarded(4099, 1001, threads=128), guarded(4099, 1001, block_N=128),
    # Aligned rows (unchanged code): the references.
    guarded(4099, 1000), guarded(4096, 1024), guarded(2048, 4096),
]
GEMM = dict(M=2048, N=2048, K=2048, block_M=128, block_N=128, block_K=256, threads=256)
NO_TMA = f"{OUT}/gemm_relu_no_tma.tile"
WARN = "pipelining fewer operands: `A_shared` in 2 stages, `B_shared` copied"
GROUPS = [
    ("guard", "bench/debug/simt2_guard.tile", GUARDED, "add", "sm_90a", None),
    ("gemm_wgmma", "examples/gemm_relu.tile",
     [dict(name="gemm_wgmma_128x128x256_fewer_rings", num_stages=2, **GEMM)],
     "gemm_relu", "sm_90a", WARN),
    ("gemm_wgmma_one", "examples/gemm_relu.tile",
     [dict(name="gemm_wgmma_128x128x256_no_pipeline", num_stages=1, **GEMM)],
     "gemm_relu", "sm_90a", None),
    ("gemm_wgmma_no_tma", NO_TMA,
     [dict(name="gemm_wgmma_no_tma_128x128x256_fewer_rings", num_stages=2, **GEMM)],
     "gemm_relu", "sm_90a", WARN),
]


def prepare(tilec):
    os.makedirs(OUT, exist_ok=True)
    src = open("examples/gemm_relu.tile").read()
    decorated = src.replace(
        "\n@tilelang.jit\n",
        "\n@tilelang.jit(pass_configs={tilelang.PassConfigKey.TL_DISABLE_TMA_LOWER: True})\n")
    assert decorated != src
    with open(NO_TMA, "w") as f:
        f.write(decorated)
    return s3.prepare(tilec)


s3.OUT, s3.GROUPS = OUT, GROUPS

if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "prepare":
        sys.exit(prepare(sys.argv[2] if len(sys.argv) > 2 else "build/bin/tilec"))
    if len(sys.argv) >= 2 and sys.argv[1] == "run":
        sys.exit(s3.run())
    print(__doc__)
    sys.exit(2)
