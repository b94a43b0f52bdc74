"""GPU check of issue 15's third round (helper simt3): guarded elementwise
loops (one test for all of a thread's steps, loads ahead of the stores; odd
row strides coalesced), T.if_then_else loads as vectors (RMSNorm+SiLU's
weight), the small and odd instances, the reverse scans over a zero-padded
partial tile, and T.Pipelined loops whose rings do not fit in two stages
(sm_80 PTX, run on the GPU at hand through the driver's JIT) against the same
kernel with no pipeline.

Two steps, from the repository root (bench/debug/simt3_check.sh wraps them):

    python3 bench/debug/simt3_check.py prepare [TILEC]  # build machine -> bench/.out/simt3_check
    python3 bench/debug/simt3_check.py run              # GPU machine, bench/.out carried

`run` launches every instance through the CUDA driver (PTX + metadata JSON)
on random inputs with the outputs poisoned with NaN, compares every element
with a float64 torch reference, times the kernel (triton's do_bench median
with warm-up and L2 flushed, CUDA events otherwise) against torch's own
operation and a device-to-device copy of the same number of bytes, and
prints one table. Exit status 1 if any element is wrong.
"""
import json
import os
import subprocess
import sys

OUT = "bench/.out/simt3_check"
HERE = os.path.dirname(os.path.abspath(__file__))

GUARDED = [dict(name=f"guarded_{m}x{n}", M=m, N=n)
           for m, n in ((4099, 1000), (4099, 1001), (4096, 1024), (1001, 1001), (1001, 3))]
SCANS = [
    # A reverse scan over the last tile, whose rows past M the copy fills
    # with zeros (as TileLang's T.copy does): the reference pads the same way.
    dict(name="scan_odd_cols_rev_max", M=1001, N=1003, block_M=100, block_N=40, dim=0,
         reverse=True, op="max"),
    dict(name="scan_odd_rows_rev_max", M=1003, N=1001, block_M=40, block_N=100, dim=1,
         reverse=True, op="max"),
    dict(name="scan_odd_cols_rev_sum", M=1001, N=1003, block_M=100, block_N=40, dim=0,
         reverse=True),
    dict(name="scan_odd_cols_fwd_max", M=1001, N=1003, block_M=100, block_N=40, dim=0, op="max"),
]
FA = dict(batch=1, heads=16, seq_len=2048, dim=128, block_M=128, block_N=128, threads=256)
GEMM = dict(M=2048, N=2048, K=2048, block_M=256, block_N=128, block_K=128, threads=256)
# (stem, source, instances, kind, target, a warning prepare must see)
GROUPS = [
    ("guard", "bench/debug/simt2_guard.tile", GUARDED, "add", "sm_90a", None),
    ("rmsnorm_silu", "examples/rmsnorm_silu.tile",
     [dict(name="rmsnorm_silu_1001x4000", M=1001, hidden=4000),
      dict(name="rmsnorm_silu_1001x4001", M=1001, hidden=4001),
      dict(name="rmsnorm_silu_32768x4096", M=32768, hidden=4096)], "rmsnorm_silu", "sm_90a", None),
    ("softmax", "examples/softmax.tile",
     [dict(name="softmax_1001x4096", M=1001, N=4096)], "softmax", "sm_90a", None),
    ("vector_add", "examples/vector_add.tile",
     [dict(name="vector_add_1000003", N=1000003)], "add", "sm_90a", None),
    ("scan", "bench/debug/rel_scan.tile", SCANS, "scan", "sm_90a", None),
    ("fa_sm80", "examples/flash_attention.tile",
     [dict(name="fa_sm80_128x128_fewer_rings", num_stages=2, **FA),
      dict(name="fa_sm80_128x128_no_pipeline", num_stages=1, **FA)], "attention", "sm_80",
     "pipelining fewer operands: `K_shared` in 2 stages, `V_shared`"),
    # MLA decode on sm_90a: wgmma with both rings in 2 stages and warp
    # roles, against its one-stage twin (no ring needs to be dropped now).
    ("mla", "examples/mla_decode.tile",
     [dict(name="mla_decode_64_fewer_rings", batch=64, num_stages=2),
      dict(name="mla_decode_64_no_pipeline", batch=64, num_stages=1)], "mla", "sm_90a",
     None),
    ("gemm_sm80", "examples/gemm_relu.tile",
     [dict(name="gemm_sm80_256x128x128_fewer_rings", num_stages=3, **GEMM),
      dict(name="gemm_sm80_256x128x128_no_pipeline", num_stages=1, **GEMM)], "gemm_relu", "sm_80",
     "pipelining fewer operands: `B_shared` in 3 stages, `A_shared`"),
]


