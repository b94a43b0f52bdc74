"""../shared/sxs/diff_run.py with tensor-map (TMA) kernel arguments.

The differential test against TileLang (../shared/sxs/README.md) launches
tilec's kernels from the metadata JSON and knows plain parameters only;
tilec's sm_90a GEMM kernels also take CUtensorMap arguments, which the launch
header encodes (docs/lowering.md). This runs the shared runner unchanged
except for its launcher, which encodes the maps the metadata lists
(bench/tilec_launch.py, as bench/sxs_tma.py does for the side-by-side
runner), for grids over scalar parameters, and for integer index inputs,
which bench/diff_inputs.py makes valid (sorted cu_seqlens, consistent token
tables, in-range block tables) instead of random. bench/prepare.sh (DIFF=1)
copies it, diff_run.py and tilec_launch.py into bench/.out/diff;
bench/device.sh runs it:  python3 diff_tma.py --jobs 12
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# The shared runner's argument loop, and what replaces it.
PLAIN = """            args = []
            for a in kern["args"]:
                v = vals[a["param"]]
                args.append(ctypes.c_void_p(v.data_ptr()) if hasattr(v, "data_ptr") else ctypes.c_int32(int(v)))
            ptrs = (ctypes.c_void_p * len(args))(*[ctypes.cast(ctypes.byref(x), ctypes.c_void_p) for x in args])
"""
TMA = """            import tilec_launch
            ptrs, keep = tilec_launch.kernel_arg_values(kern, vals, fn["params"])
"""
# Valid index inputs (bench/diff_inputs.py): the runner's random integers
# in [0, 4) are no valid cu_seqlens, token table or block table, and a
# verdict on such inputs says nothing. The symbols first (a count symbol
# such as batch_plus_one is 5, not 256), then the index tensors, before
# TileLang gets its copies.
RANDOM_SYMBOLS = """    sym = {s: 256 for s in fn.get("symbols", [])}
"""
VALID_SYMBOLS = """    import diff_inputs
    sym = diff_inputs.symbol_values(fn)
"""
BEFORE_TILELANG = """    # TileLang
    try:
"""
VALID_INDICES = """    arrays = diff_inputs.index_inputs(fn, {**fn.get("bindings", {}), **case["params"]}, sym)
    for i, arr in arrays.items():
        vals[i] = torch.from_numpy(arr).to(device=vals[i].device, dtype=vals[i].dtype)
    for i, v in diff_inputs.scalar_inputs(fn, arrays).items():
        vals[i] = v
    # TileLang
    try:
"""
# Grids may name scalar parameters too (`T.ceildiv(max_seqlen_q, block_M)`),
# not only T.dynamic symbols: the shared runner's environment held symbols
# only ("NameError: name 'max_seqlen_q' is not defined").
SYMBOLS = """        env = dict(sym)
"""
SCALARS = """        env = dict(sym)
        env.update({p["name"]: vals[i] for i, p in enumerate(fn["params"]) if p["kind"] == "scalar"})
"""

if __name__ == "__main__":
    source = open(os.path.join(HERE, "diff_run.py")).read()
    for old in (PLAIN, SYMBOLS, RANDOM_SYMBOLS, BEFORE_TILELANG):
        if source.count(old) != 1:
            sys.exit("diff_tma.py: diff_run.py changed; update PLAIN / SYMBOLS / RANDOM_SYMBOLS / BEFORE_TILELANG")
    source = (source.replace(PLAIN, TMA).replace(SYMBOLS, SCALARS)
              .replace(RANDOM_SYMBOLS, VALID_SYMBOLS).replace(BEFORE_TILELANG, VALID_INDICES))
    namespace = {"__name__": "__main__", "__file__": os.path.abspath(__file__)}
    exec(compile(source, os.path.join(HERE, "diff_run.py"), "exec"), namespace)
