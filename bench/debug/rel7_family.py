#!/usr/bin/env python3
"""Which side is right on the three other kernels of the gdn / kda family
that differ in the differential test (issue #12)?

Session 6's run (bench/RESULTS.md) said `differs` for
  gdn_fwd_h  gdn example_chunk_delta_h, tilelang_chunk_gated_delta_rule_fwd_h:
             h has NaN on one side (0 vs 16,744,960 NaN);
  kda_fwd_h  kda chunk_delta_h_fwd, tilelang_chunk_gated_delta_rule_fwd_h:
             h rel. 2.83 (V_new and final_state agree);
  kda_wy     kda wy_fast, tilelang_recompute_w_u_fwd: QG rel. 1.00 (W, U,
             KG agree).
rel6_dhu.py settled the fourth (chunk_delta_bwd dhu: tilec right,
TileLang 0.1.15 wrong). This computes each kernel's meaning in float64
(numpy, written from the kernel's source in ../shared/conformance/kernels)
and compares both compilers' outputs with it, every element. Host code
shared with rel6_dhu.py: relref.py.

fwd_h (both): the state S (DK x DV, fp32 registers) runs forward over
the chunks c = 0 .. NT-1 (r: rounding to the input dtype, bf16 for gdn,
fp16 for kda; b_h_shared = r(S)):

    h[c]       = r(S)                                   (b_h_shared)
    v          = U_c - W_c @ r(S)
    V_new[c]   = r(v)                                   (before the gate)
    gdn:  v   *= exp(g_last - g_c) where g_last - g_c <= 0, else 0
          S   *= exp(g_last)
    kda:  S[k] *= exp2(GK[last row of c, k])            (per key row)
    S         += K_c^T @ r(v)
    final_state = S

With use_initial_state=False (gdn's conformance case) S starts at 0 but
b_h_shared is never written before the first chunk stores it to h[0] and
multiplies it into v: the kernel reads uninitialized shared memory, so
every output depends on what the block's shared memory held (the NaN on
one side). That case (`undefined`) is run and printed against the
zero-state reference but decides nothing; the defined cases set
use_initial_state=True.

wy (recompute_w_u_fwd), per chunk c of 64 rows (A_c: 64 x 64, r: bf16):

    U[c]  = r(A_c @ r(V_c * beta_c))
    W[c]  = r(A_c @ r(K_c * beta_c * exp2(G_c)))
    KG[c] = r(K_c * exp2(G[last row of c] - G_c))       (use_kg)
    QG    : never written (no statement stores it, whatever use_qg says)

so the verdict on QG is whether a side leaves it as it was: tilec's
output starts as NaN and must stay NaN; TileLang's is its own
allocation (poisoned where bench/diff_tilelang.py's poisoned_call
reaches it, through torch's caching allocator).

Isolating cases: `state_only` (fwd_h: every input but initial_state zero,
so h[c] = initial_state and final_state = initial_state exactly for every
chunk: a side that stores b_h_shared permuted shows it alone), `decay`
(fwd_h: K, W, U zero, so h[c] = r(initial_state * the gates of chunks
< c): a store one chunk early or late shows), `identity` (wy: A = I,
beta = 1, G = 0, so U = V, W = K, KG = K exactly).

    python3 bench/debug/rel7_family.py selftest            # here: numpy only
    python3 bench/debug/rel7_family.py prepare [TILEC]     # here: PTX + JSON
    python3 bench/debug/rel7_family.py run [KERNEL,...]    # GPU, bench/.out carried

`run` prints a line per case and side and a table; exit 1 if tilec is
wrong in a defined case.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import relref  # noqa: E402
from relref import bf16, f32, fp16, moved, rel  # noqa: E402

NAME = "rel7_family"
CHUNK = 64


def fwd_h_reference(x, gate, r, use_init=True, chunk=CHUNK):
    """(h, final_state, V_new) in float64. gate: "g" (gdn: G is (B, S, H),
    exp and the V mask) or "gk" (kda: GK is (B, S, H, DK), exp2 per key
    row). r: rounding to b_h_shared / V_new_shared's dtype (identity: exact)."""
    K, W, U, G, h0 = x["K"], x["W"], x["U"], x["G"], x["h0"]
    B, S, H, DK = K.shape
    DV = U.shape[-1]
    NT = -(-S // chunk)
    h = np.zeros((B, NT, H, DK, DV))
    vnew = np.zeros((B, S, H, DV))
    fin = np.zeros((B, H, DK, DV))
    for b in range(B):
        for hh in range(H):
            st = h0[b, hh].astype(np.float64) if use_init else np.zeros((DK, DV))
            for c in range(NT):
                rows = slice(c * chunk, (c + 1) * chunk)
                shared = r(st)
                h[b, c, hh] = shared
                v = U[b, rows, hh] - W[b, rows, hh] @ shared
                vnew[b, rows, hh] = r(v)
                if gate == "g":
                    g = G[b, rows, hh]
                    v = np.where((g[-1] - g <= 0)[:, None], v * np.exp(g[-1] - g)[:, None], 0.0)
                    st = st * np.exp(g[-1])
                else:
                    st = st * np.exp2(G[b, min(S, (c + 1) * chunk) - 1, hh])[:, None]
                st = st + K[b, rows, hh].T @ r(v)
            fin[b, hh] = st
    return h, fin, vnew


def wy_reference(x, r, chunk=CHUNK):
    """(W, U, KG) in float64 (QG: never written)."""
    K, V, Beta, G, A = x["K"], x["V"], x["Beta"], x["G"], x["A"]
    B, S, H, DK = K.shape
    w, u, kg = np.zeros_like(K), np.zeros_like(V), np.zeros_like(K)
    for b in range(B):
        for hh in range(H):
            for c in range(S // chunk):
                rows = slice(c * chunk, (c + 1) * chunk)
                a, beta, g = A[b, rows, hh], Beta[b, rows, hh][:, None], G[b, rows, hh]
                u[b, rows, hh] = r(a @ r(V[b, rows, hh] * beta))
                w[b, rows, hh] = r(a @ r(K[b, rows, hh] * beta * np.exp2(g)))
                kg[b, rows, hh] = r(K[b, rows, hh] * np.exp2(g[-1][None, :] - g))
    return w, u, kg


# Each kernel: its conformance stem, the -D values of its conformance case
# but the shapes, its inputs (name, shape letters, dtype), its outputs
# (name, shape function, dtype) and its cases: (name, shapes, overrides,
# input scale, inputs left zero, exact, defined).
FWD_H_FIXED = dict(accum_dtype="float32", gate_dtype="float32", state_dtype="float32",
                   chunk_size=64, store_final_state=True, save_new_value=True)


def _fwd_h_cases(gate):
    zero_but_h0 = ("K", "W", "U", "G")
    cases = [
        ("state_only", (1, 256, 2, 128, 64), {}, 1.0, zero_but_h0, True, True),
        ("decay", (1, 256, 2, 128, 64), {}, 0.25, ("K", "W", "U"), False, True),
        ("small", (1, 256, 2, 128, 64), {}, 0.125, (), False, True),
        ("conf_grid", (1, 2048, 8, 128, 128), {}, 1.0 / 256, (), False, True),
    ]
    if gate == "g":  # the conformance case: use_initial_state=False
        cases.append(("undefined", (1, 2048, 8, 128, 128), {"use_initial_state": False},
                      1.0 / 256, (), False, False))
    return cases


KERNELS = {
    "gdn_fwd_h": dict(
        stem="gdn__example_chunk_delta_h__tilelang_chunk_gated_delta_rule_fwd_h",
        fixed=dict(input_dtype="bfloat16", output_dtype="bfloat16", use_g=True,
                   use_initial_state=True, **FWD_H_FIXED),
        ins=(("K", "BSHK", "bfloat16"), ("W", "BSHK", "bfloat16"), ("U", "BSHV", "bfloat16"),
             ("G", "BSH", "float32"), ("h0", "BHKV", "bfloat16")),
        outs=(("h", "BNHKV", "bfloat16"), ("final_state", "BHKV", "float32"),
              ("V_new", "BSHV", "bfloat16")),
        cases=_fwd_h_cases("g")),
    "kda_fwd_h": dict(
        stem="kda__chunk_delta_h_fwd__tilelang_chunk_gated_delta_rule_fwd_h",
        fixed=dict(input_dtype="float16", output_dtype="float16", use_gk=True,
                   use_initial_state=True, **FWD_H_FIXED),
        ins=(("K", "BSHK", "float16"), ("W", "BSHK", "float16"), ("U", "BSHV", "float16"),
             ("G", "BSHK", "float32"), ("h0", "BHKV", "float16")),
        outs=(("h", "BNHKV", "float16"), ("final_state", "BHKV", "float32"),
              ("V_new", "BSHV", "float16")),
        cases=_fwd_h_cases("gk")),
    "kda_wy": dict(
        stem="kda__wy_fast__tilelang_recompute_w_u_fwd",
        fixed=dict(input_dtype="bfloat16", output_dtype="bfloat16", gate_dtype="float32",
                   accum_dtype="float32", chunk_size=64, use_qg=False, use_kg=True, block_S=64),
        ins=(("K", "BSHK", "bfloat16"), ("V", "BSHV", "bfloat16"), ("Beta", "BSH", "bfloat16"),
             ("G", "BSHK", "float32"), ("A", "BSHC", "bfloat16")),
        outs=(("W", "BSHK", "bfloat16"), ("U", "BSHV", "bfloat16"), ("QG", "BSHK", "bfloat16"),
              ("KG", "BSHK", "bfloat16")),
        cases=[("identity", (1, 256, 2, 128, 128), {}, 1.0, (), True, True),
               ("conf_grid", (1, 512, 4, 128, 128), {}, 0.5, (), False, True)]),
}


def shape(letters, dims):
    B, S, H, DK, DV = dims
    size = dict(B=B, S=S, H=H, K=DK, V=DV, N=-(-S // CHUNK), C=CHUNK)
    return tuple(size[c] for c in letters)


def params(kernel, case):
    k = KERNELS[kernel]
    _, dims, over = case[:3]
    return dict(zip(("B", "S", "H", "DK", "DV"), dims), **{**k["fixed"], **over})


def inputs(kernel, case, rng):
    """The case's inputs: randn * scale rounded to each input's dtype, the
    named ones zero; wy's `identity` case: A = I per chunk, beta = 1, G = 0."""
    k = KERNELS[kernel]
    name, dims, _, s, zero = case[:5]
    x = {n: relref.ROUND[dt](rng.standard_normal(shape(L, dims)) * s) for n, L, dt in k["ins"]}
    if kernel == "kda_wy" and name == "identity":
        x["A"] = np.zeros_like(x["A"])
        for c in range(dims[1] // CHUNK):
            x["A"][:, c * CHUNK:(c + 1) * CHUNK] = np.eye(CHUNK)[None, :, None, :]
        x["Beta"] = np.ones_like(x["Beta"])
        x["G"] = np.zeros_like(x["G"])
    return {n: v * 0 if n in zero else v for n, v in x.items()}


def reference(kernel, case, x):
    """The outputs in the order of KERNELS[kernel]["outs"] (QG: None)."""
    p = params(kernel, case)
    r = relref.ROUND[p["input_dtype"]]
    if kernel == "kda_wy":
        w, u, kg = wy_reference(x, r)
        return [w, u, None, kg]
    return list(fwd_h_reference(x, "g" if kernel == "gdn_fwd_h" else "gk", r,
                                p["use_initial_state"]))


def check(kernel, case, x, ref, got, side):
    """One side's outputs against the reference: (errors per output, NaN
    count, ok, notes). An output the kernel never writes (ref None) is ok
    when the side left it entirely NaN, as it started (TileLang's own
    allocation, not poisoned: `n/a`)."""
    name, exact, defined = case[0], case[5], case[6]
    tol = 1e-6 if exact else 1e-2
    errs, nan, ok, notes = [], 0, True, []
    for (oname, _, _), g, r in zip(KERNELS[kernel]["outs"], got, ref):
        if r is None:
            untouched = bool(np.isnan(g).all())
            errs.append("untouched" if untouched else
                        ("n/a" if side.endswith("(own allocation)") else "WRITTEN"))
            ok &= untouched or side.endswith("(own allocation)")
            if not untouched:
                notes.append(f"{oname}: {int(np.isfinite(g).sum())} of {g.size} elements finite, "
                             f"norm {np.linalg.norm(np.nan_to_num(g)):.3g} (never written by the kernel)")
            continue
        e = rel(g, r)
        errs.append(e)
        nan += int(np.isnan(g).sum())
        ok &= e < tol
    if not ok and kernel != "kda_wy":
        h, hr = got[0], ref[0]
        nt = h.shape[1]
        by_chunk = [rel(h[:, c], hr[:, c]) for c in range(min(nt, 8))]
        notes.append("h rel. err by chunk: " + " ".join(f"{e:.1e}" for e in by_chunk))
        late = [rel(h[:, c], hr[:, c + 1]) for c in range(min(nt - 1, 8))]
        notes.append("h[c] against the reference's h[c+1]: " + " ".join(f"{e:.1e}" for e in late))
        if name == "state_only":
            n, where = moved(h[0, 0, 0], x["h0"][0, 0])
            notes.append(f"h[0, 0, 0] has {n} of {h[0, 0, 0].size} elements other than "
                         f"initial_state's: {where}")
    if not ok and kernel == "kda_wy" and name == "identity":
        n, where = moved(got[0][0, :CHUNK, 0], x["K"][0, :CHUNK, 0])
        notes.append(f"W[0, :64, 0] has {n} elements other than K's: {where}")
    verdict = ("ok" if ok else "WRONG") if defined else ("agrees" if ok else "differs") + " (undefined)"
    return errs, nan, ok, verdict, notes


def selftest():
    """Each reference against a second formulation written independently
    (fwd_h: the recurrence over all heads at once with einsum, the closed
    forms of state_only and decay; wy: the chunk products as one batched
    matmul), without rounding; the rounded references against the exact
    ones; and check()'s verdicts on a right, a permuted and a one-chunk-late
    side."""
    rng = np.random.default_rng(1)
    ok = True
    for kernel, gate in (("gdn_fwd_h", "g"), ("kda_fwd_h", "gk")):
        case = ("small", (1, 192, 2, 16, 8), {}, 0.25, (), False, True)
        x = inputs(kernel, case, rng)
        h, fin, vn = fwd_h_reference(x, gate, lambda t: t)
        B, S, H, DK = x["K"].shape
        st = x["h0"].copy()  # (B, H, DK, DV)
        for c in range(S // CHUNK):
            r = slice(c * CHUNK, (c + 1) * CHUNK)
            ok &= rel(h[:, c], st) < 1e-12
            v = x["U"][:, r] - np.einsum("bshk,bhkv->bshv", x["W"][:, r], st)
            ok &= rel(vn[:, r], v) < 1e-12
            if gate == "g":
                g = x["G"][:, r]                                # (B, 64, H)
                gl = g[:, -1:]                                  # (B, 1, H)
                v = v * (np.exp(gl - g) * (gl <= g))[..., None]
                st = st * np.exp(gl[:, 0])[..., None, None]
            else:
                st = st * np.exp2(x["G"][:, (c + 1) * CHUNK - 1])[..., None]
            st = st + np.einsum("bshk,bshv->bhkv", x["K"][:, r], v)
        ok &= rel(fin, st) < 1e-12
        hr, finr, vnr = fwd_h_reference(x, gate, relref.ROUND[KERNELS[kernel]["fixed"]["input_dtype"]])
        e = max(rel(hr, h), rel(finr, fin), rel(vnr, vn))
        ok &= e < 2e-2
        print(f"selftest {kernel}: einsum formulation agrees: {ok}; rounded vs exact rel. {e:.1e}")
        for cname in ("state_only", "decay"):
            case = next(c for c in KERNELS[kernel]["cases"] if c[0] == cname)
            case = (cname, (1, 192, 2, 16, 8)) + case[2:]
            x = inputs(kernel, case, rng)
            ref = reference(kernel, case, x)
            if cname == "state_only":
                closed = all(np.array_equal(ref[0][:, c], x["h0"]) for c in range(3))
                closed &= np.array_equal(ref[1], x["h0"]) and not ref[2].any()
            else:
                G = x["G"]
                dec = np.ones_like(x["h0"])
                closed = True
                for c in range(3):
                    closed &= rel(ref[0][:, c], relref.ROUND[KERNELS[kernel]["fixed"]["input_dtype"]](
                        x["h0"] * dec)) < 1e-2
                    last = G[:, (c + 1) * CHUNK - 1]
                    dec = dec * (np.exp(last)[..., None, None] if gate == "g" else np.exp2(last)[..., None])
                closed &= not ref[2].any() and rel(ref[1], x["h0"] * dec) < 1e-2
            ok &= bool(closed)
            print(f"selftest {kernel} {cname}: closed form agrees: {bool(closed)}")
            good = check(kernel, case, x, ref, ref, "tilec")
            perm = [ref[0].copy()] + ref[1:]
            perm[0][:, :, :, :2] = perm[0][:, :, :, 1::-1]
            bad = check(kernel, case, x, ref, perm, "tilec")
            late = [np.concatenate([ref[0][:, 1:], ref[0][:, -1:]], 1)] + ref[1:]
            lbad = check(kernel, case, x, ref, late, "tilec")
            want = (True, False, cname == "state_only")  # state_only cannot see a late store
            ok &= (good[2], bad[2], lbad[2]) == want
            print(f"  check: right {good[3]}, permuted {bad[3]}, one chunk late {lbad[3]}"
                  + (f" | {bad[4][-1]}" if cname == "state_only" else ""))
    case = ("conf_grid", (1, 192, 2, 32, 16), {}, 0.5, (), False, True)
    x = inputs("kda_wy", case, rng)
    w, u, kg = wy_reference(x, lambda t: t)
    B, S, H, DK = x["K"].shape
    A = x["A"].reshape(B, S // CHUNK, CHUNK, H, CHUNK)
    beta = x["Beta"].reshape(B, S // CHUNK, CHUNK, H, 1)
    G = x["G"].reshape(B, S // CHUNK, CHUNK, H, DK)
    Kc = x["K"].reshape(G.shape)
    Vc = x["V"].reshape(B, S // CHUNK, CHUNK, H, -1)
    u2 = np.einsum("bcihj,bcjhv->bcihv", A, Vc * beta).reshape(u.shape)
    w2 = np.einsum("bcihj,bcjhk->bcihk", A, Kc * beta * np.exp2(G)).reshape(w.shape)
    kg2 = (Kc * np.exp2(G[:, :, -1:] - G)).reshape(kg.shape)
    e = max(rel(w, w2), rel(u, u2), rel(kg, kg2))
    wr, ur, kgr = wy_reference(x, bf16)
    er = max(rel(wr, w), rel(ur, u), rel(kgr, kg))
    ok &= e < 1e-12 and er < 2e-2
    print(f"selftest kda_wy: einsum formulation rel. {e:.1e}; rounded vs exact rel. {er:.1e}")
    case = ("identity", (1, 192, 2, 32, 16), {}, 1.0, (), True, True)
    x = inputs("kda_wy", case, rng)
    ref = reference("kda_wy", case, x)
    ident = np.array_equal(ref[0], x["K"]) and np.array_equal(ref[1], x["V"]) and np.array_equal(ref[3], x["K"])
    nan = np.full_like(x["K"], np.nan)
    good = check("kda_wy", case, x, ref, [ref[0], ref[1], nan, ref[3]], "tilec")
    wrote = check("kda_wy", case, x, ref, [ref[0], ref[1], x["K"], ref[3]], "tilec")
    own = check("kda_wy", case, x, ref, [ref[0], ref[1], x["K"], ref[3]], "TileLang (own allocation)")
    ok &= ident and good[2] and not wrote[2] and own[2]
    print(f"selftest kda_wy identity: W = K, U = V, KG = K: {ident}; QG untouched {good[3]}, "
          f"QG written {wrote[3]}, TileLang's own QG {own[3]} {own[0][2]}")
    print("selftest:", "ok" if ok else "FAILED")
    return 0 if ok else 1


def prepare(tilec):
    bad = 0
    for kernel, k in KERNELS.items():
        cases = [(f"{kernel}_{c[0]}", params(kernel, c)) for c in k["cases"]]
        bad += relref.prepare(tilec, k["stem"], NAME, cases)
    return 1 if bad else 0


TORCH_DTYPE = {"bfloat16": "bfloat16", "float16": "float16", "float32": "float32"}


def run(only=None):
    import torch
    rows, tilec_bad = [], 0
    for kernel, k in KERNELS.items():
        if only and kernel not in only:
            continue
        factory = relref.tilelang_factory(NAME, k["stem"], torch)
        rng = np.random.default_rng(0)
        for case in k["cases"]:
            x = inputs(kernel, case, rng)
            ref = reference(kernel, case, x)
            dims = case[1]
            ins = [torch.from_numpy(x[n]).to("cuda", getattr(torch, TORCH_DTYPE[dt])) for n, _, dt in k["ins"]]
            outs = [(shape(L, dims), getattr(torch, TORCH_DTYPE[dt])) for _, L, dt in k["outs"]]
            label = f"{kernel} {case[0]}"
            sides = [("tilec", relref.run_tilec(NAME, f"{kernel}_{case[0]}", ins, outs, torch))]
            if factory is not None:
                try:
                    p = params(kernel, case)
                    cu = (f"{relref.out_dir(NAME)}/tilelang_{kernel}_{case[0]}.cu"
                          if case[0] in ("state_only", "identity") else None)
                    got, poisoned = relref.run_tilelang(factory, (), p, ins, outs, torch, cu)
                    # poisoned_call's sentinel counts as untouched, as NaN does for tilec.
                    import diff_tilelang
                    got = [np.where(g == diff_tilelang.sentinel_value(dt, torch), np.nan, g) if pz else g
                           for g, (_, dt), pz in zip(got, outs, poisoned)]
                    tag = "TileLang" if all(poisoned) else "TileLang (own allocation)"
                    sides.append((tag, got))
                except Exception as e:  # noqa: BLE001
                    print(f"{label}: TileLang failed: {type(e).__name__}: {str(e)[:300]}")
            for side, got in sides:
                errs, nan, ok, verdict, notes = check(kernel, case, x, ref, got, side)
                rows.append((kernel, case[0], side, *errs, nan, verdict))
                names = [o[0] for o in k["outs"]]
                print(f"{label} {side}: " + " ".join(
                    f"{n} {e:.2e}" if isinstance(e, float) else f"{n} {e}" for n, e in zip(names, errs))
                    + f" NaN {nan} {verdict}", flush=True)
                for n in notes:
                    print(f"{label} {side}: {n}")
                tilec_bad += side == "tilec" and case[6] and not ok
            if len(sides) == 2:
                errs = [rel(np.nan_to_num(a, nan=0.0), np.nan_to_num(b, nan=0.0))
                        for a, b in zip(sides[0][1], sides[1][1])]
                rows.append((kernel, case[0], "tilec vs TileLang", *errs, "", ""))
    width = max(len(r) for r in rows)
    header = ("kernel", "case", "side") + tuple(f"out {i} rel. err" for i in range(width - 5)) + ("NaN", "result")
    print("outputs: " + "; ".join(f"{kn}: " + ", ".join(o[0] for o in KERNELS[kn]["outs"]) for kn in KERNELS))
    relref.table(header, [r[:3] + tuple(r[3:-2]) + ("",) * (width - len(r)) + r[-2:] for r in rows])
    return 1 if tilec_bad else 0


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "selftest":
        sys.exit(selftest())
    if cmd == "prepare":
        sys.exit(prepare(sys.argv[2] if len(sys.argv) > 2 else relref.TILEC))
    if cmd == "run":
        sys.exit(run(sys.argv[2].split(",") if len(sys.argv) > 2 else None))
    sys.exit(__doc__)