def prepare(tilec):
    os.makedirs(OUT, exist_ok=True)
    ok = True
    for stem, src, instances, _, target, expect in GROUPS:
        inst = f"{OUT}/{stem}.instances.json"
        with open(inst, "w") as f:
            json.dump(instances, f)
        r = subprocess.run([tilec, src, "--target", target, "--instances", inst,
                            "-o", f"{OUT}/{stem}.ptx", "--json", f"{OUT}/{stem}.json"],
                           capture_output=True, text=True)
        good = r.returncode == 0 and (expect is None or expect in r.stderr)
        print(f"prepare: {stem} ({target}): {'ok' if good else 'FAILED'} "
              f"({len(instances)} instances) {r.stderr.strip()[:600]}")
        ok &= good
    return 0 if ok else 1


# ---------------------------------------------------------------- GPU side

def scan_reference(a, p):
    """The scan of each block_M x block_N tile, the tile's elements past the
    tensor read as zeros (T.copy's padding), only the valid ones kept."""
    import torch
    bm, bn = p.get("block_M", 64), p.get("block_N", 64)
    dim, reverse, op = p.get("dim", 0), p.get("reverse", False), p.get("op", "sum")
    ref = torch.empty_like(a)
    for i in range(0, a.shape[0], bm):
        for j in range(0, a.shape[1], bn):
            t = a[i:i + bm, j:j + bn]
            pad = torch.zeros((bm, bn), dtype=a.dtype, device=a.device)
            pad[:t.shape[0], :t.shape[1]] = t
            if reverse:
                pad = pad.flip(dims=[dim])
            pad = pad.cumsum(dim) if op == "sum" else pad.cummax(dim).values
            if reverse:
                pad = pad.flip(dims=[dim])
            ref[i:i + bm, j:j + bn] = pad[:t.shape[0], :t.shape[1]]
    return ref


