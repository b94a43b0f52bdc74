"""Checks T.Pipelined schedules written with order/stage/group on the GPU
machine (test/Passes/Inputs/pipelined-schedule.tile): each variant's
C = A @ B against torch in float64 on fresh random inputs, every element,
C poisoned with NaN first. Run from the repository root with the PTX and
JSON that bench/session-prepare.sh writes to bench/.session/sched/."""
import glob
import os
import sys

import torch

sys.path.insert(0, "bench")
from tilec_launch import Module  # noqa: E402

torch.manual_seed(1)
rows = []
for ptx in sorted(glob.glob("bench/.session/sched/*.ptx")):
    name = os.path.basename(ptx)[:-4]
    mod = Module(ptx, ptx[:-4] + ".json")
    fn = mod.meta["functions"][0]
    shapes = {p["name"]: [int(x) for x in p["shape"]] for p in fn["params"]}
    m, k = shapes["A"]
    n = shapes["B"][1]
    f16 = dict(device="cuda", dtype=torch.float16)
    a, b = torch.randn(m, k, **f16), torch.randn(k, n, **f16)
    c = torch.full((m, n), float("nan"), **f16)
    mod(fn["name"], a, b, c)
    ref = a.double() @ b.double()
    err = ((c.double() - ref).abs().max() / ref.abs().max()).item()
    ok = not c.isnan().any().item() and err < 2e-3
    rows.append((name, f"{m}x{n}x{k}", f"{err:.2e}", ok))
print(f"{'variant':<24} {'size':<16} {'max rel err':<12} ok")
for r in rows:
    print(f"{r[0]:<24} {r[1]:<16} {r[2]:<12} {r[3]}")
sys.exit(0 if rows and all(r[3] for r in rows) else 1)
