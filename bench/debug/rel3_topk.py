#!/usr/bin/env python3
"""GPU check of the indexer top-k kernel (issue #12, item 4): the conformance
kernel dsa_sparse_finetune indexer_topk_reducesum, whose TopkIndices differed
from TileLang's (and from torch) in every row of the 2026-12-01 check.

Cause, found by reading its lowering: the kernel's bitonic sort swaps with
`val = s[i]; s[i] = s[j]; s[j] = val`, and tilec bound `val` to the
subscript itself, re-reading s[i] after the store: both places got s[j], so
every sort step duplicated entries and lost others (fixed in
lib/MLIRGen/Elaborator.cpp, assignTo; test/Frontend/tilelang/element-binding.tile).

The check compares against a float64 torch reference that tolerates ties:
per row (token t of its sequence, k = min(topk, t + 1)), the first k
TopkIndices must be k distinct indices in [0, t], every chosen logit at
least the k-th largest minus a tolerance and every other logit at most it
plus the tolerance (so any choice among tied logits passes), in
non-increasing logit order, the rest -1; ReduceSum must be the softmax of
the chosen logits in that order (0 after them). Two inputs: random bf16
(no exact ties), and inputs quantized to a few levels (many exact ties).

    python3 bench/debug/rel3_topk.py prepare [TILEC [OLD_TILEC]]   # here
    python3 bench/debug/rel3_topk.py run                           # GPU, bench/.out carried

`prepare` compiles the kernel from ../shared/conformance (or SHARED=...)
into bench/.out/rel3_topk/ (PTX + metadata JSON); with OLD_TILEC (e.g. a
build of main before the fix) also as topk_old, which `run` checks too and
is expected to FAIL. Prints a table; exit 1 if the current build fails.
"""
import json
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "bench", ".out", "rel3_topk")
STEM = "dsa_sparse_finetune__indexer_topk_reducesum__tl_indexer_topk_reducesum_impl"
DEFINES = ["-D", "topk=64", "-D", "dtype=bfloat16", "-D", "heads=64", "-D", "dim=128"]
H, D, TOPK = 64, 128, 64


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
        ptrs, keep = tilec_launch.kernel_arg_values(k, args)
        grid = [int(eval(str(g).replace("/", "//"), {}, dict(env))) for g in k["grid"]]
        assert cuda.cuLaunchKernel(h, *grid, *k["block"], shared, None, ptrs, None) == 0
    assert cuda.cuCtxSynchronize() == 0, "kernel failed"


def inputs(kind, lens):
    import torch
    g = torch.Generator(device="cuda").manual_seed(2026)
    S = sum(lens)
    if kind == "random":
        def t(*shape):
            return (torch.randn(*shape, device="cuda", generator=g) * 0.5).to(torch.bfloat16)
        Q, W, K = t(S, H, D), t(S, H), t(S, D)
    else:  # a few levels: many logits tie exactly
        def t(*shape, levels=(-1.0, 0.0, 1.0)):
            lv = torch.tensor(levels, device="cuda")
            return (lv[torch.randint(0, len(levels), shape, device="cuda", generator=g)] * 0.25).to(torch.bfloat16)
        Q, K = t(S, H, D), t(S, D)
        W = t(S, H, levels=(1.0, 2.0))
    off = torch.tensor([0] + list(torch.cumsum(torch.tensor(lens), 0)), dtype=torch.int32, device="cuda")
    tok = torch.cat([torch.stack([torch.full((n,), b), torch.arange(n)], 1)
                     for b, n in enumerate(lens)]).int().cuda()
    return Q, W, K, off, tok


def check(name, kind, lens):
    import torch
    Q, W, K, off, tok = inputs(kind, lens)
    S = sum(lens)
    TI = torch.full([S, TOPK], -7, dtype=torch.int32, device="cuda")
    RS = torch.full([S, TOPK], 7.0, device="cuda")
    launch(name, {"IndexQ": Q, "Weights": W, "IndexK": K, "TopkIndices": TI, "ReduceSum": RS,
                  "Offsets": off, "TokenIndices": tok, "seq_len": S, "batch_plus_one": len(lens) + 1})
    qs = (Q.float() * D ** -0.5).to(torch.bfloat16).double()  # the kernel scales Q in bf16
    wrong_set = wrong_order = wrong_rest = 0
    rs_err = 0.0
    ties = 0
    first_bad = None
    TIc, RSc = TI.cpu(), RS.cpu().double()
    for r in range(S):
        b, t = int(tok[r, 0]), int(tok[r, 1])
        bos = int(off[b])
        kk = K[bos:bos + t + 1].double()
        logits = (torch.relu(kk @ qs[bos + t].T) * W[bos + t].double()).sum(-1).cpu()
        k = min(TOPK, t + 1)
        srt = torch.sort(logits, descending=True).values
        kth = float(srt[k - 1])
        tol = 1e-4 * max(1.0, float(logits.abs().max()))
        ties += int(k < t + 1 and float(srt[k]) >= kth - tol)
        got = TIc[bos + t].long()
        chosen = got[:k]
        ok_set = (bool((chosen >= 0).all()) and bool((chosen <= t).all())
                  and len(set(chosen.tolist())) == k)
        if ok_set:
            mask = torch.zeros(t + 1, dtype=torch.bool)
            mask[chosen] = True
            ok_set = bool((logits[mask] >= kth - tol).all()) and (
                k == t + 1 or bool((logits[~mask] <= kth + tol).all()))
        if not ok_set:
            wrong_set += 1
            first_bad = first_bad if first_bad is not None else (r, t, chosen[:8].tolist())
            continue
        lv = logits[chosen]
        if bool((lv[1:] > lv[:-1] + tol).any()):
            wrong_order += 1
        if bool((got[k:] != -1).any()) or bool((RSc[bos + t][k:] != 0).any()):
            wrong_rest += 1
        ref = torch.softmax(lv, 0)
        rs_err = max(rs_err, float((RSc[bos + t][:k] - ref).abs().max()))
    good = wrong_set == wrong_order == wrong_rest == 0 and rs_err <= 1e-3
    note = "" if first_bad is None else f"first bad row {first_bad[0]} (t={first_bad[1]}): {first_bad[2]}"
    print(f"| {name} | {kind} | {S} | {ties} | {wrong_set} | {wrong_order} | {wrong_rest} | "
          f"{rs_err:.2e} | {'PASS' if good else 'FAIL'} | {note} |", flush=True)
    return good


def run():
    lens = [100, 300, 500, 124]
    print("| build | inputs | rows | rows with ties at k | wrong set | wrong order | "
          "bad tail | ReduceSum max err | result | note |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    ok = True
    for name in ("topk", "topk_old"):
        if not os.path.exists(os.path.join(OUT, name + ".ptx")):
            continue
        for kind in ("random", "tied"):
            good = check(name, kind, lens)
            ok &= good or name == "topk_old"
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "prepare":
        prepare(sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "build", "bin", "tilec"),
                sys.argv[3] if len(sys.argv) > 3 else None)
        sys.exit(0)
    if len(sys.argv) > 1 and sys.argv[1] == "run":
        sys.exit(run())
    sys.exit(__doc__)
