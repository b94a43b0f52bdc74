#!/usr/bin/env python3
"""GPU check of the indexer top-k kernel (issue #12): the conformance kernel
dsa_sparse_finetune indexer_topk_reducesum, against a float64 reference.

History. rel3 fixed tilec's cause of every row being wrong (a name bound to
a buffer element was re-read after a store; test/Frontend/tilelang/
element-binding.tile). The 16:02 run of this check then still reported, on
random bf16 inputs, 21 of 1024 rows with another set and 510 out of order,
and 0 / 0 on tied inputs. The cause was this check's reference, not tilec:
the kernel scales Q with `index_q_shared[i, j] * sm_scale`, a bf16 buffer
times a Python float, which TileLang (like tilec, docs/language.md 6.3)
computes in bf16 with the literal rounded to bf16 (0.0883883 ->
0.08837890625); the reference computed `bf16(Q * 0.0883883)` in fp32
instead, so about 2.6% of the scaled Q elements differ by one bf16 ulp and
the reference's logits differ from the kernel's by more than the 1e-4
tolerance. On tied inputs (multiples of 0.25) both products are exact,
hence 0 / 0. `selftest` (numpy, no GPU) shows it: an exact model of the
kernel (its block placement and bitonic network in fp32) passes against the
bf16-literal reference and fails against the old one with counts like the
GPU's. `run` prints both references' counts for the GPU's results, so the
table itself says which it is.

rel5 (later): that conclusion had TileLang's rule backwards. TileLang's
`+ - * /` make a Python float a float32 constant and promote bf16 to it
(TVM's FloatImm("float32"); its CUDA for a half buffer times a scale is
`(half_t)(((float)q) * 9.016844e-02f)`), so TileLang computes
bf16(float(q) * 0.0883883f), the "fp32 literal" reference. The
differential test showed it: TileLang's TopkIndices differed from tilec's
by rel. 0.12 with ReduceSum agreeing, which is what the two rules give
each other in this model (0.12-0.16 on the harness's shapes). tilec now
computes as TileLang (test/Frontend/tilelang/bf16-scale-literal.tile);
the fp32-literal reference is the one that must pass, and the
bf16-literal one is what tilec did before.

The check tolerates ties: per row (token t of its sequence, k = min(topk,
t + 1)) the first k TopkIndices must be k distinct indices in [0, t],
every chosen logit at least the k-th largest minus a tolerance and every
other logit at most it plus the tolerance, in non-increasing logit order,
the rest -1; ReduceSum must be the softmax of the chosen logits in that
order (0 after them). Two inputs: random bf16 (no exact ties), and inputs
quantized to a few levels (many exact ties).

    python3 bench/debug/rel3_topk.py prepare [TILEC [OLD_TILEC]]   # here
    python3 bench/debug/rel3_topk.py selftest [LEN ...]            # here, numpy
    python3 bench/debug/rel3_topk.py run                           # GPU, bench/.out carried

`prepare` compiles the kernel from ../shared/conformance (or SHARED=...)
into bench/.out/rel3_topk/ (PTX + metadata JSON); with OLD_TILEC also as
topk_old, which `run` checks too and may FAIL. Exit 1 if the current build
fails against the fp32-literal (TileLang) reference.
"""
import json
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "bench", ".out", "rel3_topk")
STEM = "dsa_sparse_finetune__indexer_topk_reducesum__tl_indexer_topk_reducesum_impl"
DEFINES = ["-D", "topk=64", "-D", "dtype=bfloat16", "-D", "heads=64", "-D", "dim=128"]
H, D, TOPK, BLOCK_K = 64, 128, 64, 32


def bf16(x):
    """Round float32 values to bfloat16 (to nearest, ties to even), as float32."""
    b = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(np.uint64)
    b = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    return b.astype(np.uint32).view(np.float32)


def scaled_q(q, literal_bf16=False):
    """The kernel's `index_q_shared * sm_scale`, stored in bf16: TileLang's
    (and tilec's) bf16(float(q) * float32(scale)); literal_bf16=True is
    the rule tilec had before rel5, bf16(q * bf16(scale)) (a bf16 x bf16
    product is exact in fp32, so that is one rounding too)."""
    scale = np.float32(D ** -0.5)
    if literal_bf16:
        scale = bf16(np.array([scale]))[0]
    return bf16(q.astype(np.float32) * scale)


def row_logits(qs, w, k, off, tok, r, dtype=np.float64):
    b, t = int(tok[r, 0]), int(tok[r, 1])
    bos = int(off[b])
    kk = k[bos:bos + t + 1].astype(dtype)
    return t, bos, (np.maximum(kk @ qs[bos + t].astype(dtype).T, 0) * w[bos + t].astype(dtype)).sum(-1)


