"""GPU check of issue 15's guarded odd sizes (helper guard6): strided
T.Parallel loops of one element per thread and step under bounds checks
(`if r < M and c < N:`), now every step's loads under its checks first and
then every step's stores, with no all-steps test (passes/GuardedSteps.cpp),
next to the aligned twins whose 16-byte vectors keep the all-steps test.
The instances cover the side-by-side cases, partial last steps (a block of
25x40 = 1000 iterations over 256 threads), 128 threads (64 steps), narrow
tensors (1001x3) and every dtype.

Two steps, from the repository root:

    python3 bench/debug/guard6_check.py prepare [TILEC]  # build machine -> bench/.out/guard6_check
    python3 bench/debug/guard6_check.py run              # GPU machine, bench/.out carried

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

OUT = "bench/.out/guard6_check"


def guarded(m, n, **kw):
    name = f"guarded_{m}x{n}" + "".join(f"_{k}{v}" for k, v in kw.items())
    return dict(name=name, M=m, N=n, **kw)


GUARDED = [
    # One element per thread and step (odd rows): the new form.
    guarded(4099, 1001), guarded(4097, 999), guarded(1001, 1001), guarded(1001, 3),
    guarded(2053, 4097), guarded(4099, 1001, dtype="float16"),
    guarded(4099, 1001, dtype="float32"), guarded(4099, 1001, threads=128),
    guarded(4099, 1001, block_N=128),
    # Partial last steps: 1000 iterations over 256 threads (4 steps, the
    # last with 232), in blocks at the edges and inside.
    guarded(1001, 1001, block_M=25, block_N=40), guarded(4099, 1001, block_M=25, block_N=40),
    guarded(97, 1003, block_M=25, block_N=40, dtype="float32"),
    # Aligned rows (16-byte vectors, the all-steps test kept): the references.
    guarded(4099, 1000), guarded(4096, 1024), guarded(2048, 4096),
]
GROUPS = [("guard", "bench/debug/simt2_guard.tile", GUARDED, "add", "sm_90a", None)]

s3.OUT, s3.GROUPS = OUT, GROUPS

if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "prepare":
        sys.exit(s3.prepare(sys.argv[2] if len(sys.argv) > 2 else "build/bin/tilec"))
    if len(sys.argv) >= 2 and sys.argv[1] == "run":
        sys.exit(s3.run())
    print(__doc__)
    sys.exit(2)
