"""Runs tilec's examples/mla_decode.tile kernels N times on fresh random
inputs, for a profiler to attach to (ncu, nsys) on the GPU machine:
    python3 bench/debug/mla_run.py PTX JSON [N]
The output is checked once against the float64 reference, as mla_check.py
does, so a profiled run is also a correct one."""
import sys

import torch

sys.path.insert(0, "bench")
from tilec_launch import Module  # noqa: E402

ptx, meta = sys.argv[1], sys.argv[2]
repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 1
torch.manual_seed(0)
mod = Module(ptx, meta)
fn = mod.meta["functions"][0]
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
print(f"{fn['name']}: {b}x{h}x{s} rel err {err:.2e}, NaN {out.isnan().sum().item()}, ok {err < 2e-3}")