def verify(q, w, k, off, tok, ti, rs, literal_bf16=False):
    """Counts of rows whose TopkIndices / ReduceSum are wrong against the
    float64 reference (numpy arrays; q, w, k hold bf16 values as float32)."""
    qs = scaled_q(q, literal_bf16)
    c = dict(rows=len(tok), ties=0, wrong_set=0, wrong_order=0, bad_tail=0, rs_err=0.0, first_bad=None)
    for r in range(len(tok)):
        t, bos, logits = row_logits(qs, w, k, off, tok, r)
        kk = min(TOPK, t + 1)
        srt = np.sort(logits)[::-1]
        kth = srt[kk - 1]
        tol = 1e-4 * max(1.0, float(np.abs(logits).max()))
        c["ties"] += int(kk < t + 1 and srt[kk] >= kth - tol)
        got = ti[bos + t].astype(np.int64)
        chosen = got[:kk]
        ok = bool((chosen >= 0).all() and (chosen <= t).all()) and len(set(chosen.tolist())) == kk
        if ok:
            mask = np.zeros(t + 1, bool)
            mask[chosen] = True
            ok = bool((logits[mask] >= kth - tol).all()) and (kk == t + 1 or bool((logits[~mask] <= kth + tol).all()))
        if not ok:
            c["wrong_set"] += 1
            if c["first_bad"] is None:
                c["first_bad"] = (r, t, chosen[:8].tolist())
            continue
        lv = logits[chosen]
        if bool((lv[1:] > lv[:-1] + tol).any()):
            c["wrong_order"] += 1
        if bool((got[kk:] != -1).any()) or bool((rs[bos + t][kk:] != 0).any()):
            c["bad_tail"] += 1
        ref = np.exp(lv - lv.max())
        ref /= ref.sum()
        c["rs_err"] = max(c["rs_err"], float(np.abs(rs[bos + t][:kk] - ref).max()))
    c["ok"] = c["wrong_set"] == c["wrong_order"] == c["bad_tail"] == 0 and c["rs_err"] <= 1e-3
    return c


def inputs(kind, lens, rng):
    S = sum(lens)
    if kind == "random":
        def t(*shape):
            return bf16(rng.standard_normal(shape).astype(np.float32) * 0.5)
        q, w, k = t(S, H, D), t(S, H), t(S, D)
    else:  # a few levels: many logits tie exactly
        def t(*shape, levels=(-1.0, 0.0, 1.0)):
            return bf16(np.array(levels, np.float32)[rng.integers(0, len(levels), shape)] * 0.25)
        q, k = t(S, H, D), t(S, D)
        w = t(S, H, levels=(1.0, 2.0))
    off = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    tok = np.concatenate([np.stack([np.full(n, b), np.arange(n)], 1) for b, n in enumerate(lens)]).astype(np.int32)
    return q, w, k, off, tok


