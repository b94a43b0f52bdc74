#!/usr/bin/env python3
"""Valid integer index inputs for the differential test (bench/diff_tma.py).

The shared runner (../shared/sxs/diff_run.py) fills every integer tensor
with random values in [0, 4). For a varlen or paged kernel those are not
inputs it can be called with: cu_seqlens that decrease give negative
lengths, token indices point several blocks at one output row (which block
wins is a race), block tables name pages at random. Both compilers then
compute garbage, differently, and the runner says `differs` (NaN in one,
unwritten elements in the other) about a kernel that may be right.

This derives valid values from what the metadata JSON says of each
parameter (name, shape, dtype) and the instance's -D values, for the index
tensors kernels commonly take:

  prefix sums   `cu_*` / `*offsets` of shape [n + 1]: 0, then ascending by
                sequence lengths in [1, max length], the last entry the
                total; the total fits the token dimension of every tensor
                whose leading dimension is that token count (or equals the
                row count of a token-index table, below), and equals it
                where the max length allows (every packed row is covered)
  token table   `*token*indices` of shape [T, 2]: (sequence, position) of
                every token of those prefix sums, in order
  lengths       `*seqlens` / `*lens` / `*lengths` of shape [batch]: in
                [1, max length]
  block table   `*block_table*` / `*page_table*` of shape [batch, pages]:
                distinct page numbers below the page count (batch * pages,
                bounded by the paged tensor's rows / the page size)
  group sizes   `X_sizes` with `X_offsets` (and `X_padded_offsets`) of one
                shape [groups]: sizes in [1, M / groups], offsets their
                exclusive prefix sums (padded to block_M)

The -D values are the function's `bindings` in the metadata (the factory's
parameters), overridden by the case's. The max length is the smallest one named like a maximum sequence
length (`max_seq*`, `max_seqlen*`, `N_CTX`, `seqlen*`), bounded by the
last dimension of per-sequence outputs such as lse [batch, heads, N]; a
T.dynamic symbol that sizes only such count tensors (`batch_plus_one`) is
set to 5 rather than the runner's 256, so that the sequences are more
than one token long; an integer scalar named like a maximum length
(`max_seqlen_q`) is the longest generated sequence (the runner's 7 left
the rest of each sequence out of the grid). Every other tensor keeps the
runner's values.

    python3 bench/diff_inputs.py META.json [NAME=VALUE ...]   # -D overrides

prints what it would generate for each function and checks the
invariants (exit 1 if one fails): the lit test's entry point
(test/Tools/diff-inputs.test).
"""
import json
import re
import sys

import numpy as np

INT_DTYPES = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}
MAXLEN_NAME = re.compile(r"^(max_seq\w*|max_seqlen\w*|n_ctx|seqlen\w*|seq_len\w*|max_len\w*)$", re.I)


def _kind(name, shape):
    n = name.lower()
    if "token" in n and "indices" in n and len(shape) == 2 and shape[1] == 2:
        return "token_table"
    if ("block_table" in n or "page_table" in n) and len(shape) == 2:
        return "block_table"
    if len(shape) != 1:
        return None
    if n.startswith("cu_") or (n.endswith("offsets") and "padded" not in n):
        return "prefix"
    if n.endswith("_sizes") or n == "sizes":
        return "sizes"
    if n.endswith("padded_offsets"):
        return "padded"
    if n.endswith("seqlens") or n.endswith("seqlen") or n.endswith("_lens") or n.endswith("lengths"):
        return "lengths"
    return None


def _shape(p, sym):
    return [int(eval(str(s).replace("/", "//"), {}, dict(sym))) for s in p.get("shape", [])]


def symbol_values(fn, default=256):
    """The runner's value for each T.dynamic symbol: 256, except 5 for a
    symbol that sizes nothing but 1-D count tensors (prefix sums)."""
    sym = {}
    for s in fn.get("symbols", []):
        uses = [(p["name"], p.get("shape", [])) for p in fn["params"]
                if p["kind"] == "tensor" and any(re.search(rf"\b{s}\b", str(d)) for d in p.get("shape", []))]
        only_counts = uses and all(len(shp) == 1 and _kind(n, [0]) == "prefix" for n, shp in uses)
        sym[s] = 5 if only_counts else default
    return sym


def _max_length(params, fn, sym, batch):
    cands = [int(v) for k, v in params.items() if MAXLEN_NAME.match(k) and isinstance(v, int) and v > 0]
    # Per-sequence outputs ([batch, ..., N]) hold N positions at most.
    for p in fn["params"]:
        if p["kind"] == "tensor" and p["dtype"] not in INT_DTYPES:
            shp = _shape(p, sym)
            if len(shp) >= 2 and shp[0] == batch and shp[-1] > 1 and p.get("output"):
                cands.append(shp[-1])
    return min(cands) if cands else None


