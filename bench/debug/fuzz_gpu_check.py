"""GPU check of the pipeline fuzzer's kernels (issue 12, item 7): a few
hundred random valid kernels (tools/tilec-fuzz/kernelgen.py: elementwise
trees on global memory or through shared / fragment tiles, int32
arithmetic, transposes, reductions, scans, GEMM tiles with epilogues,
per-thread loops) run on the GPU, every element of every output compared
with a float64 (int64) numpy reference.

Two steps, from the repository root:

    python3 bench/debug/fuzz_gpu_check.py prepare [TILEC] [COUNT] [FIRST_SEED]
        # build machine: kernels -> bench/.out/fuzzgpu (default 300 from seed 1)
    python3 bench/debug/fuzz_gpu_check.py run
        # GPU machine, bench/.out carried; prints a table, exit 1 if any is wrong
    python3 bench/debug/fuzz_gpu_check.py selftest
        # build machine: runs every reference on its inputs (no GPU, numpy)

`prepare` writes one PTX (sm_90a) + metadata JSON per kernel and a manifest
holding each kernel's tensors, reference (numpy source) and tolerances, so
`run` needs neither the generator nor tilec: only torch, numpy,
bench/tilec_launch.py and the files under bench/.out/fuzzgpu. Inputs are
drawn from a numpy generator seeded with the kernel's seed (floats uniform
in [-1, 1], rounded to the tensor's dtype on the device and read back, so the
reference sees exactly what the kernel read; int32 in [-100, 100]); outputs
start as NaN (int32: -123456789), so an element the kernel never writes is
wrong.
"""
import json
import math
import os
import subprocess
import sys

OUT = "bench/.out/fuzzgpu"
EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23,
       "int32": 0.0}


def prepare(tilec, count, first):
    sys.path.insert(0, "tools/tilec-fuzz")
    import kernelgen
    os.makedirs(OUT, exist_ok=True)
    manifest, failed = [], 0
    seed = first
    while len(manifest) + failed < count:
        spec = kernelgen.generate(seed)
        seed += 1
        if spec["dynamic"]:
            continue  # bench/tilec_launch.py launches static kernels only
        stem = f"{OUT}/{spec['name']}"
        with open(stem + ".tile", "w") as f:
            f.write(spec["source"])
        r = subprocess.run([tilec, stem + ".tile", "--target", "sm_90a", "-o", stem + ".ptx",
                            "--json", stem + ".json"], capture_output=True, text=True)
        if r.returncode != 0:
            failed += 1
            print(f"prepare: {spec['name']}: FAILED {r.stderr.strip()[:300]}")
            continue
        spec["seed"] = seed - 1
        manifest.append(spec)
    with open(f"{OUT}/manifest.json", "w") as f:
        json.dump(manifest, f, indent=1)
    print(f"prepare: {len(manifest)} kernels compiled, {failed} failed -> {OUT}")
    return 1 if failed else 0


def make_inputs(spec):
    """numpy arrays (float32 / int32) for every input, from the seed."""
    import numpy as np
    rng = np.random.default_rng(spec["seed"])
    arrays = {}
    for t in spec["tensors"]:
        if t["output"]:
            continue
        if t["dtype"] == "int32":
            arrays[t["name"]] = rng.integers(-100, 101, size=t["shape"], dtype=np.int32)
        else:
            arrays[t["name"]] = rng.uniform(-1.0, 1.0, size=t["shape"]).astype(np.float32)
    return arrays


def reference(spec, inputs64):
    import numpy as np
    scope = {"np": np}
    exec(spec["reference"], scope)
    return {k: np.asarray(v) for k, v in scope["reference"](inputs64).items()}


def compare(spec, t, got, ref):
    """(wrong elements, max abs error) of output tensor `t`."""
    import numpy as np
    tol = spec["tol"]
    ref = np.broadcast_to(ref, got.shape).astype(np.float64)
    err = np.abs(got - ref)
    # atol scales with the output's magnitude (cancellation in the kernel's
    # own precision is relative to the operands, not to the result).
    scale = max(1.0, float(np.nanmax(np.abs(ref)))) if ref.size else 1.0
    bound = tol["atol"] * scale + (tol["rtol"] + EPS[t["dtype"]]) * np.abs(ref)
    bad = ~(err <= bound)  # NaN counts as wrong
    bad &= ~(np.isnan(got) & np.isnan(ref))
    finite = err[np.isfinite(err)]
    return int(bad.sum()), float(finite.max()) if finite.size else math.inf


