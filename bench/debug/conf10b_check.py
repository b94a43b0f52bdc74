"""GPU check of conf10b's kernels (bench/debug/conf10b_check.sh builds them
and libconf10b.so, which wraps their launch headers for ctypes).

    python3 bench/debug/conf10b_check.py bench/.out/conf10b_check

Every case draws fresh random inputs (torch, never zeros), poisons the
outputs with NaN, launches the tilec kernel through its generated header
(torch's context, default stream) and compares every output element with a
float64 torch reference:

- conv / analyze (TileLang's examples/convolution and analyze): NHWC data,
  (KH, KW, C, F) filter, NHWC output, against torch.nn.functional.conv2d on
  the NCHW / (F, C, KH, KW) permutations, as the example's main() does;
  sizes with partial tiles in pixels, reduction and filters, and
  stride 2 / dilation 2 / padding 2 for the second instance;
- pgemm (examples/gemm matmul_persistent, T.Persistent over 132 blocks):
  A @ B, including sizes that leave partial tiles and several waves;
- mla (examples/deepseek_mla persistent decoding: split attention, then
  T.sync_grid, then the combine of the splits by every block):
  softmax((q kv^T + q_pe k_pe^T) / sqrt(576)) kv;
- mirror (test/Frontend/tilelang/sync-grid.tile): Y[i] = 2 X[n - 1 - i],
  each block reading what other blocks wrote before T.sync_grid; and a grid
  larger than the device holds at once, which the header must reject
  before launching (rc 1, CUDA_ERROR_INVALID_VALUE).

Prints `| case | elements | mismatches | max error | verdict |` and `all
ok` last when everything matched; exit status 1 otherwise.
"""
import ctypes
import sys

import torch
import torch.nn.functional as F

out_dir = sys.argv[1] if len(sys.argv) > 1 else "bench/.out/conf10b_check"
# Which groups to run (conv,pgemm,mla,mirror; all by default): each group
# runs in its own process under a timeout, so a hang names its group.
groups = sys.argv[2].split(",") if len(sys.argv) > 2 else ["conv", "pgemm", "mla", "mirror"]
torch.cuda.init()
torch.empty(1, device="cuda")  # makes the primary context current
lib = ctypes.CDLL(f"{out_dir}/libconf10b.so")
gen = torch.Generator(device="cuda")
gen.seed()  # fresh inputs every run
rows = []
all_ok = True


def call(name, *args):
    fn = getattr(lib, name)
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_uint64] * len(args)
    conv = [a.data_ptr() if isinstance(a, torch.Tensor) else a for a in args]
    rc = fn(*[ctypes.c_uint64(v & (2**64 - 1)) for v in conv])
    torch.cuda.synchronize()
    if rc != 0:
        status = getattr(lib, name + "_status")
        status.restype = ctypes.c_char_p
        return rc, status().decode()
    return rc, "ok"


def randn(*shape):
    return torch.randn(*shape, generator=gen, device="cuda", dtype=torch.float32).half()


def compare(case, got, ref, atol, rtol):
    global all_ok
    got64 = got.double()
    err = (got64 - ref).abs()
    bad = ~(err <= atol + rtol * ref.abs())  # NaN counts as bad
    n_bad = int(bad.sum())
    max_err = float(torch.nan_to_num(err, nan=float("inf")).max())
    ok = n_bad == 0
    all_ok &= ok
    row = (case, got.numel(), n_bad, f"{max_err:.3g}", "ok" if ok else "FAIL")
    rows.append(row)
    print("<!-- " + " | ".join(str(x) for x in row) + " -->", flush=True)


def failed(case, why):
    global all_ok
    all_ok = False
    rows.append((case, 0, "-", "-", "FAIL: " + why))
    print(f"<!-- {case}: FAIL: {why} -->", flush=True)


def conv_case(name, n, c, h, w, f, k, s, d, p):
    data = randn(n, h, w, c)
    kernel = randn(k, k, c, f)
    oh = (h + 2 * p - d * (k - 1) - 1) // s + 1
    ow = (w + 2 * p - d * (k - 1) - 1) // s + 1
    out = torch.full((n, oh, ow, f), float("nan"), device="cuda", dtype=torch.half)
    case = f"{name} N{n} C{c} H{h} W{w} F{f} K{k} S{s} D{d} P{p}"
    rc, why = call(name, data, kernel, out, n, c, h, w, f, k)
    if rc:
        return failed(case, f"rc {rc}: {why}")
    ref = F.conv2d(data.double().permute(0, 3, 1, 2), kernel.double().permute(3, 2, 0, 1),
                   stride=s, padding=p, dilation=d).permute(0, 2, 3, 1)
    compare(case, out, ref, atol=2e-2, rtol=1e-2)


