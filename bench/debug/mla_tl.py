"""TileLang's own result for its persistent MLA decode example (T.sync_grid
between the split attention and the combine) against a float64 softmax
attention: the differential test said TileLang's and tilec's outputs differ
(rel. err 0.99) while tilec's matched float64 (bench/debug/conf10b_check.py,
mla group); this says whether TileLang's does. On the GPU machine with
TileLang on PYTHONPATH:
    python3 bench/debug/mla_tl.py KERNEL.tile
(KERNEL.tile: ../shared/conformance/kernels/deepseek_mla__example_mla_decode_persistent__flashattn.tile)
"""
import sys

import torch
import tilelang  # noqa: F401

src = open(sys.argv[1]).read()
ns = {}
exec(compile(src, sys.argv[1], "exec"), ns)
b, h, s, dim, pe, split = 128, 128, 8192, 512, 64, 2  # cases.tsv's -D values
kernel = ns["flashattn"](b, h, 1, s, dim, pe, 64, 64, split)
gen = torch.Generator(device="cuda")
gen.seed()


def randn(*shape):
    return torch.randn(*shape, generator=gen, device="cuda").half()


for run in range(2):  # twice: a grid barrier that only works once shows here
    q, q_pe = randn(b, h, dim), randn(b, h, pe)
    kv, k_pe = randn(b, s, 1, dim), randn(b, s, 1, pe)
    glse = torch.full((b, h, split), float("nan"), device="cuda", dtype=torch.half)
    part = torch.full((b, h, split, dim), float("nan"), device="cuda", dtype=torch.half)
    out = kernel(q, q_pe, kv, k_pe, glse, part)
    torch.cuda.synchronize()
    ref = torch.empty(b, h, dim, device="cuda", dtype=torch.float64)
    for i in range(0, b, 16):  # in slices: the float64 scores are large
        qq = torch.cat([q[i:i + 16], q_pe[i:i + 16]], -1).double()
        kk = torch.cat([kv[i:i + 16, :, 0], k_pe[i:i + 16, :, 0]], -1).double()
        p = torch.softmax(qq @ kk.transpose(1, 2) / (dim + pe) ** 0.5, -1)
        ref[i:i + 16] = p @ kv[i:i + 16, :, 0].double()
    err = (out.double() - ref).abs()
    bad = int((~(err <= 5e-3 + 2e-2 * ref.abs())).sum())
    print(f"tilelang mla persistent run {run}: mismatches {bad}/{out.numel()} "
          f"max err {float(err.max()):.3g} nan {int(out.isnan().sum())}", flush=True)
