"""Checks examples/mla_decode.tile against torch on the GPU machine.
Run from the repository root after bench/prepare.sh (which compiles
bench/.out/mla_decode.{ptx,json}): prints the relative error of the output
against softmax((Q KV^T + Q_pe K_pe^T) / sqrt(576)) KV in float64.
    python3 bench/debug/mla_check.py [PTX JSON [REPEAT]]
checks another build, each function launched REPEAT times before the
check (for a profiler to attach to: ncu, nsys)."""
import sys

import torch

sys.path.insert(0, "bench")
from tilec_launch import Module  # noqa: E402

torch.manual_seed(0)
paths = sys.argv[1:3] or ["bench/.out/mla_decode.ptx", "bench/.out/mla_decode.json"]
repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 1
mod = Module(*paths)
for fn in mod.meta["functions"]:
    shapes = {p["name"]: [int(x) for x in p["shape"]] for p in fn["params"]}
    b, h, d = shapes["Q"]
    s, pe = shapes["KV"][1], shapes["Q_pe"][2]
    num_split = shapes["glse"][1]
    f16 = dict(device="cuda", dtype=torch.float16)
    q, q_pe = torch.randn(b, h, d, **f16), torch.randn(b, h, pe, **f16)
    kv, k_pe = torch.randn(b, s, d, **f16), torch.randn(b, s, pe, **f16)
    glse = torch.full((b, num_split, h), float("nan"), device="cuda")
    o_partial = torch.full((b, num_split, h, d), float("nan"), device="cuda")
    out = torch.full((b, h, d), float("nan"), **f16)
    for _ in range(repeat):
        mod(fn["name"], q, q_pe, kv, k_pe, glse, o_partial, out)
    torch.cuda.synchronize()
    scores = (q.double() @ kv.double().transpose(1, 2) +
              q_pe.double() @ k_pe.double().transpose(1, 2)) / (d + pe) ** 0.5
    ref = torch.softmax(scores, dim=-1) @ kv.double()
    err = ((out.double() - ref).norm() / ref.norm()).item()
    print(f"{fn['name']}: {b}x{h}x{s} rel err {err:.2e}, "
          f"NaN {out.isnan().sum().item()}, ok {err < 2e-3}")