for name, s, d, p in [] if "conv" not in groups else [("conv_sm90", 1, 1, 1), ("conv_sm80", 1, 1, 1), ("analyze_sm90", 1, 1, 1),
                      ("conv2_sm90", 2, 2, 2)]:
    conv_case(name, 8, 64, 32, 32, 128, 3, s, d, p)     # the example's sizes, scaled down
    conv_case(name, 3, 40, 17, 13, 200, 3, s, d, p)     # partial tiles everywhere
    conv_case(name, 2, 16, 9, 11, 64, 5, s, d, p)       # a larger filter, C < block_K


def pgemm_case(name, m, n, k):
    a, b = randn(m, k), randn(k, n)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.half)
    case = f"{name} {m}x{n}x{k}"
    rc, why = call(name, a, b, c, m, n, k)
    if rc:
        return failed(case, f"rc {rc}: {why}")
    compare(case, c, a.double() @ b.double(), atol=5e-2, rtol=1e-2)


for name in ["pgemm_sm90", "pgemm_sm80"] if "pgemm" in groups else []:
    pgemm_case(name, 4096, 4096, 1024)  # 32 x 16 = 512 tiles: 4 waves of 132
    pgemm_case(name, 1000, 1100, 520)   # partial tiles in M, N and K
    pgemm_case(name, 128, 256, 64)      # one tile: 131 blocks idle


def mla_case():
    b, h, s, dim, pe, split = 128, 128, 8192, 512, 64, 2
    q, q_pe = randn(b, h, dim), randn(b, h, pe)
    kv, k_pe = randn(b, s, 1, dim), randn(b, s, 1, pe)
    glse = torch.full((b, h, split), float("nan"), device="cuda", dtype=torch.half)
    part = torch.full((b, h, split, dim), float("nan"), device="cuda", dtype=torch.half)
    out = torch.full((b, h, dim), float("nan"), device="cuda", dtype=torch.half)
    case = f"mla_sm90 b{b} h{h} s{s} (T.sync_grid)"
    rc, why = call("mla_sm90", q, q_pe, kv, k_pe, glse, part, out)
    if rc:
        return failed(case, f"rc {rc}: {why}")
    ref = torch.empty(b, h, dim, device="cuda", dtype=torch.float64)
    for i in range(0, b, 16):  # in slices: the float64 scores are large
        qq = torch.cat([q[i:i + 16], q_pe[i:i + 16]], -1).double()
        kk = torch.cat([kv[i:i + 16, :, 0], k_pe[i:i + 16, :, 0]], -1).double()
        p = torch.softmax(qq @ kk.transpose(1, 2) / (dim + pe) ** 0.5, -1)
        ref[i:i + 16] = p @ kv[i:i + 16, :, 0].double()
    compare(case, out, ref, atol=5e-3, rtol=2e-2)


if "mla" in groups:
    mla_case()


def mirror_case(name, n):
    x = randn(n)
    w = torch.full((n,), float("nan"), device="cuda", dtype=torch.float32)
    y = torch.full((n,), float("nan"), device="cuda", dtype=torch.float32)
    x = x.float()
    case = f"{name} n={n} ({(n + 127) // 128} blocks)"
    rc, why = call(name, x, w, y, n)
    if rc:
        return failed(case, f"rc {rc}: {why}")
    compare(case, y, (2.0 * x.double()).flip(0), atol=0, rtol=0)


def mirror_too_large(name):
    global all_ok
    n = 128 * 100000  # 100000 blocks of 128 threads: more than any device holds
    x = torch.ones(n, device="cuda")
    w = torch.empty_like(x)
    y = torch.empty_like(x)
    rc, why = call(name, x, w, y, n)
    ok = rc == 1 and "resident at once" in why
    all_ok &= ok
    rows.append((f"{name} 100000 blocks rejected", 0, 0 if ok else 1, "-",
                 "ok" if ok else f"FAIL: rc {rc}: {why}"))
    print(f"<!-- {name} oversized grid: rc {rc}: {why} -->")


for name in ["mirror_sm90", "mirror_sm80"] if "mirror" in groups else []:
    mirror_case(name, 128 * 132)
    mirror_case(name, 128 * 1000 - 37)
    mirror_too_large(name)
# One grid size per run (MIRROR_BLOCKS): which sizes the grid barrier
# completes at, each under its own timeout.
for blocks in [int(b) for b in groups[1:]] if groups[0] == "mirror_n" else []:
    mirror_case("mirror_sm90", 128 * blocks)

print("| case | elements | mismatches | max error | verdict |")
print("|---|---|---|---|---|")
for r in rows:
    print("| " + " | ".join(str(x) for x in r) + " |")
print("all ok" if all_ok else "FAILED")
sys.exit(0 if all_ok else 1)
