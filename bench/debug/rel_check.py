"""GPU check of issue 12's two wrong-result bugs: T.cumsum / T.cummax along
either dim of a 2-D tile (shared or fragment, forward and reverse), and
block-wide ops under `if tx < 128:`-style guards in a 256-thread block.

Two steps, from the repository root:

    python3 bench/debug/rel_check.py prepare   # build machine: tilec -> bench/.out/rel
    python3 bench/debug/rel_check.py run       # GPU machine, bench/.out carried

`prepare` compiles bench/debug/rel_scan.tile and rel_guard.tile with
--instances (one PTX + metadata JSON each); `run` launches every instance
through bench/tilec_launch.py on random inputs (outputs poisoned with NaN),
compares every element with a float64 torch reference and prints a table;
the exit status is 1 if any case is wrong.
"""
import json
import os
import subprocess
import sys

OUT = "bench/.out/rel"

# (name, parameters) of rel_scan.tile; M, N, block sizes as TileLang's tests.
SCANS = []
for op in ("sum", "max"):
    for scope in ("shared", "fragment"):
        for dim in (0, 1):
            for reverse in (False, True):
                SCANS.append((f"{op}_{scope}_d{dim}{'_rev' if reverse else ''}",
                              dict(op=op, scope=scope, dim=dim, reverse=reverse)))
SCANS += [
    ("sum_shared_d0_192x160", dict(M=192, N=160, block_M=64, block_N=32, dim=0)),
    ("sum_shared_d0_rev_192x160", dict(M=192, N=160, block_M=64, block_N=32, dim=0, reverse=True)),
    ("sum_fragment_d0_128", dict(M=128, N=128, scope="fragment", dim=0)),
]
GUARDS = [(f"guard_mode{m}", dict(mode=m)) for m in range(5)]


def prepare(tilec):
    os.makedirs(OUT, exist_ok=True)
    ok = True
    for stem, cases in (("rel_scan", SCANS), ("rel_guard", GUARDS)):
        instances = [dict(name=name, **params) for name, params in cases]
        inst = f"{OUT}/{stem}.instances.json"
        with open(inst, "w") as f:
            json.dump(instances, f)
        r = subprocess.run([tilec, f"bench/debug/{stem}.tile", "--target", "sm_90a",
                            "--instances", inst, "-o", f"{OUT}/{stem}.ptx",
                            "--json", f"{OUT}/{stem}.json"], capture_output=True, text=True)
        print(f"prepare: {stem}: {'ok' if r.returncode == 0 else 'FAILED'} "
              f"({len(instances)} instances) {r.stderr.strip()[:400]}")
        ok &= r.returncode == 0
    return 0 if ok else 1


def scan_reference(a, p, bm, bn):
    import torch
    dim, reverse, op = p.get("dim", 0), p.get("reverse", False), p.get("op", "sum")
    ref = torch.empty_like(a)
    for i in range(0, a.shape[0], bm):
        for j in range(0, a.shape[1], bn):
            t = a[i:i + bm, j:j + bn]
            if reverse:
                t = t.flip(dims=[dim])
            t = t.cumsum(dim) if op == "sum" else t.cummax(dim).values
            if reverse:
                t = t.flip(dims=[dim])
            ref[i:i + bm, j:j + bn] = t
    return ref


def run():
    import torch
    sys.path.insert(0, "bench")
    from tilec_launch import Module

    torch.manual_seed(0)
    rows, bad = [], 0
    for stem, cases in (("rel_scan", SCANS), ("rel_guard", GUARDS)):
        mod = Module(f"{OUT}/{stem}.ptx", f"{OUT}/{stem}.json")
        for name, p in cases:
            fn = mod.functions[name]
            m, n = (int(x) for x in fn["params"][0]["shape"])
            a = torch.randn(m, n, device="cuda", dtype=torch.float32)
            b = torch.full_like(a, float("nan"))
            mod(name, a, b)
            a64 = a.double()
            if stem == "rel_scan":
                ref = scan_reference(a64, p, p.get("block_M", 64), p.get("block_N", 64))
            else:
                ref = a64 * 2 if p["mode"] == 3 else a64
            got = b.double()
            wrong = (~torch.isclose(got, ref, rtol=1e-5, atol=1e-4)).sum().item()
            err = ((got - ref).norm() / ref.norm()).item()
            ok = wrong == 0
            bad += not ok
            rows.append((name, f"{m}x{n}", f"{err:.2e}", wrong, m * n, "ok" if ok else "WRONG"))
    print("| case | shape | rel. error | wrong elements | elements | verdict |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(str(x) for x in r) + " |")
    print(f"rel_check: {len(rows) - bad}/{len(rows)} right")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "prepare":
        sys.exit(prepare(sys.argv[2] if len(sys.argv) > 2 else "build/bin/tilec"))
    if len(sys.argv) >= 2 and sys.argv[1] == "run":
        sys.exit(run())
    print(__doc__)
    sys.exit(2)
