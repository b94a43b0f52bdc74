"""GPU check of issue 15's SIMT and memory-bound kernels: T.cumsum /
T.cummax (warp-level scans along either dimension, shared and fragment
sources, forward and reverse), guarded elementwise loops (bf16, odd sizes)
and the instances the tile does not divide (vector add of 1,000,003
elements, softmax 1001x4096, RMSNorm+SiLU 1001x4000), with their large
twins for scale.

Two steps, from the repository root (bench/debug/simt2_check.sh wraps them):

    python3 bench/debug/simt2_check.py prepare [TILEC]  # build machine -> bench/.out/simt2
    python3 bench/debug/simt2_check.py run              # GPU machine, bench/.out carried

`run` launches every instance through the CUDA driver (PTX + the metadata
JSON, as bench/tilec_launch.py does) on random inputs with the outputs
poisoned with NaN, compares every element with a float64 torch reference,
times the kernel (triton's do_bench median, L2 flushed, when triton is
there; CUDA events otherwise) against torch's own operation and a device
copy of the same number of bytes, and prints one table. Exit status 1 if
any element is wrong.
"""
import ctypes
import json
import os
import subprocess
import sys

OUT = "bench/.out/simt2"

# (stem, source, instances): each instance {"name": ..., params}; `check`
# names the reference, `time` marks the ones worth timing.
SCAN_SMALL = []
for op in ("sum", "max"):
    for scope in ("shared", "fragment"):
        for dim in (0, 1):
            for rev in (False, True):
                SCAN_SMALL.append(dict(name=f"scan_{op}_{scope}_d{dim}{'_rev' if rev else ''}",
                                       op=op, scope=scope, dim=dim, reverse=rev))
SCAN_BIG = [
    # The case: rows of a 1024x1024 fp32 tensor in 64x64 shared tiles.
    dict(name="scan_rows_1024", M=1024, N=1024, dim=1),
    dict(name="scan_cols_1024", M=1024, N=1024, dim=0),
    dict(name="scan_rows_1024_frag", M=1024, N=1024, dim=1, scope="fragment"),
    dict(name="scan_cols_1024_frag", M=1024, N=1024, dim=0, scope="fragment"),
    dict(name="cummax_rows_1024", M=1024, N=1024, dim=1, op="max"),
    dict(name="scan_rows_1024_rev", M=1024, N=1024, dim=1, reverse=True),
    # Long rows (4 x 1024 tiles: segments per row), tall columns (256 x 16).
    dict(name="scan_longrows", M=1024, N=1024, block_M=4, block_N=1024, dim=1),
    dict(name="scan_tallcols", M=1024, N=1024, block_M=256, block_N=16, dim=0),
    dict(name="scan_tallcols_rev", M=1024, N=1024, block_M=256, block_N=16, dim=0, reverse=True),
    # Partial tiles and odd tile widths (scalar lanes, masked vectors).
    dict(name="scan_odd_rows", M=1001, N=1003, block_M=40, block_N=100, dim=1),
    dict(name="scan_odd_cols", M=1001, N=1003, block_M=100, block_N=40, dim=0),
    dict(name="scan_odd_cols_rev", M=1001, N=1003, block_M=100, block_N=40, dim=0, reverse=True,
         op="max"),
    dict(name="cummax_fp16_rows", M=1024, N=1024, dim=1, op="max", dtype="float16"),
]
GUARDED = [
    dict(name="guarded_4099x1000", M=4099, N=1000),
    dict(name="guarded_4099x1001", M=4099, N=1001),
    dict(name="guarded_4096x1024", M=4096, N=1024),
]
GROUPS = [
    ("rel_scan", "bench/debug/rel_scan.tile", SCAN_SMALL + SCAN_BIG, "scan"),
    ("cumsum", "examples/cumsum.tile",
     [dict(name="cumsum_4096x64"), dict(name="cumsum_1001x64", M=1001)], "cumsum_example"),
    ("guard", "bench/debug/simt2_guard.tile", GUARDED, "add"),
    ("vector_add", "examples/vector_add.tile",
     [dict(name="vector_add_odd", N=1000003), dict(name="vector_add_268M", N=1 << 28)], "add"),
    ("softmax", "examples/softmax.tile",
     [dict(name="softmax_odd", M=1001, N=4096), dict(name="softmax_32k", M=32768, N=4096)], "softmax"),
    # The epilogue's exp and division are approximate by default when the
    # result is stored as fp16/bf16 (passes/NarrowMath.cpp): checked here
    # against float64, with the count of values off the correctly rounded one.
    ("gemm_bias_gelu", "examples/gemm_bias_gelu.tile",
     [dict(name="gemm_bias_gelu_4k", M=4096, N=4096, K=1024),
      dict(name="gemm_bias_gelu_4k_bf16", M=4096, N=4096, K=1024, dtype="bfloat16"),
      dict(name="gemm_bias_gelu_odd", M=1000, N=1000, K=1000)], "gelu"),
    ("rmsnorm_silu", "examples/rmsnorm_silu.tile",
     [dict(name="rmsnorm_silu_odd", M=1001, hidden=4000),
      dict(name="rmsnorm_silu_32k", M=32768, hidden=4096)], "rmsnorm_silu"),
]
TIMED_SCANS = {p["name"] for p in SCAN_BIG}


