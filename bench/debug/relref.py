"""Host code shared by the reference checks of the differential test's
differing kernels (bench/debug/rel6_dhu.py, bench/debug/rel7_family.py).

Each check computes a conformance kernel's meaning in float64 (numpy),
compiles the kernel with tilec here (`prepare`: PTX + metadata JSON under
bench/.out/NAME, the .tile copied along, since the GPU machine has no
../shared), and on the GPU (`run`, bench/.out carried) launches tilec's
kernel and, if tilelang imports, TileLang's on the same inputs, comparing
every element of both with the reference. What lives here: roundings to
the kernels' storage types, the error measures, -D values, compiling a
case, loading TileLang's factory (autotune removed) and launching tilec's
kernel with NaN-poisoned outputs.
"""
import os
import shutil
import subprocess
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# ../shared next to the repository (a worktree one level deeper: ../../shared).
SHARED = os.environ.get("SHARED") or next(
    (d for d in (os.path.join(ROOT, "..", "shared"),
                 os.path.join(ROOT, "..", "..", "shared"))
     if os.path.isdir(os.path.join(d, "conformance"))),
    os.path.join(ROOT, "..", "shared"))
TILEC = os.path.join(ROOT, "build", "bin", "tilec")


def kernel_path(stem):
    return os.path.join(SHARED, "conformance", "kernels", stem + ".tile")


def out_dir(name):
    return os.path.join(ROOT, "bench", ".out", name)


def bf16(x):
    """Round float64 / float32 values to bfloat16 (nearest even), as float64."""
    a = np.asarray(x, dtype=np.float32)
    u = a.view(np.uint32).astype(np.uint64)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    return u.astype(np.uint32).view(np.float32).astype(np.float64)


def fp16(x):
    """Round to IEEE half (nearest even), as float64."""
    return np.asarray(x, dtype=np.float64).astype(np.float16).astype(np.float64)


def tf32(x):
    """Round to tf32 (10-bit mantissa, nearest), as float64."""
    a = np.asarray(x, dtype=np.float32)
    u = a.view(np.uint32).astype(np.uint64)
    u = ((u + 0xFFF + ((u >> 13) & 1)) >> 13) << 13
    return u.astype(np.uint32).view(np.float32).astype(np.float64)


def f32(x):
    return np.asarray(x, np.float32).astype(np.float64)


ROUND = {"bfloat16": bf16, "float16": fp16, "float32": f32}


def rel(a, b):
    """Relative L2 error of `a` against the reference `b` (absolute where
    the reference is zero); NaN anywhere in `a` gives inf."""
    if np.isnan(a).any():
        return float("inf")
    d = np.linalg.norm(b)
    return float(np.linalg.norm(a - b) / d) if d > 0 else float(np.linalg.norm(a - b))


def moved(got, want, limit=6):
    """Where the values of `want` (distinct random values, 2-D tile) landed
    in `got`: up to `limit` "(r, c) <- (r', c')" for the wrong elements,
    and how many elements are wrong."""
    where = {}
    for (r, c), v in np.ndenumerate(want):
        where.setdefault(v, (r, c))
    bad = np.argwhere(got != want)
    notes = [f"({r},{c})<-{where.get(got[r, c], '?')}" for r, c in bad[:limit]]
    return len(bad), " ".join(notes)


def defines(params):
    out = []
    for k, v in params.items():
        out += ["-D", f"{k}={v}"]
    return out


def prepare(tilec, stem, name, cases):
    """Compiles `stem` once per (case name, -D values) of `cases` into
    bench/.out/NAME/CASE.ptx / .json, and copies the source along as
    STEM.tile; returns the number of failures."""
    out = out_dir(name)
    os.makedirs(out, exist_ok=True)
    dst = os.path.join(out, stem + ".tile")
    if os.path.exists(dst):  # a copy of read-only ../shared is read-only too
        os.remove(dst)
    shutil.copyfile(kernel_path(stem), dst)
    bad = 0
    for case, params in cases:
        p = subprocess.run([tilec, kernel_path(stem), "--target", "sm_90a", *defines(params),
                            "-o", f"{out}/{case}.ptx", "--json", f"{out}/{case}.json"],
                           capture_output=True, text=True)
        print(f"prepare {case}: {'ok' if p.returncode == 0 else 'FAILED ' + p.stderr[:400]}")
        bad += p.returncode != 0
    return bad


def tilelang_factory(name, stem, torch):
    """TileLang's factory of `stem` (bench/.out/NAME/STEM.tile, its
    @autotune removed as the differential test removes it), or None with
    the reason printed when tilelang does not import or load it."""
    try:
        import linecache
        import types

        import tilelang
        sys.path.insert(0, os.path.join(ROOT, "bench"))
        import diff_tilelang
        path = os.path.join(out_dir(name), stem + ".tile")
        factory = stem.split("__")[-1]
        run_src, _ = diff_tilelang.tilelang_source(
            open(path).read(), factory, hasattr(tilelang.PassConfigKey, "TL_DISABLE_FAST_MATH"))
        mod = types.ModuleType(factory)
        linecache.cache[path] = (len(run_src), None, run_src.splitlines(keepends=True), path)
        mod.__dict__.update(torch=torch, __file__=path)
        exec(compile(run_src, path, "exec"), mod.__dict__)
        return getattr(mod, factory)
    except Exception as e:  # noqa: BLE001
        print(f"TileLang not run: {type(e).__name__}: {e}")
        return None


def run_tilec(name, case, ins, out_shapes, torch):
    """Launches bench/.out/NAME/CASE.ptx on `ins` (CUDA tensors) with
    outputs of `out_shapes` ((shape, torch dtype) pairs) that start as NaN;
    returns the outputs as float64 numpy arrays."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    from tilec_launch import Module
    outs = [torch.full(s, float("nan"), device="cuda", dtype=dt) for s, dt in out_shapes]
    out = out_dir(name)
    m = Module(f"{out}/{case}.ptx", f"{out}/{case}.json")
    m(m.meta["functions"][0]["name"], *ins, *outs)
    return [o.double().cpu().numpy() for o in outs]


def run_tilelang(factory, args, kwargs, ins, out_shapes, torch, source=None):
    """TileLang's outputs on `ins` as float64 numpy arrays, and whether each
    was poisoned before the kernel ran (TileLang allocates out_idx outputs
    itself; bench/diff_tilelang.py's poisoned_call reaches the allocations
    made through torch.empty or blocks of `out_shapes`' sizes from torch's
    caching allocator). `source`: a path for TileLang's CUDA."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import diff_tilelang
    k = factory(*args, **kwargs)
    if source:
        with open(source, "w") as f:
            f.write(k.get_kernel_source())
    like = [torch.empty(shape, dtype=dt, device="cuda") for shape, dt in out_shapes]
    res, made = diff_tilelang.poisoned_call(k, ins, torch, like)
    del like
    res = list(res) if isinstance(res, (list, tuple)) else [res]
    return [o.double().cpu().numpy() for o in res], [o.data_ptr() in made for o in res]


def table(header, rows):
    """A markdown table of `rows` (tuples) under `header` (names)."""
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        print("| " + " | ".join(f"{x:.2e}" if isinstance(x, float) else str(x) for x in r) + " |")
