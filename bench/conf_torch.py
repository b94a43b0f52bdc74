"""Checks a sample of the conformance kernels against our own torch references.

The conformance suite (../shared/conformance/) says which TileLang kernels
tilec compiles; this says whether what they compute is right. Each sampled
kernel gets fresh seeded random inputs (never zeros or constant fills; index
tensors are valid), tilec's PTX is launched through bench/tilec_launch.py,
and every output is compared with a reference written here from reading the
kernel (float64 where practical). Outputs start as NaN (integer outputs as
-1), so an element the kernel never writes fails unless the reference has a
NaN there too.

    python3 bench/conf_torch.py prepare --tilec build/bin/tilec --out DIR
        (no GPU, no torch) compiles each sampled kernel for sm_90a with the
        -D values of ../shared/conformance/cases.tsv, overridden by the
        sample's (smaller problems), to DIR/NAME.ptx + DIR/NAME.json, and
        copies this file and tilec_launch.py into DIR.
    cd DIR && python3 conf_torch.py run [--only NAME,...] [--jobs N]
        (on the GPU machine, with torch) one subprocess per kernel, each
        with a timeout, so a crash or a hang fails that kernel alone; prints
        one JSON line per kernel and a Markdown table last. Exit status 1
        when any kernel fails.
    python3 bench/conf_torch.py selftest
        (no GPU, no torch) the sample parses, every stem is a row of
        cases.tsv with a kernel file, every -D override names a word of
        that kernel's source, every reference function exists.

A check passes when every element is finite where the reference is and
|out - ref| <= atol + rtol * |ref| for all of them, and the same outputs
fail against the reference of other random inputs (a control: the
tolerance must tell this answer from another); "max rel err" is
max |out - ref| / max |ref|. --only and prepare's --only take the names
`list` prints. The TileLang kernels are test input only: the
references below are independent torch formulations of what they mean.
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
CONF = os.environ.get("TILEC_CONFORMANCE") or next(
    (d for d in (os.path.join(HERE, "..", "..", "shared", "conformance"),
                 "/work/shared/conformance")
     if os.path.isfile(os.path.join(d, "cases.tsv"))),
    "/work/shared/conformance")
TARGET = "sm_90a"
TIMEOUT_S = 90

# ---------------------------------------------------------------------------
# The sample: name -> (stem, -D overrides, reference function, description).
# A name differs from its stem where one kernel is checked in two variants.
CASES = {}


def case(name, stem, what, **defines):
    def register(fn):
        assert name not in CASES, name
        CASES[name] = {"stem": stem, "defines": defines, "ref": fn, "what": what}
        return fn
    return register


class Out:
    """An expected output: `ref` (a tensor, or a function of the kernel's
    output giving (got, ref)) within atol + rtol * |ref|."""

    def __init__(self, ref, atol, rtol):
        self.ref, self.atol, self.rtol = ref, atol, rtol


def T():
    import torch
    return torch


def randn(g, *shape, dtype=None, scale=1.0):
    torch = T()
    x = torch.randn(*shape, generator=g, device="cuda", dtype=torch.float32) * scale
    return x.to(dtype or torch.float32)


def f64(x):
    return x.to(T().float64)


FP16_GEMM_TOL = dict(atol=2e-2, rtol=2e-3)


def gemm_ab(D, g, relu=False):
    torch = T()
    M, N, K = D["M"], D["N"], D["K"]
    A, B = randn(g, M, K, dtype=torch.float16), randn(g, K, N, dtype=torch.float16)
    C = f64(A) @ f64(B)
    if relu:
        C = C.clamp_min(0)
    return {"A": A, "B": B}, {"C": Out(C, **FP16_GEMM_TOL)}


@case("gemm_fp16", "gemm__example_gemm__matmul", "C = A @ B (fp16, fp32 accumulate)",
      M=512, N=512, K=512)
def ref_gemm_fp16(D, g):
    return gemm_ab(D, g)


@case("gemm_relu", "examples__quickstart__matmul", "C = relu(A @ B) (fp16)",
      M=256, N=384, K=512)
def ref_gemm_relu(D, g):
    return gemm_ab(D, g, relu=True)


@case("gemm_persistent", "gemm__example_gemm_persistent__matmul_persistent",
      "C = A @ B, persistent tile walk", M=1024, N=1024, K=512)
def ref_gemm_persistent(D, g):
    return gemm_ab(D, g)


@case("gemm_ws", "warp_specialize__example_warp_specialize_gemm_copy_0_gemm_1__"
      "matmul_warp_specialize_copy_0_gemm_1", "C = A @ B, producer/consumer warps, TMA",
      M=512, N=512, K=512)
def ref_gemm_ws(D, g):
    return gemm_ab(D, g)


@case("gemm_splitk", "gemm_splitk__example_tilelang_gemm_splitk__matmul",
      "C += A @ B, K in 4 splits by fp32 atomics (C starts random)", M=512, N=512, K=1024)
def ref_gemm_splitk(D, g):
    torch = T()
    M, N, K = D["M"], D["N"], D["K"]
    A, B = randn(g, M, K, dtype=torch.float16), randn(g, K, N, dtype=torch.float16)
    C0 = randn(g, M, N)
    return {"A": A, "B": B, "C": C0.clone()}, \
        {"C": Out(f64(C0) + f64(A) @ f64(B), atol=1e-3, rtol=1e-5)}


@case("gemm_fp8", "gemm_fp8__example_tilelang_gemm_fp8__matmul",
      "C = A @ B.T (fp8 e4m3 in and out)", M=512, N=512, K=512)
def ref_gemm_fp8(D, g):
    torch = T()
    M, N, K = D["M"], D["N"], D["K"]
    A = randn(g, M, K).to(torch.float8_e4m3fn)
    B = randn(g, N, K).to(torch.float8_e4m3fn)
    # fp8 output: half an e4m3 ulp is 1/16 relative. Hopper's fp8 wgmma
    # accumulates with about 14 bits (the reason for the 2xAcc examples),
    # an error that scales with the partial sums (~sqrt(K)), not with the
    # element: on the H200 one small element of 262144 was 0.024 off
    # (0.035 for 0.059), hence an atol of 0.1 of |C| ~ 22.
    return {"A": A, "B": B}, {"C": Out(f64(A.float()) @ f64(B.float()).T, atol=0.1, rtol=7e-2)}


@case("gemm_dynamic", "dynamic_shape__example_dynamic__matmul_dynamic_mnk",
      "C = A @ B, run-time m, n, k not multiples of the tile")
def ref_gemm_dynamic(D, g):
    torch = T()
    m, n, k = 1000, 520, 296  # rows of 16-byte multiples, as TMA needs
    A, B = randn(g, m, k, dtype=torch.float16), randn(g, k, n, dtype=torch.float16)
    return {"A": A, "B": B, "m": m, "n": n, "k": k}, \
        {"C": Out(f64(A) @ f64(B), **FP16_GEMM_TOL)}


@case("gemv_naive", "gemv__example_gemv__naive_gemv", "C = B @ A (B [N, K], one thread a row)",
      N=1024, K=1024)
def ref_gemv_naive(D, g):
    torch = T()
    A, B = randn(g, D["K"], dtype=torch.float16), randn(g, D["N"], D["K"], dtype=torch.float16)
    return {"A": A, "B": B}, {"C": Out(f64(B) @ f64(A), **FP16_GEMM_TOL)}


@case("gemv_splitk", "gemv__example_gemv__splitk_gemv",
      "C = B @ A, K split over threads, shared atomics", N=1024, K=1024)
def ref_gemv_splitk(D, g):
    return ref_gemv_naive(D, g)


@case("gemv_reducer", "gemv__example_gemv__gemv_alloc_reducer",
      "o = a @ x (T.alloc_reducer)", M=1024, N=1024)
def ref_gemv_reducer(D, g):
    torch = T()
    a, x = randn(g, D["M"], D["N"], dtype=torch.float16), randn(g, D["N"], dtype=torch.float16)
    return {"a": a, "x": x}, {"o": Out(f64(a) @ f64(x), **FP16_GEMM_TOL)}


@case("elementwise_add", "elementwise__example_elementwise_add__elementwise_add",
      "C = A + B (fp32)", M=1024, N=1536)
def ref_elementwise_add(D, g):
    A, B = randn(g, D["M"], D["N"]), randn(g, D["M"], D["N"])
    return {"A": A, "B": B}, {"C": Out(f64(A) + f64(B), atol=1e-6, rtol=1e-6)}


@case("softmax", "online_softmax__online_softmax__softmax_kernel",
      "Y = softmax(X, dim=1), 8192 x 8192 fp16 (sizes fixed in the source)")
def ref_softmax(D, g):
    torch = T()
    X = randn(g, 8192, 8192, dtype=torch.float16)
    return {"X": X}, {"Y": Out(torch.softmax(f64(X), dim=1), atol=1e-6, rtol=5e-3)}


@case("layernorm", "norm__layernorm___layernorm_fwd",
      "Y = (X - mean) * rstd * gamma + beta (bf16), Mean, Rstd (fp32)", N=512, D=4096)
def ref_layernorm(D, g):
    torch = T()
    n, d, eps = D["N"], D["D"], float(D.get("eps", 1e-5))
    X = randn(g, n, d, dtype=torch.bfloat16, scale=2.0)
    X = (X.float() + 0.5).to(torch.bfloat16)  # a non-zero mean
    gamma = randn(g, d, dtype=torch.bfloat16)
    beta = randn(g, d, dtype=torch.bfloat16)
    x = f64(X)
    mean = x.mean(dim=1)
    rstd = 1 / torch.sqrt(x.var(dim=1, unbiased=False) + eps)
    y = (x - mean[:, None]) * rstd[:, None] * f64(gamma) + f64(beta)
    return {"X": X, "gamma": gamma, "beta": beta}, {
        "Y": Out(y, atol=2e-2, rtol=1e-2), "Mean": Out(mean, atol=1e-5, rtol=1e-5),
        "Rstd": Out(rstd, atol=1e-5, rtol=1e-4)}


@case("rms_norm", "norm__rms_norm__rms_norm_splitk",
      "B = A * rsqrt(mean(A^2, dim=1) + 1e-12) (fp32)", M=512, N=4096)
def ref_rms_norm(D, g):
    A = randn(g, D["M"], D["N"])
    a = f64(A)
    return {"A": A}, {"B": Out(a / (a.square().mean(dim=1, keepdim=True) + 1e-12).sqrt(),
                               atol=1e-6, rtol=1e-5)}


@case("cumsum_reverse", "gdn__example_cumsum__tilelang_chunk_local_cumsum_scalar",
      "reverse cumsum of G [B, S, H] along S within chunks of 64", B=2, S=1024, H=8)
def ref_cumsum(D, g):
    torch = T()
    B, S, H, c = D["B"], D["S"], D["H"], D["chunk_size"]
    G = randn(g, B, S, H)
    x = f64(G).view(B, S // c, c, H)
    ref = x.flip(2).cumsum(2).flip(2) if D["reverse"] else x.cumsum(2)
    return {"G": G}, {"G_new": Out(ref.reshape(B, S, H), atol=1e-5, rtol=1e-5)}


def attention(q, k, v, scale, causal_offset=None, mask=None):
    """softmax(q k^T * scale) v over the last two dims, float64; a query i
    sees keys j <= i + causal_offset when causal_offset is given."""
    torch = T()
    s = (q @ k.transpose(-1, -2)) * scale
    if causal_offset is not None:
        i = torch.arange(s.shape[-2], device=s.device)[:, None]
        j = torch.arange(s.shape[-1], device=s.device)[None, :]
        s = s.masked_fill(j > i + causal_offset, float("-inf"))
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    return torch.softmax(s, dim=-1) @ v


ATTN_TOL = dict(atol=5e-3, rtol=1e-2)


def mha_bhsd(D, g):
    torch = T()
    b, h, sq, skv, d = D["batch"], D["heads"], D["seq_q"], D["seq_kv"], D["dim"]
    Q = randn(g, b, h, sq, d, dtype=torch.float16)
    K = randn(g, b, h, skv, d, dtype=torch.float16)
    V = randn(g, b, h, skv, d, dtype=torch.float16)
    o = attention(f64(Q), f64(K), f64(V), d ** -0.5, (skv - sq) if D["is_causal"] else None)
    return {"Q": Q, "K": K, "V": V}, {"Output": Out(o, **ATTN_TOL)}


@case("mha_fwd_bhsd", "flash_attention__example_mha_fwd_bhsd__flashattn",
      "attention [b, h, s, d], not causal", batch=2, heads=4, seq_q=256, seq_kv=256, dim=64,
      is_causal=False)
def ref_mha_bhsd(D, g):
    return mha_bhsd(D, g)


@case("mha_fwd_bhsd_causal", "flash_attention__example_mha_fwd_bhsd__flashattn",
      "attention [b, h, s, d], causal, 128 queries after 128 past keys", batch=2, heads=4,
      seq_q=128, seq_kv=256, dim=64, is_causal=True)
def ref_mha_bhsd_causal(D, g):
    return mha_bhsd(D, g)


def bshd_attention(D, g, groups=1):
    torch = T()
    b, h, s, d = D["batch"], D["heads"], D["seq_len"], D["dim"]
    Q = randn(g, b, s, h, d, dtype=torch.float16)
    K = randn(g, b, s, h // groups, d, dtype=torch.float16)
    V = randn(g, b, s, h // groups, d, dtype=torch.float16)
    # [b, s, h, d] -> [b, h, s, d]; query head i reads kv head i // groups.
    q = f64(Q).transpose(1, 2)
    k = f64(K).transpose(1, 2).repeat_interleave(groups, dim=1)
    v = f64(V).transpose(1, 2).repeat_interleave(groups, dim=1)
    o = attention(q, k, v, d ** -0.5, 0 if D["is_causal"] else None).transpose(1, 2)
    return {"Q": Q, "K": K, "V": V}, {"Output": Out(o, **ATTN_TOL)}


@case("mha_fwd_bshd_causal", "flash_attention__example_mha_fwd_bshd__flashattn",
      "attention [b, s, h, d], causal", batch=2, heads=8, seq_len=512, dim=128, is_causal=True)
def ref_mha_bshd_causal(D, g):
    return bshd_attention(D, g)


@case("gqa_fwd_bshd", "flash_attention__example_gqa_fwd_bshd__flashattn",
      "grouped-query attention [b, s, h, d], 4 query heads a kv head", batch=1, heads=16,
      seq_len=512, dim=128, groups=4, is_causal=False)
def ref_gqa_bshd(D, g):
    return bshd_attention(D, g, groups=D["groups"])


@case("gqa_decode_split", "flash_decoding__example_gqa_decode__flashattn",
      "one-query GQA decode with a key mask, 4 kv splits merged by log-sum-exp", batch=2,
      heads=32, groups=8, seqlen_kv=1024, dim=128, num_split=4)
def ref_gqa_decode(D, g):
    torch = T()
    b, h, kvh, s, d = D["batch"], D["heads"], D["groups"], D["seqlen_kv"], D["dim"]
    Q = randn(g, b, h, d, dtype=torch.float16)
    K = randn(g, b, s, kvh, d, dtype=torch.float16)
    V = randn(g, b, s, kvh, d, dtype=torch.float16)
    mask = (torch.rand(b, s, kvh, generator=g, device="cuda") < 0.75).to(torch.int8)
    rep = h // kvh
    q = f64(Q)[:, :, None, :]                                   # [b, h, 1, d]
    k = f64(K).permute(0, 2, 1, 3).repeat_interleave(rep, dim=1)  # [b, h, s, d]
    v = f64(V).permute(0, 2, 1, 3).repeat_interleave(rep, dim=1)
    m = (mask != 0).permute(0, 2, 1).repeat_interleave(rep, dim=1)[:, :, None, :]
    o = attention(q, k, v, d ** -0.5, mask=m)[:, :, 0, :]
    # The splits' partial outputs and log-sum-exps are fp16 workspaces.
    return {"Q": Q, "K": K, "V": V, "mask": mask}, {"Output": Out(o, atol=1e-2, rtol=2e-2)}


@case("mla_decode", "deepseek_mla__example_mla_decode__flashattn",
      "MLA decode: softmax((Q KV^T + Q_pe K_pe^T) * scale) KV, one kv head", batch=4, heads=128,
      seqlen_kv=1024)
def ref_mla_decode(D, g):
    torch = T()
    b, h, s, d, pe = D["batch"], D["heads"], D["seqlen_kv"], D["dim"], D["pe_dim"]
    Q = randn(g, b, h, d, dtype=torch.float16)
    Q_pe = randn(g, b, h, pe, dtype=torch.float16)
    KV = randn(g, b, s, 1, d, dtype=torch.float16)
    K_pe = randn(g, b, s, 1, pe, dtype=torch.float16)
    scores = (f64(Q) @ f64(KV)[:, :, 0].transpose(1, 2) +
              f64(Q_pe) @ f64(K_pe)[:, :, 0].transpose(1, 2)) * float(D["softmax_scale"])
    o = torch.softmax(scores, dim=-1) @ f64(KV)[:, :, 0]
    return {"Q": Q, "Q_pe": Q_pe, "KV": KV, "K_pe": K_pe}, {"Output": Out(o, **ATTN_TOL)}


@case("conv2d", "convolution__example_convolution__convolution",
      "conv2d NHWC x [KH, KW, C, F], stride 1, padding 1, dilation 1 (implicit GEMM, im2col)",
      N=2, C=64, H=32, W=32, F=128, K=3)
def ref_conv(D, g):
    torch = T()
    data = randn(g, D["N"], D["H"], D["W"], D["C"], dtype=torch.float16)
    kernel = randn(g, D["K"], D["K"], D["C"], D["F"], dtype=torch.float16)
    out = torch.nn.functional.conv2d(
        f64(data).permute(0, 3, 1, 2), f64(kernel).permute(3, 2, 0, 1),
        stride=D["S"], padding=D["P"], dilation=D["D"]).permute(0, 2, 3, 1)
    return {"data": data, "kernel": kernel}, {"out": Out(out, **FP16_GEMM_TOL)}


@case("topk", "deepseek_v32__topk_selector__tl_topk_impl",
      "top-512 of each row's input[start:end] (the set of values; any order)", topk=512)
def ref_topk(D, g):
    torch = T()
    batch, seq, k = 8, 8192, D["topk"]
    x = randn(g, batch, seq)
    starts = torch.randint(0, 512, (batch,), generator=g, device="cuda", dtype=torch.int32)
    ends = torch.randint(seq - 512, seq + 1, (batch,), generator=g, device="cuda",
                         dtype=torch.int32)
    ref = torch.stack([torch.topk(f64(x[r, starts[r]:ends[r]]), k).values
                       for r in range(batch)])

    def got(index):
        # The values the indices pick, sorted; an index outside
        # [start, end) or a repeated one picks NaN.
        idx = index.long()
        ok = (idx >= starts[:, None].long()) & (idx < ends[:, None].long())
        srt = idx.sort(dim=1).values
        dup = torch.zeros_like(ok)
        dup[:, 1:] = srt[:, 1:] == srt[:, :-1]
        vals = f64(x).gather(1, idx.clamp(0, seq - 1))
        vals = vals.masked_fill(~ok, float("nan"))
        vals[dup.any(dim=1)] = float("nan")
        return vals.sort(dim=1, descending=True).values, ref

    return {"input": x, "starts": starts, "ends": ends, "batch": batch, "seq_len": seq}, \
        {"index": Out(got, atol=0, rtol=0)}


def e4m3(x):
    return x.to(T().float8_e4m3fn)


@case("cast_fp8_per_token", "cast__example_per_token_cast_to_fp8__per_token_cast_to_fp8",
      "per-128-group s = max(absmax, 1e-4) / 448, X_fp8 = e4m3(clamp(X / s))", M=256, N=1024)
def ref_cast_fp8(D, g):
    torch = T()
    M, N = D["M"], D["N"]
    X = randn(g, M, N, scale=3.0)
    Xg = X.view(M, N // 128, 128)
    s = Xg.abs().amax(dim=2).clamp_min(1e-4) / 448.0  # fp32, as the kernel
    q = e4m3((Xg / s[:, :, None]).clamp(-448, 448)).view(M, N)
    # e4m3 values to one ulp (x / s rounded in fp32 may tip a rounding tie).
    return {"X": X}, {"X_fp8": Out(f64(q.float()), atol=2 ** -9, rtol=0.125),
                      "X_amax": Out(f64(s), atol=0, rtol=1e-6)}


@case("act_quant_pow2", "deepseek_v32__kernel__act_quant_kernel",
      "bf16 -> e4m3 per 128-group with a power-of-two scale 2^ceil(log2(absmax / 448))", N=1024,
      round_scale=True)
def ref_act_quant(D, g):
    torch = T()
    M, N = 256, D["N"]
    X = randn(g, M, N, dtype=torch.bfloat16, scale=4.0)
    Xg = X.float().view(M, N // 128, 128)
    v = Xg.abs().amax(dim=2).clamp_min(1e-4) * torch.tensor(1 / 448.0, dtype=torch.float32)
    mant, ex = torch.frexp(v)  # v = mant * 2^ex, mant in [0.5, 1)
    s = torch.ldexp(torch.ones_like(v), (ex - (mant == 0.5).int()).float())
    y = e4m3((Xg / s[:, :, None]).clamp(-448, 448)).view(M, N)
    return {"X": X, "M": M}, {"Y": Out(f64(y.float()), atol=2 ** -9, rtol=0.125),
                              "S": Out(f64(s), atol=0, rtol=0)}


@case("attn_bwd_preprocess", "flash_attention__example_mha_bwd_bhsd__flashattn_bwd_preprocess",
      "Delta = sum(O * dO, dim=-1) [b, h, s]", batch=2, heads=4, seq_len=256, dim=64)
def ref_bwd_preprocess(D, g):
    torch = T()
    shape = (D["batch"], D["heads"], D["seq_len"], D["dim"])
    O, dO = randn(g, *shape, dtype=torch.float16), randn(g, *shape, dtype=torch.float16)
    # The kernel multiplies in fp16 before summing in fp32.
    return {"O": O, "dO": dO}, {"Delta": Out((f64(O) * f64(dO)).sum(-1), atol=1e-2, rtol=1e-3)}


@case("attn_bwd_postprocess", "flash_attention__example_mha_bwd_bshd__flashattn_bwd_postprocess",
      "dQ_out = fp16(dQ) read through dQ's index map [b, l/8, h, d/8, d%2, 4(l%8)+(d%8)/2]",
      batch=2, heads=4, seq_len=256, dim=64)
def ref_bwd_postprocess(D, g):
    torch = T()
    b, s, h, d = D["batch"], D["seq_len"], D["heads"], D["dim"]
    dQ = randn(g, b, s, h, d)
    phys = f64(dQ).reshape(b, s // 8, h, d // 8, 2, 32)
    l = torch.arange(s, device="cuda")[:, None, None]
    dd = torch.arange(d, device="cuda")[None, None, :]
    out = phys[:, l // 8, torch.arange(h, device="cuda")[None, :, None], dd // 8, dd % 2,
               4 * (l % 8) + (dd % 8) // 2]
    return {"dQ": dQ}, {"dQ_out": Out(out, atol=1e-4, rtol=1e-3)}


@case("hadamard", "hadamard_transform__example_hadamard__hadamard",
      "B = A @ H_32768 (Sylvester Hadamard, unnormalised; fp32)", b=8)
def ref_hadamard(D, g):
    n = D["n"]
    A = randn(g, D["b"], n)
    x = f64(A)
    h = 1
    while h < n:  # butterflies: H_2n = [[H, H], [H, -H]]
        x = x.view(-1, n // (2 * h), 2, h)
        x = T().stack((x[:, :, 0] + x[:, :, 1], x[:, :, 0] - x[:, :, 1]), dim=2)
        h *= 2
    return {"A": A}, {"B": Out(x.reshape(D["b"], n), atol=1e-3, rtol=1e-4)}


# ---------------------------------------------------------------------------
def parse_value(text):
    if text in ("True", "False"):
        return text == "True"
    if text == "None":
        return None
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def read_cases_tsv(path):
    rows = {}
    with open(path) as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            cols = dict(zip(header, line.rstrip("\n").split("\t")))
            rows[cols["file"]] = cols
    return rows


def split_defines(text):
    # Values may hold spaces ("[64, 128, 256]"): split before each name=.
    return [kv for kv in re.split(r"\s+(?=[A-Za-z_]\w*=)", text.strip()) if kv]


def defines_for(name, rows):
    c = CASES[name]
    D = {}
    for kv in split_defines(rows[c["stem"] + ".tile"].get("defines", "")):
        k, v = kv.split("=", 1)
        D[k] = parse_value(v)
    D.update(c["defines"])
    return D


def define_text(v):
    return str(v)


def selftest():
    rows = read_cases_tsv(os.path.join(CONF, "cases.tsv"))
    problems = []
    for name, c in CASES.items():
        tile = c["stem"] + ".tile"
        if tile not in rows:
            problems.append(f"{name}: {tile} is no row of cases.tsv")
            continue
        path = os.path.join(CONF, "kernels", tile)
        if not os.path.isfile(path):
            problems.append(f"{name}: no kernel file {path}")
            continue
        source = open(path).read()
        for k in c["defines"]:
            if not re.search(r"\b%s\b" % re.escape(k), source):
                problems.append(f"{name}: -D {k} names nothing in {tile}")
        if not callable(c["ref"]) or not c["what"]:
            problems.append(f"{name}: no reference function or description")
        defines_for(name, rows)
    stems = {c["stem"] for c in CASES.values()}
    print(f"selftest: {len(CASES)} cases, {len(stems)} kernels, "
          f"{len(problems)} problems")
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


def prepare(tilec, out, only=None):
    os.makedirs(out, exist_ok=True)
    rows = read_cases_tsv(os.path.join(CONF, "cases.tsv"))
    # --only adds to (or redoes part of) an earlier prepare of the same DIR.
    listed = os.path.join(out, "prepared.json")
    manifest = json.load(open(listed)) if only and os.path.isfile(listed) else {}
    failed = 0
    names = [n for n in CASES if not only or n in only]
    for name in names:
        D = defines_for(name, rows)
        src = os.path.join(CONF, "kernels", CASES[name]["stem"] + ".tile")
        cmd = [tilec, src, "--target", TARGET, "--json", os.path.join(out, name + ".json"),
               "-o", os.path.join(out, name + ".ptx")]
        for k, v in D.items():
            cmd += ["-D", f"{k}={define_text(v)}"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        manifest[name] = {"stem": CASES[name]["stem"], "defines": D,
                          "compile_error": r.stderr.strip()[-2000:] if r.returncode else None}
        print(f"{name}: {'compiled' if r.returncode == 0 else 'FAILED: ' + r.stderr.strip()}")
        failed += r.returncode != 0
    with open(listed, "w") as f:
        json.dump(manifest, f, indent=1)
    shutil.copy(os.path.abspath(__file__), os.path.join(out, "conf_torch.py"))
    shutil.copy(os.path.join(HERE, "tilec_launch.py"), os.path.join(out, "tilec_launch.py"))
    print(f"prepared {len(names) - failed}/{len(names)} in {out}")
    return 1 if failed else 0


# ---------------------------------------------------------------------------
# On the GPU machine.
DTYPES = None


def torch_dtype(name):
    global DTYPES
    torch = T()
    if DTYPES is None:
        DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16,
                  "float32": torch.float32, "float64": torch.float64, "int8": torch.int8,
                  "uint8": torch.uint8, "int16": torch.int16, "int32": torch.int32,
                  "int64": torch.int64, "uint32": torch.uint32,
                  "float8_e4m3": torch.float8_e4m3fn, "float8_e4m3fn": torch.float8_e4m3fn,
                  "float8_e5m2": torch.float8_e5m2}
    return DTYPES[name]


def evaluate(expr, env):
    if isinstance(expr, int):
        return expr
    return int(eval(str(expr).replace("/", "//"), {"__builtins__": {}}, env))


def launch(mod, fn, args, env):
    import ctypes
    import tilec_launch as tl
    for kernel in fn["kernels"]:
        handle = ctypes.c_void_p()
        tl._check(tl._cuda.cuModuleGetFunction(ctypes.byref(handle), mod.module,
                                               kernel["entry"].encode()), "cuModuleGetFunction")
        shared = int(kernel["dynamic_shared_bytes"])
        if shared > 0:
            tl._check(tl._cuda.cuFuncSetAttribute(handle, tl._MAX_DYNAMIC_SHARED, shared),
                      "cuFuncSetAttribute")
        pointers, keep = tl.kernel_arg_values(kernel, args, fn["params"])
        grid = tl.launch_grid(kernel, [evaluate(g, env) for g in kernel["grid"]])
        block = kernel["block"]
        if kernel.get("cooperative"):
            tl._check(tl._cuda.cuLaunchCooperativeKernel(handle, *grid, *block, shared, None,
                                                         pointers), "cuLaunchCooperativeKernel")
        else:
            tl._check(tl._cuda.cuLaunchKernel(handle, *grid, *block, shared, None, pointers,
                                              None), "cuLaunchKernel")
    T().cuda.synchronize()


def compare(got, ref, atol, rtol):
    torch = T()
    got, ref = f64(got.float() if got.dtype.itemsize == 1 and got.is_floating_point() else got), \
        f64(ref)
    if got.shape != ref.shape:
        raise RuntimeError(f"output shape {tuple(got.shape)}, reference {tuple(ref.shape)}")
    finite = torch.isfinite(ref)
    unwritten = int((~torch.isfinite(got) & finite).sum())
    d = (got - ref).abs().masked_fill(~finite, 0)
    bad = int((d > atol + rtol * ref.abs().masked_fill(~finite, 0)).sum())
    same_nonfinite = bool(((got == ref) | (got.isnan() & ref.isnan()) | finite).all())
    scale = float(ref.abs().masked_fill(~finite, 0).max()) if ref.numel() else 0.0
    max_abs = float(d.max()) if d.numel() else 0.0
    # The elements furthest beyond the tolerance (unwritten ones first), to
    # tell a wrong tile from a rounding edge.
    excess = (d - atol - rtol * ref.abs()).masked_fill(~finite, float("-inf"))
    excess = excess.masked_fill(~torch.isfinite(got) & finite, float("inf")).flatten()
    worst = []
    if bad or unwritten:
        top = excess.topk(min(3, excess.numel()))
        for e, i in zip(top.values.tolist(), top.indices.tolist()):
            if e > 0:
                at = [int(x) for x in torch.unravel_index(torch.tensor(i), ref.shape)]
                worst.append({"at": at, "got": float(got.flatten()[i]),
                              "ref": float(ref.flatten()[i])})
    return {"elements": ref.numel(), "nonfinite": unwritten, "beyond_tol": bad, "worst": worst,
            "max_abs": max_abs if unwritten == 0 else float("inf"),
            "max_rel": (max_abs / scale if scale else max_abs) if unwritten == 0 else float("inf"),
            "ok": unwritten == 0 and bad == 0 and same_nonfinite}


def run_one(name, manifest):
    torch = T()
    import tilec_launch
    entry = manifest[name]
    if entry["compile_error"]:
        return {"verdict": "COMPILE", "error": entry["compile_error"]}
    D = entry["defines"]
    mod = tilec_launch.Module(name + ".ptx", name + ".json")
    fn = mod.meta["functions"][0]
    g = torch.Generator(device="cuda")
    g.manual_seed(zlib.crc32(name.encode()))
    inputs, expected = CASES[name]["ref"](D, g)
    env = {k: v for k, v in D.items() if isinstance(v, (int, float))}
    env.update({k: v for k, v in fn.get("bindings", {}).items() if isinstance(v, int)})
    env.update({k: v for k, v in inputs.items() if isinstance(v, (int, float))})
    args, by_name = [], {}
    for p in fn["params"]:
        n = p["name"]
        if p["kind"] == "tensor":
            shape = [evaluate(s, env) for s in p["shape"]]
            dtype = torch_dtype(p["dtype"])
            if n in inputs:
                t = inputs[n]
                # uint8 parameters are described as int8: the same bytes.
                same = t.dtype == dtype or {t.dtype, dtype} == {torch.int8, torch.uint8}
                if not same or list(t.shape) != shape:
                    raise RuntimeError(f"input {n}: {t.dtype} {list(t.shape)}, the kernel "
                                       f"takes {dtype} {shape}")
            elif dtype.is_floating_point:
                t = torch.full(shape, float("nan"), dtype=torch.float32,
                               device="cuda").to(dtype)
            else:
                t = torch.full(shape, -1, dtype=dtype, device="cuda")
        else:
            if n not in inputs:
                raise RuntimeError(f"no value for scalar {n}")
            t = inputs[n]
        by_name[n] = t
        args.append(t)
    missing = set(expected) - set(by_name)
    if missing:
        raise RuntimeError(f"expected outputs {sorted(missing)} are no parameters")
    t0 = time.time()
    launch(mod, fn, args, env)
    ms = (time.time() - t0) * 1e3
    outs = {}
    for n, e in expected.items():
        got, ref = e.ref(by_name[n]) if callable(e.ref) else (by_name[n], e.ref)
        r = compare(got, ref, e.atol, e.rtol)
        r["tolerance"] = f"atol {e.atol:g}, rtol {e.rtol:g}"
        outs[n] = r
    # A control: the same outputs against the reference of other random
    # inputs must fail, or the tolerance would pass anything.
    g.manual_seed(zlib.crc32(name.encode()) ^ 0x5BD1E995)
    _, control = CASES[name]["ref"](D, g)
    loose = []
    for n, e in control.items():
        got, ref = e.ref(by_name[n]) if callable(e.ref) else (by_name[n], e.ref)
        if compare(got, ref, e.atol, e.rtol)["ok"]:
            loose.append(n)
    ok = all(r["ok"] for r in outs.values()) and not loose
    return {"verdict": "PASS" if ok else "FAIL", "launch_ms": round(ms, 2),
            "control_passed": loose,
            "elements": sum(r["elements"] for r in outs.values()),
            "max_abs": max(r["max_abs"] for r in outs.values()),
            "max_rel": max(r["max_rel"] for r in outs.values()), "outputs": outs}


def child(name):
    manifest = json.load(open("prepared.json"))
    try:
        result = run_one(name, manifest)
    except Exception as e:  # reported as this kernel's verdict
        result = {"verdict": "ERROR", "error": f"{type(e).__name__}: {e}"}
    result = {"kernel": name, "stem": CASES[name]["stem"], "what": CASES[name]["what"], **result}
    print("RESULT " + json.dumps(result), flush=True)


def fmt(x):
    if x is None:
        return "-"
    if isinstance(x, float) and math.isinf(x):
        return "inf"
    return f"{x:.2e}"


def run(only, jobs, timeout):
    from concurrent.futures import ThreadPoolExecutor
    manifest = json.load(open("prepared.json"))
    names = [n for n in CASES if n in manifest and (not only or n in only)]
    unknown = set(only or []) - set(CASES)
    if unknown:
        print(f"unknown kernels: {sorted(unknown)}", file=sys.stderr)
        return 2

    def one(name):
        try:
            r = subprocess.run([sys.executable, os.path.abspath(__file__), "child", name],
                               capture_output=True, text=True, timeout=timeout)
            for line in r.stdout.splitlines():
                if line.startswith("RESULT "):
                    return json.loads(line[7:])
            return {"kernel": name, "stem": CASES[name]["stem"], "what": CASES[name]["what"],
                    "verdict": "CRASH", "error": f"exit {r.returncode}: {r.stderr[-1500:]}"}
        except subprocess.TimeoutExpired:
            return {"kernel": name, "stem": CASES[name]["stem"], "what": CASES[name]["what"],
                    "verdict": "TIMEOUT", "error": f"over {timeout} s"}

    results = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for r in pool.map(one, names):
            print(json.dumps(r), flush=True)
            results.append(r)
    passed = sum(r["verdict"] == "PASS" for r in results)
    print(f"\nconf_torch: {passed}/{len(results)} pass\n")
    print("| kernel | what the reference computes | elements | max abs err | max rel err "
          "| tolerance | verdict |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in results:
        outs = r.get("outputs", {})
        tol = "; ".join(f"{n}: {o['tolerance']}" for n, o in outs.items()) if outs else "-"
        verdict = r["verdict"]
        if verdict == "FAIL":
            why = []
            for n, o in outs.items():
                if not o["ok"]:
                    why.append(f"{n}: {o['nonfinite']} unwritten, {o['beyond_tol']} beyond")
                    why += [f"{n}{w['at']} = {w['got']:.6g}, ref {w['ref']:.6g}"
                            for w in o["worst"][:1]]
            why += [f"{n} passes against other inputs' reference too"
                    for n in r.get("control_passed", [])]
            verdict += " (" + "; ".join(why) + ")"
        elif "error" in r:
            verdict += " (" + r["error"].splitlines()[-1][:160].replace("|", "/") + ")"
        print(f"| {r['kernel']} | {r['what']} | {r.get('elements', '-')} | "
              f"{fmt(r.get('max_abs'))} | {fmt(r.get('max_rel'))} | {tol} | {verdict} |")
    return 0 if passed == len(results) else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--tilec", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--only", help="comma-separated kernel names")
    r = sub.add_parser("run")
    r.add_argument("--only", help="comma-separated kernel names")
    r.add_argument("--jobs", type=int, default=4, help="kernels run at a time")
    r.add_argument("--timeout", type=int, default=TIMEOUT_S, help="seconds a kernel")
    sub.add_parser("selftest")
    sub.add_parser("list")
    c = sub.add_parser("child")
    c.add_argument("name")
    a = ap.parse_args()
    if a.mode == "prepare":
        unknown = set(a.only.split(",") if a.only else []) - set(CASES)
        if unknown:
            print(f"unknown kernels: {sorted(unknown)}", file=sys.stderr)
            return 2
        return prepare(a.tilec, a.out, a.only.split(",") if a.only else None)
    if a.mode == "selftest":
        return selftest()
    if a.mode == "list":
        for n, c in CASES.items():
            print(f"{n}\t{c['stem']}\t{c['what']}")
        return 0
    if a.mode == "child":
        os.chdir(os.path.dirname(os.path.abspath(__file__)))
        sys.path.insert(0, os.getcwd())
        child(a.name)
        return 0
    os.chdir(os.path.dirname(os.path.abspath(__file__)))  # DIR, as prepare left it
    return run(a.only.split(",") if a.only else None, a.jobs, a.timeout)


if __name__ == "__main__":
    sys.exit(main())
