"""GPU check of issue 15's guarded elementwise kernels (helper guard7):
kernels whose unrolled steps issue their loads ahead of their stores now ask
ptxas for the registers those loads fill (`.minnctapersm`, LowerParallel.cpp
askLoadRegisters): the guarded 1001x1001 bf16 kernel's 64 loads then issue
in one wave (72 registers) instead of five (46). This times, in one process
and on the same inputs, each instance compiled as tilec now compiles it
(`asked`), with the hint removed (`none`: the PTX before this change,
byte for byte), and with 4 blocks asked (`min4`: 64 registers a thread of
256, the occupancy TileLang's 56 registers give), `asked` again last to
show the run-to-run noise. The driver JIT-compiles each PTX (ptxas at -O3).

Two steps, from the repository root:

    python3 bench/debug/guard7_check.py prepare [TILEC]  # build machine -> bench/.out/guard7_check
    python3 bench/debug/guard7_check.py run              # GPU machine, bench/.out carried

`run` is simt3_check's: every instance launched through the CUDA driver on
random inputs with the output poisoned with NaN, every element compared with
a float64 torch reference, the kernel timed (triton's do_bench median, L2
flushed) against torch's own operation and a device copy of the same bytes;
one table (a case's name ends in its variant), then one line per instance
comparing the variants' times (`none / asked` above 1: the hint made the
kernel faster; `asked` is the faster of its two runs); exit status 1 if
any element is wrong.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import simt3_check as s3  # noqa: E402

OUT = "bench/.out/guard7_check"
SRC = "bench/debug/simt2_guard.tile"


def guarded(m, n, **kw):
    return dict(name=f"guarded_{m}x{n}" + "".join(f"_{k}{v}" for k, v in kw.items()), M=m, N=n, **kw)


INSTANCES = [
    # The side-by-side cases (bench/debug/sxs_cases.py).
    guarded(1001, 1001), guarded(4099, 1001), guarded(4097, 999),
    guarded(4099, 1001, dtype="float32"), guarded(4099, 1000), guarded(4096, 1024),
    # 128 threads (64 steps, 144 registers asked for), a partial last step,
    # a large grid.
    guarded(4099, 1001, threads=128), guarded(1001, 1001, block_M=25, block_N=40),
    guarded(2053, 4097),
]
# Variant -> what becomes of each kernel's `.minnctapersm` line.
VARIANTS = [("asked", None), ("none", ""), ("min4", ".minnctapersm 4"), ("asked2", None)]


def named(variant):
    return [dict(p, name=f"{p['name']}__{variant}") for p in INSTANCES]


GROUPS = [(f"guard_{v}", SRC, named(v), "add", "sm_90a", None) for v, _ in VARIANTS]
s3.OUT, s3.GROUPS = OUT, GROUPS


def rewrite(path, line):
    """Replaces (or adds after `.maxntid`, or with "" removes) every
    kernel's `.minnctapersm` line of the PTX at `path`."""
    ptx = open(path).read()
    ptx = re.sub(r"^\.minnctapersm \d+\n", "", ptx, flags=re.M)
    if line:
        ptx = re.sub(r"^(\.maxntid [^\n]*\n)", r"\1" + line + "\n", ptx, flags=re.M)
    open(path, "w").write(ptx)


def prepare(tilec):
    status = s3.prepare(tilec)
    for v, line in VARIANTS:
        if line is not None:
            rewrite(f"{OUT}/guard_{v}.ptx", line)
        hints = re.findall(r"^\.minnctapersm (\d+)", open(f"{OUT}/guard_{v}.ptx").read(), re.M)
        print(f"prepare: {v}: .minnctapersm per kernel {hints or 'none'}")
    return status


def run():
    import contextlib
    import io

    class Tee(io.StringIO):
        """Keeps what simt3_check prints and prints it as it comes."""

        def write(self, s):
            sys.__stdout__.write(s)
            sys.__stdout__.flush()
            return super().write(s)

    buf = Tee()
    with contextlib.redirect_stdout(buf):
        status = s3.run()
    text = buf.getvalue()
    ms = {}
    for line in text.splitlines():
        if line.startswith("{"):
            r = json.loads(line)
            base, v = r["case"].rsplit("__", 1)
            ms.setdefault(base, {})[v] = r["ms"]
    print("\n| case | " + " | ".join(f"{v} ms" for v, _ in VARIANTS) + " | none / asked | min4 / asked |")
    print("|---|" + "---|" * (len(VARIANTS) + 2))
    for base, t in ms.items():
        asked = min(t.get("asked", 1e9), t.get("asked2", 1e9))
        cells = [f"{t[v]:.4f}" if v in t else "-" for v, _ in VARIANTS]
        print(f"| {base} | " + " | ".join(cells) +
              f" | {t.get('none', 0) / asked:.2f}x | {t.get('min4', 0) / asked:.2f}x |")
    return status


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "prepare":
        sys.exit(prepare(sys.argv[2] if len(sys.argv) > 2 else "build/bin/tilec"))
    if len(sys.argv) >= 2 and sys.argv[1] == "run":
        sys.exit(run())
    print(__doc__)
    sys.exit(2)
