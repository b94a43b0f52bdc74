# References and library baselines of bench/debug/sxs_cases.py; sxs.py runs
# this file (copied beside it as refs_extra.py) with torch and F defined.


def tile_scan(a, p):
    """rel_scan.tile: the scan of each block_M x block_N tile; the tile's
    elements past the tensor read as zeros (T.copy's padding, in TileLang
    and in tilec), only the valid ones kept."""
    bm, bn = p.get("block_M", 64), p.get("block_N", 64)
    dim, reverse, op = p.get("dim", 0), p.get("reverse", False), p.get("op", "sum")
    a = a.double()
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


REFS = {
    "guarded_add": lambda t, p: {"C": t["A"].double() + t["B"].double()},
    "cumsum": lambda t, p: {"Z": t["X"].double().flip(dims=[1]).cumsum(1).flip(dims=[1])},
    "tile_scan": lambda t, p: {"B": tile_scan(t["A"], p)},
    "gemm_fp8": lambda t, p: {"C": t["A"].double() @ t["B"].double().T},
}


def _scan_baseline(t, p):
    a, dim, op = t["A"], p.get("dim", 0), p.get("op", "sum")
    return "torch eager", (lambda: a.cumsum(dim)) if op == "sum" else (lambda: a.cummax(dim))


def _fp8_baseline(t, p):
    """cuBLAS's fp8 GEMM (B given N x K, i.e. column-major K x N)."""
    a, b, c = t["A"], t["B"], t["C"]
    one = torch.ones((), device=a.device, dtype=torch.float32)
    return "cuBLAS fp8", lambda: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one,
                                                  out_dtype=c.dtype)


BASELINES = {
    "gemm_fp8": _fp8_baseline,
    "guarded_add": lambda t, p: ("torch eager", lambda a=t["A"], b=t["B"], c=t["C"]: torch.add(a, b, out=c)),
    "cumsum": lambda t, p: ("torch eager", lambda x=t["X"]: x.flip(dims=[1]).cumsum(1)),
    "tile_scan": _scan_baseline,
}
