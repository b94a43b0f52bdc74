#!/usr/bin/env python3
"""GPU check of the five kernels that differed in the 2026-12-01 TileLang vs
tilec differential test, on inputs valid for each kernel (sorted cu_seqlens,
in-range block tables, consistent token indices), against float64 torch
references written from each kernel's math. Every element the kernel writes
is compared (relative L2 error per output, tolerance 2e-2 for fp16/bf16);
elements it does not write must keep their sentinel.
Run bench/debug/diff_prepare.sh first. usage: python3 bench/debug/diff_check.py
"""
import ctypes, json, math, os, sys
import torch
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import tilec_launch  # noqa: E402,F401  (context setup / CUDA helpers)
sys.path.insert(0, os.path.dirname(__file__))

OUT = os.path.join(os.path.dirname(__file__), "..", ".out", "diff")
cuda = ctypes.CDLL("libcuda.so.1")
dev = "cuda"


def launch(stem, args, sym=None):
    """Like tilec_launch.Module, but grid entries may name symbols."""
    torch.zeros(1, device=dev)
    meta = json.load(open(os.path.join(OUT, stem + ".json")))["functions"][0]
    m = ctypes.c_void_p()
    assert cuda.cuModuleLoadData(ctypes.byref(m), open(os.path.join(OUT, stem + ".ptx"), "rb").read() + b"\0") == 0
    env = dict(sym or {})
    for k in meta["kernels"]:
        h = ctypes.c_void_p()
        assert cuda.cuModuleGetFunction(ctypes.byref(h), m, k["entry"].encode()) == 0
        sh = int(k["dynamic_shared_bytes"])
        if sh:
            cuda.cuFuncSetAttribute(h, 8, sh)
        vals = []
        for a in k["args"]:
            v = args[a["param"]]
            vals.append(ctypes.c_void_p(v.data_ptr()) if isinstance(v, torch.Tensor) else ctypes.c_int32(int(v)))
        ptrs = (ctypes.c_void_p * len(vals))(*[ctypes.cast(ctypes.byref(x), ctypes.c_void_p) for x in vals])
        grid = [int(eval(str(g).replace("/", "//"), {}, env)) for g in k["grid"]]
        assert cuda.cuLaunchKernel(h, *grid, *k["block"], sh, None, ptrs, None) == 0
    assert cuda.cuCtxSynchronize() == 0, "kernel failed"


rows = []


def compare(kernel, name, got, ref, mask=None, tol=2e-2, sentinel=None):
    got = got.double()
    if mask is None:
        mask = torch.ones_like(ref, dtype=torch.bool)
    a, b = got[mask], ref[mask]
    nan = int(torch.isnan(a).sum())
    err = ((a - b).norm() / b.norm().clamp_min(1e-30)).item() if a.numel() else 0.0
    kept = "-"
    if sentinel is not None and (~mask).any():
        kept = "ok" if bool((got[~mask] == sentinel.double()[~mask]).all()) else "CLOBBERED"
    ok = nan == 0 and err <= tol and kept != "CLOBBERED"
    rows.append((kernel, name, int(mask.sum()), nan, err, kept, "PASS" if ok else "FAIL"))


def rnd(shape, dt, s=0.5):
    return (torch.randn(shape, device=dev) * s).to(dt)