def run():
    import torch
    import torch.nn.functional as F
    sys.path.insert(0, HERE)
    from simt2_check import load_module, launcher, timer
    torch.manual_seed(0)
    bench = timer()
    big = 1 << 30
    x = torch.empty(big, dtype=torch.uint8, device="cuda")
    y = torch.empty_like(x)
    copy_peak = 2 * big / bench(lambda: y.copy_(x)) / 1e6
    del x, y
    print(f"device copy, 1 GiB: {copy_peak:.0f} GB/s")
    rows, bad = [], 0
    for stem, _, instances, kind, target, _ in GROUPS:
        cuda, module, fns = load_module(f"{OUT}/{stem}.ptx", f"{OUT}/{stem}.json")
        for p in instances:
            name = p["name"]
            fn = fns[name]
            shapes = [tuple(int(s) for s in q["shape"]) for q in fn["params"]]
            tensors = [torch.randn(shape, device="cuda").to(getattr(torch, q["dtype"]))
                       for q, shape in zip(fn["params"], shapes)]
            dtype = tensors[0].dtype
            outs = [1] if kind == "scan" else [len(tensors) - 1]
            for k in outs:
                tensors[k].fill_(float("nan"))
            go = launcher(cuda, module, fn, tensors)
            go()
            torch.cuda.synchronize()
            ins = [t.double() for k, t in enumerate(tensors) if k not in outs]
            flops = None
            if kind == "scan":
                ref = scan_reference(ins[0], p)
                rtol, atol = 1e-5, (1e-3 if p.get("op", "sum") == "sum" else 0.0)
                torch_op = (lambda a=tensors[0], d=p["dim"], o=p.get("op", "sum"):
                            a.cumsum(d) if o == "sum" else a.cummax(d))
            elif kind == "add":
                ref = ins[0] + ins[1]
                rtol, atol = (8e-3, 1e-2) if dtype == torch.bfloat16 else (1e-3, 1e-3)
                torch_op = lambda a=tensors[0], b=tensors[1], c=tensors[2]: torch.add(a, b, out=c)
            elif kind == "softmax":
                ref = torch.softmax(ins[0], dim=1)
                rtol, atol = 2e-3, 1e-5
                torch_op = lambda a=tensors[0]: torch.softmax(a, dim=-1)
            elif kind == "rmsnorm_silu":
                xs, w = ins
                yv = xs * torch.rsqrt((xs * xs).mean(dim=1, keepdim=True) + 1e-6) * w
                ref = yv * torch.sigmoid(yv)
                rtol, atol = 2e-3, 2e-3
                torch_op = lambda a=tensors[0], w=tensors[1]: F.silu(F.rms_norm(a, (a.shape[-1],), w, 1e-6))
            elif kind == "attention":
                q, k_, v = (t.transpose(1, 2) for t in ins)  # BSHD -> BHSD
                s = q @ k_.transpose(-1, -2) / q.shape[-1] ** 0.5
                ref = (torch.softmax(s, dim=-1) @ v).transpose(1, 2)
                rtol, atol = 1e-2, 5e-3
                qh, kh, vh = (t.transpose(1, 2) for t in tensors[:3])
                torch_op = lambda: F.scaled_dot_product_attention(qh, kh, vh)
                b_, s_, h_, d_ = shapes[0]
                flops = 4 * b_ * h_ * s_ * s_ * d_
            elif kind == "mla":
                q, q_pe, kv, k_pe = ins[:4]
                d, pe = q.shape[-1], q_pe.shape[-1]
                sc = (q @ kv.transpose(1, 2) + q_pe @ k_pe.transpose(1, 2)) / (d + pe) ** 0.5
                ref = torch.softmax(sc, dim=-1) @ kv
                rtol, atol = 1e-2, 5e-3
                qf, kvf = tensors[0], tensors[2]
                torch_op = lambda: torch.softmax(qf @ kvf.transpose(1, 2), dim=-1) @ kvf
            else:  # gemm_relu
                ref = torch.relu(ins[0] @ ins[1])
                rtol, atol = 1e-2, 5e-2
                torch_op = lambda a=tensors[0], b=tensors[1]: torch.relu(a @ b)
                flops = 2 * shapes[0][0] * shapes[0][1] * shapes[1][1]
            got = tensors[outs[0]].double()
            close = torch.isclose(got, ref, rtol=rtol, atol=atol)
            wrong, total = int((~close).sum().item()), got.numel()
            err = ((got - ref).norm() / ref.norm().clamp_min(1e-30)).item()
            ok = wrong == 0
            bad += not ok
            nbytes = sum(t.numel() * t.element_size() for t in tensors)
            ms = bench(go)
            torch_ms = bench(torch_op)
            half = max(1, nbytes // 2)
            cs = torch.empty(half, dtype=torch.uint8, device="cuda")
            cd = torch.empty_like(cs)
            copy_ms = bench(lambda: cd.copy_(cs))
            del cs, cd
            rate = (f"{flops / ms / 1e9:.0f} TFLOP/s" if flops else f"{nbytes / ms / 1e6:.0f} GB/s")
            rows.append((name, target, "x".join(map(str, shapes[0])), str(dtype).replace("torch.", ""),
                         f"{'yes' if ok else 'NO'} ({wrong}/{total}, {err:.1e})", f"{ms:.4f}", rate,
                         f"{copy_ms / ms:.2f}", f"{nbytes / ms / 1e6 / copy_peak:.0%}",
                         f"{torch_ms:.4f}", f"{torch_ms / ms:.2f}x"))
            print(json.dumps(dict(case=name, target=target, ok=ok, wrong=wrong, rel_err=err, ms=ms,
                                  torch_ms=torch_ms, copy_same_bytes_ms=copy_ms, bytes=nbytes)),
                  flush=True)
    print()
    print("| case | target | shape | dtype | right (wrong/elements, rel. err) | tilec ms | rate | "
          "copy of the same bytes / tilec | of 1 GiB copy | torch ms | torch / tilec |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print(f"simt3_check: {len(rows) - bad}/{len(rows)} right")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "prepare":
        sys.exit(prepare(sys.argv[2] if len(sys.argv) > 2 else "build/bin/tilec"))
    if len(sys.argv) >= 2 and sys.argv[1] == "run":
        sys.exit(run())
    print(__doc__)
    sys.exit(2)
