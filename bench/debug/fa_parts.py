"""Checks the pieces of FlashAttention (bench/debug/fa_parts.tile) against
torch on the GPU machine. Run from the repository root after
`tilec bench/debug/fa_parts.tile -o bench/.out/fa_parts.ptx --json bench/.out/fa_parts.json`."""
import sys

import torch

sys.path.insert(0, "bench")
from tilec_launch import Module  # noqa: E402

torch.manual_seed(0)
mod = Module("bench/.out/fa_parts.ptx", "bench/.out/fa_parts.json")
M, N, D = 64, 64, 128
scale = (1.0 / D) ** 0.5 * 1.44269504
q = torch.randn(M, D, device="cuda", dtype=torch.float16)
k = torch.randn(N, D, device="cuda", dtype=torch.float16)
v = torch.randn(N, D, device="cuda", dtype=torch.float16)


def rel(a, b):
    return ((a.double() - b.double()).norm() / b.double().norm()).item()


for mode, name in [(0, "gemms"), (1, "softmax")]:
    s = torch.full((M, N), float("nan"), device="cuda")
    o = torch.full((M, D), float("nan"), device="cuda")
    r = torch.full((M,), float("nan"), device="cuda")
    mod(name, q, k, v, s, o, r)
    ref_s = q.float() @ k.float().T
    if mode == 1:
        rowmax = ref_s.max(dim=1, keepdim=True).values
        ref_s = torch.exp2(ref_s * scale - rowmax * scale)
    ref_o = ref_s.half().float() @ v.float()
    print(f"{name}: S rel err {rel(s, ref_s):.2e} (nan {s.isnan().sum().item()}), "
          f"O rel err {rel(o, ref_o):.2e} (nan {o.isnan().sum().item()})", end="")
    if mode == 1:
        print(f", row sum rel err {rel(r, ref_s.sum(dim=1)):.2e} (nan {r.isnan().sum().item()})")
    else:
        print()
    if mode == 0 and rel(s, ref_s) > 1e-3:
        bad = (s - ref_s).abs() > 1e-2 * ref_s.abs().max()
        print("  wrong S elements:", bad.sum().item(), "first rows/cols:",
              bad.nonzero()[:8].tolist())