def seqlens(batch, total, maxlen, minlen=1):
    lens = torch.randint(minlen, maxlen + 1, (batch,))
    while lens.sum() > total:
        lens = (lens // 2).clamp_min(minlen)
    cu = torch.zeros(batch + 1, dtype=torch.int32)
    cu[1:] = torch.cumsum(lens, 0)
    return cu.to(dev), lens.tolist()


def preprocess():
    st = "attention_sink__example_gqa_sink_bwd_varlen__flashattn_bwd_preprocess"
    B, UQ, N, H, D = 8, 16384, 2048, 64, 128
    O, dO = rnd([UQ, H, D], torch.float16), rnd([UQ, H, D], torch.float16)
    cu, lens = seqlens(B, UQ, 2048)
    Delta = torch.full([B, H, N], 7.0, device=dev)
    sent = Delta.clone()
    launch(st, [O, dO, cu, Delta])
    ref = torch.zeros([B, H, N], dtype=torch.float64, device=dev)
    mask = torch.zeros_like(ref, dtype=torch.bool)
    for b in range(B):
        s, n = int(cu[b]), lens[b]
        ref[b, :, :n] = (O[s:s + n].double() * dO[s:s + n].double()).sum(-1).T
        mask[b, :, :n] = True
    compare(st, "Delta", Delta, ref, mask, tol=1e-3, sentinel=sent)


def mla():
    st = "deepseek_mla__example_mla_decode_paged__mla_decode_tilelang"
    B, HQ, DV, DPE, BS, PAD = 128, 128, 512, 64, 64, 8448
    scale = 0.041666666666666664
    Q, Qpe = rnd([B, HQ, DV], torch.float16), rnd([B, HQ, DPE], torch.float16)
    KV, Kpe = rnd([B * PAD, 1, DV], torch.float16), rnd([B * PAD, 1, DPE], torch.float16)
    nblk = PAD // BS
    table = torch.stack([torch.randperm(B * nblk, device=dev)[:nblk] for _ in range(B)]).int()
    cache = torch.randint(1, 2048, (B,), device=dev).int()
    glse = torch.zeros([B, HQ, 1], dtype=torch.float16, device=dev)
    part = torch.zeros([B, HQ, 1, DV], dtype=torch.float16, device=dev)
    Out = torch.full([B, HQ, DV], 7.0, dtype=torch.float16, device=dev)
    launch(st, [Q, Qpe, KV, Kpe, table, cache, glse, part, Out])
    ref = torch.empty([B, HQ, DV], dtype=torch.float64, device=dev)
    for b in range(B):
        n = int(cache[b])
        t = torch.arange(n, device=dev)
        rows_ = table[b, t // BS].long() * BS + t % BS
        kv, kp = KV[rows_, 0].double(), Kpe[rows_, 0].double()
        s = (Q[b].double() @ kv.T + Qpe[b].double() @ kp.T) * scale
        ref[b] = torch.softmax(s, -1) @ kv
    compare(st, "Output", Out, ref)


def topk():
    st = "dsa_sparse_finetune__indexer_topk_reducesum__tl_indexer_topk_reducesum_impl"
    H, D, TOPK = 64, 128, 64
    lens = [100, 300, 500, 124]
    S = sum(lens)
    Q, W, K = rnd([S, H, D], torch.bfloat16), rnd([S, H], torch.bfloat16), rnd([S, D], torch.bfloat16)
    off = torch.tensor([0] + list(torch.cumsum(torch.tensor(lens), 0)), dtype=torch.int32, device=dev)
    tok = torch.cat([torch.stack([torch.full((n,), b), torch.arange(n)], 1) for b, n in enumerate(lens)]).int().to(dev)
    TI = torch.full([S, TOPK], -7, dtype=torch.int32, device=dev)
    RS = torch.full([S, TOPK], 7.0, device=dev)
    launch(st, [Q, W, K, TI, RS, off, tok, S, len(lens) + 1], {"seq_len": S, "batch_plus_one": len(lens) + 1})
    # rel3_topk.py's tie-tolerant check, with its reference (the kernel
    # scales Q in bf16 by the literal rounded to bf16).
    import rel3_topk
    np_ = lambda t: t.float().cpu().numpy()
    c = rel3_topk.verify(np_(Q), np_(W), np_(K), off.cpu().numpy(), tok.cpu().numpy(),
                         TI.cpu().numpy(), RS.cpu().double().numpy())
    rows.append((st, "TopkIndices (rows with other set)", S, 0, float(c["wrong_set"]), "-",
                 "PASS" if c["wrong_set"] == 0 else "FAIL"))
    rows.append((st, "TopkIndices (rows out of order)", S, 0, float(c["wrong_order"] + c["bad_tail"]), "-",
                 "PASS" if c["wrong_order"] + c["bad_tail"] == 0 else "FAIL"))
    rows.append((st, "ReduceSum (max abs err)", S, 0, c["rs_err"], "-", "PASS" if c["rs_err"] <= 1e-3 else "FAIL"))


def fwd():
    st = "flash_attention__example_gqa_bwd_tma_reduce_varlen__flashattn_fwd"
    B, TQ, TK, N, H, G, DQK, DV = 8, 8192, 8192, 1024, 32, 16, 192, 128
    HK = H // G
    Q, K, V = rnd([TQ, H, DQK], torch.float16), rnd([TK, HK, DQK], torch.float16), rnd([TK, HK, DV], torch.float16)
    cq, lq = seqlens(B, TQ, 1024)
    ck, lk = seqlens(B, TK, 1024)
    Out = torch.full([TQ, H, DV], 7.0, dtype=torch.float16, device=dev)
    lse = torch.full([B, H, N], 7.0, device=dev)
    so, sl = Out.clone(), lse.clone()
    launch(st, [Q, K, V, cq, ck, Out, lse])
    ro = torch.zeros([TQ, H, DV], dtype=torch.float64, device=dev)
    mo = torch.zeros_like(ro, dtype=torch.bool)
    rl = torch.zeros([B, H, N], dtype=torch.float64, device=dev)
    scale = (1.0 / DQK) ** 0.5
    for b in range(B):
        qs, ks = int(cq[b]), int(ck[b])
        q = Q[qs:qs + lq[b]].double().transpose(0, 1)
        k = K[ks:ks + lk[b]].double().transpose(0, 1).repeat_interleave(G, 0)
        v = V[ks:ks + lk[b]].double().transpose(0, 1).repeat_interleave(G, 0)
        s = q @ k.transpose(1, 2) * scale
        ro[qs:qs + lq[b]] = (torch.softmax(s, -1) @ v).transpose(0, 1)
        mo[qs:qs + lq[b]] = True
        rl[b, :, :lq[b]] = torch.logsumexp(s, -1) / math.log(2)  # the kernel's lse is base 2
    compare(st, "Output", Out, ro, mo, sentinel=so)
    compare(st, "lse (padding rows 0)", lse, rl, tol=1e-3)


def gdn():
    st = "gdn__example_wy_fast_bwd_split__tilelang_wy_fast_bwd"
    B, S, H, DK, DV, C = 1, 32768, 8, 128, 128, 64
    bf = torch.bfloat16
    K, V, Beta = rnd([B, S, H, DK], bf), rnd([B, S, H, DV], bf), rnd([B, S, H], bf)
    G = rnd([B, S, H], torch.float32)
    A, dw, du = rnd([B, S, H, C], bf), rnd([B, S, H, DK], bf), rnd([B, S, H, DV], bf)
    dA, dk, dv = (torch.full(s, 7.0, dtype=bf, device=dev) for s in ([B, S, H, C], [B, S, H, DK], [B, S, H, DV]))
    dbeta, dg = torch.full([B, S, H], 7.0, dtype=bf, device=dev), torch.full([B, S, H], 7.0, device=dev)
    launch(st, [K, V, Beta, G, A, dw, du, dA, dk, dv, dbeta, dg])
    n = S // C
    ch = lambda x: x.double().reshape(B, n, C, H, -1).permute(0, 1, 3, 2, 4)  # [B, n, H, C, d]
    k, v, a, w, u = ch(K), ch(V), ch(A), ch(dw), ch(du)
    beta, eg = ch(Beta.unsqueeze(-1)), ch(G.exp().unsqueeze(-1))
    at_w, at_u = a.transpose(-1, -2) @ w, a.transpose(-1, -2) @ u
    r_dA = w @ (k * beta * eg).transpose(-1, -2) + u @ (v * beta).transpose(-1, -2)
    r_dk, r_dv = at_w * beta * eg, at_u * beta
    r_db = (at_w * k * eg).sum(-1) + (at_u * v).sum(-1)
    r_dg = (at_w * k * eg * beta.squeeze(-1).unsqueeze(-1)).sum(-1)
    un = lambda x: x.permute(0, 1, 3, 2, 4).reshape(B, S, H, -1)
    compare(st, "dA", dA, un(r_dA))
    compare(st, "dk", dk, un(r_dk))
    compare(st, "dv", dv, un(r_dv))
    compare(st, "dbeta", dbeta, un(r_db.unsqueeze(-1)).squeeze(-1))
    compare(st, "dg", dg, un(r_dg.unsqueeze(-1)).squeeze(-1))


if __name__ == "__main__":
    torch.manual_seed(0)
    for f in (preprocess, mla, topk, fwd, gdn):
        try:
            f()
        except Exception as e:  # noqa: BLE001
            rows.append((f.__name__, "ERROR", 0, 0, float("nan"), "-", f"FAIL {type(e).__name__}: {e}"[:80]))
    print(f"{'kernel':78} {'output':34} {'written':>9} {'NaN':>5} {'rel err':>9} {'unwritten':>9} result")
    for r in rows:
        print(f"{r[0]:78} {r[1]:34} {r[2]:9d} {r[3]:5d} {r[4]:9.2e} {r[5]:>9} {r[6]}")
    sys.exit(0 if all(r[6] == "PASS" for r in rows) else 1)