def model_kernel(q, w, k, off, tok):
    """The kernel's algorithm in fp32, step for step: 32-key blocks placed
    at `offset`, the 128-entry bitonic network run whenever the second half
    fills and once at the end, -1 for indices past t, softmax of the first
    64. What a correct compilation of it computes, up to fp32 rounding."""
    qs = scaled_q(q)
    n = 2 * TOPK
    ti = np.empty((len(tok), TOPK), np.int32)
    rs = np.empty((len(tok), TOPK), np.float32)
    lane = np.arange(n)

    def sort(idx, val):
        for i1 in range(int(np.log2(n))):
            for i2 in range(i1 + 1):
                asc = (lane & (1 << (i1 + 1))) != 0
                j = lane ^ (1 << (i1 - i2))
                swap = (lane < j) & ((asc & (val > val[j])) | (~asc & (val < val[j])))
                a, b = lane[swap], j[swap]
                val[a], val[b] = val[b].copy(), val[a].copy()
                idx[a], idx[b] = idx[b].copy(), idx[a].copy()

    for r in range(len(tok)):
        t, bos, logits = row_logits(qs, w, k, off, tok, r, np.float32)
        seq = int(off[tok[r, 0] + 1]) - bos
        idx = np.full(n, -1, np.int32)
        val = np.full(n, -np.inf, np.float32)
        for blk in range((t + 1 + BLOCK_K - 1) // BLOCK_K):
            st, ed = blk * BLOCK_K, min((blk + 1) * BLOCK_K, seq)
            o = TOPK + st % TOPK if st >= TOPK else st
            keys = st + np.arange(BLOCK_K)
            idx[o:o + BLOCK_K] = keys
            val[o:o + BLOCK_K] = np.where(keys <= t, logits[np.minimum(keys, t)], -np.inf)
            if ed > TOPK and ed % TOPK == 0:
                sort(idx, val)
        sort(idx, val)
        e = np.exp(val[:TOPK] - val[:TOPK].max())
        rs[r] = e / e.sum()
        ti[r] = np.where(idx[:TOPK] > t, -1, idx[:TOPK])
    return ti, rs


HEADER = ("| build | inputs | reference | rows | rows with ties at k | wrong set | wrong order | "
          "bad tail | ReduceSum max err | result | note |\n|---|---|---|---|---|---|---|---|---|---|---|")


def row(name, kind, ref, c):
    note = "" if c["first_bad"] is None else "first bad row {} (t={}): {}".format(*c["first_bad"])
    print(f"| {name} | {kind} | {ref} | {c['rows']} | {c['ties']} | {c['wrong_set']} | {c['wrong_order']} | "
          f"{c['bad_tail']} | {c['rs_err']:.2e} | {'PASS' if c['ok'] else 'FAIL'} | {note} |", flush=True)


REFS = (("fp32 literal (TileLang)", False), ("bf16 literal (tilec before rel5)", True))


def selftest(lens):
    """The exact model of the kernel against both references, here."""
    print(HEADER)
    ok = True
    for kind in ("random", "tied"):
        data = inputs(kind, lens, np.random.default_rng(2026))
        ti, rs = model_kernel(*data)
        for ref, lit in REFS:
            c = verify(*data, ti, rs, lit)
            row("model", kind, ref, c)
            ok &= c["ok"] or lit
    return 0 if ok else 1


def prepare(tilec, old):
    shared = os.environ.get("SHARED") or next(
        d for d in (os.path.join(ROOT, "..", "shared"), "/work/shared")
        if os.path.isdir(os.path.join(d, "conformance")))
    src = os.path.join(shared, "conformance", "kernels", STEM + ".tile")
    os.makedirs(OUT, exist_ok=True)
    for name, exe in (("topk", tilec), ("topk_old", old)):
        if not exe:
            continue
        subprocess.run([exe, src, "--target", "sm_90a", *DEFINES,
                        "-o", os.path.join(OUT, name + ".ptx"),
                        "--json", os.path.join(OUT, name + ".json")], check=True)
        print(f"prepare: {name} ({exe}) -> {OUT}/{name}.{{ptx,json}}")


def launch(name, values):
    import ctypes
    import torch
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import tilec_launch
    cuda = ctypes.CDLL("libcuda.so.1")
    torch.zeros(1, device="cuda")
    fn = json.load(open(os.path.join(OUT, name + ".json")))["functions"][0]
    args = [values[p["name"]] for p in fn["params"]]
    env = {p["name"]: values[p["name"]] for p in fn["params"] if p["kind"] != "tensor"}
    m = ctypes.c_void_p()
    image = open(os.path.join(OUT, name + ".ptx"), "rb").read() + b"\0"
    assert cuda.cuModuleLoadData(ctypes.byref(m), image) == 0, "cuModuleLoadData"
    for k in fn["kernels"]:
        h = ctypes.c_void_p()
        assert cuda.cuModuleGetFunction(ctypes.byref(h), m, k["entry"].encode()) == 0
        shared = int(k["dynamic_shared_bytes"])
        if shared:
            cuda.cuFuncSetAttribute(h, 8, shared)
        ptrs, keep = tilec_launch.kernel_arg_values(k, args, fn["params"])
        grid = [int(eval(str(g).replace("/", "//"), {}, dict(env))) for g in k["grid"]]
        assert cuda.cuLaunchKernel(h, *grid, *k["block"], shared, None, ptrs, None) == 0
    assert cuda.cuCtxSynchronize() == 0, "kernel failed"


def run():
    import torch
    lens = [100, 300, 500, 124]
    print(HEADER)
    ok = True
    for name in ("topk", "topk_old"):
        if not os.path.exists(os.path.join(OUT, name + ".ptx")):
            continue
        for kind in ("random", "tied"):
            q, w, k, off, tok = inputs(kind, lens, np.random.default_rng(2026))
            S = sum(lens)
            dev = lambda a, dt: torch.from_numpy(np.ascontiguousarray(a)).to("cuda").to(dt)
            TI = torch.full([S, TOPK], -7, dtype=torch.int32, device="cuda")
            RS = torch.full([S, TOPK], 7.0, device="cuda")
            launch(name, {"IndexQ": dev(q, torch.bfloat16), "Weights": dev(w, torch.bfloat16),
                          "IndexK": dev(k, torch.bfloat16), "TopkIndices": TI, "ReduceSum": RS,
                          "Offsets": dev(off, torch.int32), "TokenIndices": dev(tok, torch.int32),
                          "seq_len": S, "batch_plus_one": len(lens) + 1})
            ti, rs = TI.cpu().numpy(), RS.cpu().numpy().astype(np.float64)
            for ref, lit in REFS:
                c = verify(q, w, k, off, tok, ti, rs, lit)
                row(name, kind, ref, c)
                ok &= c["ok"] or lit or name == "topk_old"
    return 0 if ok else 1


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "prepare":
        prepare(sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "build", "bin", "tilec"),
                sys.argv[3] if len(sys.argv) > 3 else None)
        sys.exit(0)
    if cmd == "selftest":
        sys.exit(selftest([int(n) for n in sys.argv[2:]] or [40, 150, 200]))
    if cmd == "run":
        sys.exit(run())
    sys.exit(__doc__)