def _token_rows(floats, batch):
    """The token count of the packed (unpadded) tensors: the smallest
    leading dimension of a float tensor of rank >= 2 that is not the batch
    (Q [total_q, heads, dim] and K [total_k, ...] both bound a total)."""
    lead = [t[0] for _, _, t in floats if len(t) >= 2 and t[0] > batch]
    return min(lead) if lead else None


def _lengths(rng, count, maxlen, total, exact=False):
    """`count` lengths in [1, maxlen] with sum <= total (== total if exact;
    the caller checks count * maxlen >= total)."""
    if exact and maxlen:
        # Even lengths, then random moves between pairs within [1, maxlen].
        lens = np.full(count, total // count, dtype=np.int64)
        lens[: total % count] += 1
        for _ in range(4 * count):
            i, j = rng.integers(0, count, 2)
            room = min(lens[i] - 1, maxlen - lens[j])
            if i != j and room > 0:
                d = rng.integers(0, room + 1)
                lens[i] -= d
                lens[j] += d
        return lens
    if exact:
        cuts = np.sort(rng.choice(np.arange(1, total), count - 1, replace=False)) if count > 1 else []
        return np.diff(np.concatenate([[0], cuts, [total]])).astype(np.int64)
    hi = max(1, min(maxlen or total, total // max(count, 1)) if total else maxlen or 1)
    lens = rng.integers(max(1, hi // 4), hi + 1, count)
    return lens.astype(np.int64)


def index_inputs(fn, params, sym, seed=0):
    """{param position: numpy array} for the index tensors this recognizes."""
    rng = np.random.default_rng(seed)
    tensors = [(i, p, _shape(p, sym)) for i, p in enumerate(fn["params"]) if p["kind"] == "tensor"]
    ints = [(i, p, s, _kind(p["name"], s)) for i, p, s in tensors if p["dtype"] in INT_DTYPES]
    floats = [(i, p, s) for i, p, s in tensors if p["dtype"] not in INT_DTYPES]
    out = {}
    tables = [s for _, _, s, k in ints if k == "token_table"]
    for i, p, s, kind in ints:
        if kind == "prefix" and not p.get("output"):
            batch = s[0] - 1
            if batch < 1:
                continue
            total = _token_rows(floats, batch)
            maxlen = _max_length(params, fn, sym, batch)
            if tables:
                lens = _lengths(rng, batch, None, tables[0][0], exact=True)
            else:
                if total is None:
                    continue
                # The sequences cover the packed rows where the max length
                # allows, so that every row of a packed output is written:
                # a row past the last sequence is written by neither
                # compiler, and where TileLang's output could not be
                # poisoned its garbage there was compared with tilec's
                # sentinel (the varlen FlashAttention kernels' "rel err
                # 2.17e+06"). The metadata does not say which tensors are
                # outputs, so every packed tensor is covered.
                fits = maxlen is None or batch * maxlen >= total
                lens = _lengths(rng, batch, maxlen, total, exact=fits)
            out[i] = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    for i, p, s, kind in ints:
        if p.get("output"):
            continue
        if kind == "token_table":
            pref = next((out[j] for j, q, _, k in ints if k == "prefix" and j in out), None)
            if pref is None:
                continue
            out[i] = np.concatenate([np.stack([np.full(pref[b + 1] - pref[b], b), np.arange(pref[b + 1] - pref[b])], 1)
                                     for b in range(len(pref) - 1)]).astype(np.int64)
        elif kind == "block_table":
            batch, pages = s
            page = next((int(params[k]) for k in ("block_size", "page_size", "page_block_size") if k in params), None)
            total = batch * pages
            if page:
                # The paged tensor: the float tensor with the most rows.
                rows = [t[0] for _, _, t in floats if t and t[0] % page == 0]
                if rows:
                    total = min(total, max(rows) // page)
            perm = rng.permutation(total)
            out[i] = (np.resize(perm, batch * pages) if total < batch * pages else perm[:batch * pages]).reshape(batch, pages)
        elif kind == "lengths":
            batch = s[0]
            maxlen = _max_length(params, fn, sym, batch)
            bt = next((t for _, q, t, k in ints if k == "block_table" and t[0] == batch), None)
            page = next((int(params[k]) for k in ("block_size", "page_size", "page_block_size") if k in params), None)
            if bt and page:
                maxlen = min(maxlen or bt[1] * page, bt[1] * page)
            if not maxlen:
                continue
            out[i] = rng.integers(1, maxlen + 1, batch).astype(np.int64)
    groups = {p["name"][:-len("sizes")]: (i, s) for i, p, s, k in ints if k == "sizes"}
    for prefix, (i, s) in groups.items():
        rows = [t[0] for _, _, t in floats if t]
        if not rows:
            continue
        g = s[0]
        sizes = rng.integers(1, max(1, max(rows) // (2 * g)) + 1, g)
        out[i] = sizes
        block = int(params.get("block_M", 1) or 1)
        for j, p, t, k in ints:
            if p["name"] == prefix + "offsets" and t == s:
                out[j] = np.concatenate([[0], np.cumsum(sizes)[:-1]])
            if p["name"] == prefix + "padded_offsets" and t == s:
                out[j] = np.concatenate([[0], np.cumsum((sizes + block - 1) // block * block)[:-1]])
    return out


def scalar_inputs(fn, arrays):
    """{param position: value} for integer scalars named like a maximum
    sequence length (`max_seqlen_q: T.int32`, which sizes a varlen kernel's
    grid): the longest sequence of the prefix sums with the same suffix
    (`cu_seqlens_q`), else of all of them. The runner's 7 covered only the
    first rows of each sequence."""
    lens = {}
    for i, arr in arrays.items():
        p = fn["params"][i]
        if _kind(p["name"], list(arr.shape)) == "prefix":
            lens[p["name"].lower().rsplit("_", 1)[-1]] = int(np.diff(arr).max())
    out = {}
    if not lens:
        return out
    for i, p in enumerate(fn["params"]):
        if p["kind"] == "scalar" and p.get("dtype") in INT_DTYPES and MAXLEN_NAME.match(p["name"]):
            suffix = p["name"].lower().rsplit("_", 1)[-1]
            out[i] = lens.get(suffix, max(lens.values()))
    return out


def describe(fn, params, sym):
    """Lines saying what index_inputs generates; raises on a broken invariant."""
    vals = index_inputs(fn, params, sym)
    shapes = {i: _shape(p, sym) for i, p in enumerate(fn["params"]) if p["kind"] == "tensor"}
    lines = []
    for i in sorted(vals):
        p, v = fn["params"][i], vals[i]
        kind = _kind(p["name"], shapes[i])
        assert list(v.shape) == shapes[i], (p["name"], v.shape, shapes[i])
        if kind == "prefix":
            lens = np.diff(v)
            assert v[0] == 0 and (lens >= 1).all(), p["name"]
            lines.append(f"{p['name']}: prefix sums of {len(lens)} lengths in [{lens.min()}, {lens.max()}], total {v[-1]}")
        elif kind == "token_table":
            lines.append(f"{p['name']}: {len(v)} (sequence, position) pairs, sequences 0..{v[:, 0].max()}")
        elif kind == "block_table":
            assert len(np.unique(v)) == v.size or v.max() < v.size, p["name"]
            lines.append(f"{p['name']}: pages in [{v.min()}, {v.max()}], {len(np.unique(v))} distinct of {v.size}")
        else:
            lines.append(f"{p['name']}: {kind} in [{v.min()}, {v.max()}]")
    for i, v in sorted(scalar_inputs(fn, vals).items()):
        lines.append(f"{fn['params'][i]['name']}: scalar {v}")
    return vals, lines


def main():
    meta = json.load(open(sys.argv[1]))
    given = {}
    for kv in sys.argv[2:]:
        k, v = kv.split("=", 1)
        given[k] = int(v) if re.fullmatch(r"-?\d+", v) else v
    for fn in meta["functions"]:
        params = {**fn.get("bindings", {}), **given}
        sym = symbol_values(fn)
        vals, lines = describe(fn, params, sym)
        print(f"{fn['name']}: symbols {sym}")
        for line in lines:
            print("  " + line)
        _validate(fn, params, sym, vals)
    return 0


def _validate(fn, params, sym, vals):
    """The cross-tensor invariants a kernel indexing with these relies on."""
    tensors = {p["name"]: (i, _shape(p, sym)) for i, p in enumerate(fn["params"]) if p["kind"] == "tensor"}
    for name, (i, shape) in tensors.items():
        if i not in vals:
            continue
        kind, v = _kind(name, shape), vals[i]
        if kind == "prefix":
            floats = [(j, fn["params"][j], s) for n, (j, s) in tensors.items()
                      if fn["params"][j]["dtype"] not in INT_DTYPES]
            rows = _token_rows(floats, len(v) - 1)
            assert rows is None or v[-1] <= rows, f"{name}: total {v[-1]} past the {rows} token rows"
            maxlen = _max_length(params, fn, sym, len(v) - 1)
            if maxlen and not any(_kind(n, s) == "token_table" for n, (_, s) in tensors.items()):
                assert np.diff(v).max() <= maxlen, f"{name}: a length past {maxlen}"
        if kind == "token_table":
            pref = next(vals[j] for n, (j, s) in tensors.items() if _kind(n, s) == "prefix" and j in vals)
            assert pref[-1] == len(v), f"{name}: {len(v)} rows for {pref[-1]} tokens"
            assert (v[:, 1] < np.diff(pref)[v[:, 0]]).all(), f"{name}: a position past its sequence"


if __name__ == "__main__":
    sys.exit(main())