def prepare(tilec):
    os.makedirs(OUT, exist_ok=True)
    ok = True
    for stem, src, instances, _ in GROUPS:
        inst = f"{OUT}/{stem}.instances.json"
        with open(inst, "w") as f:
            json.dump(instances, f)
        r = subprocess.run([tilec, src, "--target", "sm_90a", "--instances", inst,
                            "-o", f"{OUT}/{stem}.ptx", "--json", f"{OUT}/{stem}.json"],
                           capture_output=True, text=True)
        print(f"prepare: {stem}: {'ok' if r.returncode == 0 else 'FAILED'} "
              f"({len(instances)} instances) {r.stderr.strip()[:400]}")
        ok &= r.returncode == 0
    return 0 if ok else 1


# ---------------------------------------------------------------- GPU side

def load_module(path_ptx, path_json):
    import torch
    cuda = ctypes.CDLL("libcuda.so.1")
    torch.zeros(1, device="cuda")  # torch's primary context is current
    meta = json.load(open(path_json))
    module = ctypes.c_void_p()
    image = open(path_ptx, "rb").read() + b"\0"
    status = cuda.cuModuleLoadData(ctypes.byref(module), image)
    if status:
        raise RuntimeError(f"cuModuleLoadData: {status}")
    return cuda, module, {f["name"]: f for f in meta["functions"]}


def launcher(cuda, module, fn, args):
    """A callable launching every kernel of `fn` on `args`, no sync."""
    # bench/tilec_launch.py (imports torch: GPU machine only).
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import tilec_launch
    keep, launches = [], []
    for kernel in fn["kernels"]:
        handle = ctypes.c_void_p()
        if cuda.cuModuleGetFunction(ctypes.byref(handle), module, kernel["entry"].encode()):
            raise RuntimeError("cuModuleGetFunction " + kernel["entry"])
        shared = int(kernel["dynamic_shared_bytes"])
        if shared > 0:
            cuda.cuFuncSetAttribute(handle, 8, shared)
        # Tensor-map (TMA) arguments are encoded as the launch header does.
        ptrs, values = tilec_launch.kernel_arg_values(kernel, args)
        keep += [values, ptrs]
        launches.append((handle, [int(g) for g in kernel["grid"]], kernel["block"], shared, ptrs))

    def go():
        for handle, grid, block, shared, ptrs in launches:
            status = cuda.cuLaunchKernel(handle, *grid, *block, shared, None, ptrs, None)
            if status:
                raise RuntimeError(f"cuLaunchKernel: {status}")
    go.keep = keep
    return go