def selftest():
    import numpy as np
    specs = json.load(open(f"{OUT}/manifest.json"))
    bad = 0
    for spec in specs:
        inputs = {k: v.astype(np.int64 if v.dtype == np.int32 else np.float64)
                  for k, v in make_inputs(spec).items()}
        try:
            refs = reference(spec, inputs)
            for t in spec["tensors"]:
                if t["output"]:
                    shape = tuple(np.broadcast_to(refs[t["name"]], t["shape"]).shape)
                    assert shape == tuple(t["shape"]), (shape, t["shape"])
                    assert np.isfinite(refs[t["name"]]).all()
                    # The reference rounded to the output dtype passes, a
                    # wrong element does not.
                    got = np.broadcast_to(refs[t["name"]], t["shape"]).astype(
                        np.float32 if t["dtype"] != "int32" else np.int64).astype(np.float64)
                    assert compare(spec, t, got, refs[t["name"]])[0] == 0
                    got = got.copy()
                    got.flat[got.size // 2] += 1.0 + abs(got.flat[got.size // 2])
                    assert compare(spec, t, got, refs[t["name"]])[0] == 1
        except Exception as e:  # noqa: BLE001
            bad += 1
            print(f"selftest: {spec['name']}: {type(e).__name__}: {e}")
    print(f"selftest: {len(specs) - bad}/{len(specs)} references run")
    return 1 if bad else 0


def run(only=None, skip=()):
    """Checks the prepared kernels (`only`: those names; `skip`: not these
    families). A kernel that faults poisons the CUDA context for the rest
    of the process: rerun the others with it skipped, or alone under
    compute-sanitizer."""
    import numpy as np
    import torch
    sys.path.insert(0, "bench")
    from tilec_launch import Module
    dtypes = {"float16": torch.float16, "bfloat16": torch.bfloat16,
              "float32": torch.float32, "int32": torch.int32}
    specs = json.load(open(f"{OUT}/manifest.json"))
    rows, wrong_kernels = [], 0
    specs = [s for s in specs if (not only or s["name"] in only)
             and s["name"].split("_", 1)[1] not in skip]
    for spec in specs:
        name = spec["name"]
        try:
            mod = Module(f"{OUT}/{name}.ptx", f"{OUT}/{name}.json")
            fn = mod.meta["functions"][0]
            arrays = make_inputs(spec)
            tensors, inputs64 = {}, {}
            for t in spec["tensors"]:
                if t["output"]:
                    fill = -123456789 if t["dtype"] == "int32" else float("nan")
                    tensors[t["name"]] = torch.full(t["shape"], fill, dtype=dtypes[t["dtype"]],
                                                    device="cuda")
                else:
                    x = torch.from_numpy(arrays[t["name"]]).to("cuda").to(dtypes[t["dtype"]])
                    tensors[t["name"]] = x
                    back = x.to(torch.int64 if t["dtype"] == "int32" else torch.float64)
                    inputs64[t["name"]] = back.cpu().numpy()
            mod(fn["name"], *[tensors[p["name"]] for p in fn["params"]])
            refs = reference(spec, inputs64)
            total, wrong, worst = 0, 0, 0.0
            for t in spec["tensors"]:
                if not t["output"]:
                    continue
                got = tensors[t["name"]].to(torch.float64).cpu().numpy()
                w, e = compare(spec, t, got, refs[t["name"]])
                total += got.size
                wrong += w
                worst = max(worst, e)
            verdict = "ok" if wrong == 0 else "WRONG"
        except Exception as e:  # noqa: BLE001
            total, wrong, worst, verdict = 0, -1, math.nan, f"ERROR {type(e).__name__}: {e}"[:120]
        wrong_kernels += verdict != "ok"
        shapes = " ".join("x".join(map(str, t["shape"])) for t in spec["tensors"])
        rows.append((name, shapes, total, wrong, f"{worst:.2e}", verdict))
    print("| kernel | shapes | elements | wrong | max abs error | verdict |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(str(x) for x in r) + " |")
    families = {}
    for r in rows:
        fam = r[0].split("_", 1)[1]
        ok, n = families.get(fam, (0, 0))
        families[fam] = (ok + (r[5] == "ok"), n + 1)
    for fam, (ok, n) in sorted(families.items()):
        print(f"fuzz_gpu_check: {fam}: {ok}/{n} right")
    print(f"fuzz_gpu_check: {len(rows) - wrong_kernels}/{len(rows)} kernels right, "
          f"{sum(r[2] for r in rows)} elements compared")
    return 1 if wrong_kernels else 0


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "prepare":
        sys.exit(prepare(sys.argv[2] if len(sys.argv) > 2 else "build/bin/tilec",
                         int(sys.argv[3]) if len(sys.argv) > 3 else 300,
                         int(sys.argv[4]) if len(sys.argv) > 4 else 1))
    if cmd == "run":
        # run [NAME ...] [--skip FAMILY,...]
        rest, skip = sys.argv[2:], ()
        if "--skip" in rest:
            i = rest.index("--skip")
            skip = tuple(rest[i + 1].split(","))
            rest = rest[:i] + rest[i + 2:]
        sys.exit(run(set(rest) or None, skip))
    if cmd == "selftest":
        sys.exit(selftest())
    print(__doc__)
    sys.exit(2)