def timer():
    import torch
    try:
        from triton.testing import do_bench
        return lambda f: do_bench(f, warmup=25, rep=100, return_mode="median")
    except Exception:
        def bench(f):
            for _ in range(5):
                f()
            flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
            times = []
            for _ in range(30):
                flush.zero_()
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                f()
                e.record()
                torch.cuda.synchronize()
                times.append(s.elapsed_time(e))
            return sorted(times)[len(times) // 2]
        return bench


def scan_reference(a, p):
    import torch
    bm, bn = p.get("block_M", 64), p.get("block_N", 64)
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


DTYPES = {"float32": "float32", "float16": "float16", "bfloat16": "bfloat16"}


def run():
    import torch
    import torch.nn.functional as F
    torch.manual_seed(0)
    bench = timer()
    big = 1 << 30
    x = torch.empty(big, dtype=torch.uint8, device="cuda")
    y = torch.empty_like(x)
    copy_peak = 2 * big / bench(lambda: y.copy_(x)) / 1e6
    del x, y
    print(f"device copy, 1 GiB: {copy_peak:.0f} GB/s")
    rows, bad = [], 0
    for stem, _, instances, kind in GROUPS:
        cuda, module, fns = load_module(f"{OUT}/{stem}.ptx", f"{OUT}/{stem}.json")
        for p in instances:
            name = p["name"]
            fn = fns[name]
            params = fn["params"]
            shapes = [tuple(int(s) for s in q["shape"]) for q in params]
            tensors = []
            for q, shape in zip(params, shapes):
                tensors.append(torch.randn(shape, device="cuda").to(getattr(torch, DTYPES[q["dtype"]])))
            dtype = tensors[0].dtype
            # Outputs (the last tensor, or Y and Z of cumsum) poisoned.
            outs = [len(tensors) - 1] if kind != "cumsum_example" else [1, 2]
            if kind == "scan":
                outs = [1]
            for k in outs:
                tensors[k].fill_(float("nan"))
            go = launcher(cuda, module, fn, tensors)
            go()
            torch.cuda.synchronize()
            ins = [t.double() for k, t in enumerate(tensors) if k not in outs]
            rtol, atol = 1e-5, 1e-4
            if kind == "scan":
                ref = [scan_reference(ins[0], p)]
                if dtype == torch.float16:
                    rtol, atol = 1e-3, 1e-3
                elif p.get("op", "sum") == "sum":
                    atol = 1e-3  # sums of up to 1024 normal values, fp32
                torch_op = (lambda a=tensors[0], d=p.get("dim", 0), o=p.get("op", "sum"):
                            a.cumsum(d) if o == "sum" else a.cummax(d))
            elif kind == "cumsum_example":
                xs = ins[0]
                ref = [xs.cumsum(1), xs.flip(dims=[1]).cumsum(1).flip(dims=[1])]
                atol = 1e-3
                torch_op = lambda a=tensors[0]: (a.cumsum(1), a.flip(dims=[1]).cumsum(1))
            elif kind == "add":
                ref = [ins[0] + ins[1]]
                rtol, atol = (8e-3, 1e-2) if dtype == torch.bfloat16 else (1e-3, 1e-3)
                torch_op = lambda a=tensors[0], b=tensors[1], c=tensors[2]: torch.add(a, b, out=c)
            elif kind == "softmax":
                ref = [torch.softmax(ins[0], dim=1)]
                rtol, atol = 2e-3, 1e-5
                torch_op = lambda a=tensors[0]: torch.softmax(a, dim=-1)
            elif kind == "gelu":
                a, bm, bias = ins
                xg = a @ bm + bias
                ref = [xg / (1.0 + torch.exp(-1.5957691216 * (xg + 0.044715 * xg * xg * xg)))]
                rtol, atol = (1.6e-2, 1e-1) if dtype == torch.bfloat16 else (2e-3, 2e-2)
                torch_op = lambda a=tensors[0], b=tensors[1], c=tensors[2]: F.gelu(
                    torch.addmm(c, a, b), approximate="tanh")
            else:  # rmsnorm_silu
                xs, w = ins
                yv = xs * torch.rsqrt((xs * xs).mean(dim=1, keepdim=True) + 1e-6) * w
                ref = [yv * torch.sigmoid(yv)]
                rtol, atol = 2e-3, 2e-3
                torch_op = lambda a=tensors[0], w=tensors[1]: F.silu(F.rms_norm(a, (a.shape[-1],), w, 1e-6))
            wrong, total, err = 0, 0, 0.0
            for k, r in zip(outs, ref):
                got = tensors[k].double()
                close = torch.isclose(got, r, rtol=rtol, atol=atol)
                wrong += int((~close).sum().item())
                total += got.numel()
                err = max(err, ((got - r).norm() / r.norm().clamp_min(1e-30)).item())
            rounded_off = None
            if kind == "gelu":
                rounded_off = int((tensors[3] != ref[0].to(dtype)).sum().item())
            ok = wrong == 0
            bad += not ok
            nbytes = sum(t.numel() * t.element_size() for t in tensors)
            ms = torch_ms = copy_ms = None
            if kind != "scan" or name in TIMED_SCANS:
                ms = bench(go)
                torch_ms = bench(torch_op)
                half = max(1, nbytes // 2)
                cs = torch.empty(half, dtype=torch.uint8, device="cuda")
                cd = torch.empty_like(cs)
                copy_ms = bench(lambda: cd.copy_(cs))
                del cs, cd
            fmt = lambda v: "-" if v is None else f"{v:.4f}"
            gbps = nbytes / ms / 1e6 if ms else None
            rows.append((name, "x".join(map(str, shapes[0])), str(dtype).replace("torch.", ""),
                         f"{'yes' if ok else 'NO'} ({wrong}/{total}, {err:.1e})",
                         fmt(ms), "-" if gbps is None else f"{gbps:.0f}",
                         "-" if ms is None else f"{copy_ms / ms:.2f}",
                         "-" if gbps is None else f"{gbps / copy_peak:.0%}",
                         fmt(torch_ms), "-" if ms is None else f"{torch_ms / ms:.2f}x"))
            extra = {}
            if kind == "gelu":
                extra["off_correctly_rounded"] = rounded_off
                extra["bare_gemm_torch_ms"] = bench(lambda a=tensors[0], b=tensors[1]: a @ b)
                m_, k_ = shapes[0]
                extra["TFLOPs"] = 2 * m_ * k_ * shapes[1][1] / ms / 1e9
            print(json.dumps(dict(case=name, ok=ok, wrong=wrong, rel_err=err, ms=ms, torch_ms=torch_ms,
                                  copy_same_bytes_ms=copy_ms, bytes=nbytes, **extra)), flush=True)
    print()
    print("| case | shape | dtype | right (wrong/elements, rel. err) | tilec ms | GB/s | "
          "copy of the same bytes / tilec | of 1 GiB copy | torch ms | torch / tilec |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print(f"simt2_check: {len(rows) - bad}/{len(rows)} right")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "prepare":
        sys.exit(prepare(sys.argv[2] if len(sys.argv) > 2 else "build/bin/tilec"))
    if len(sys.argv) >= 2 and sys.argv[1] == "run":
        sys.exit(run())
    print(__doc__)
    sys.exit(2)
