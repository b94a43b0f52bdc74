"""../shared/sxs/diff_run.py with tensor-map (TMA) kernel arguments.

The differential test against TileLang (../shared/sxs/README.md) launches
tilec's kernels from the metadata JSON and knows plain parameters only;
tilec's sm_90a GEMM kernels also take CUtensorMap arguments, which the launch
header encodes (docs/lowering.md). This runs the shared runner unchanged
except for its launcher, which encodes the maps the metadata lists
(bench/tilec_launch.py, as bench/sxs_tma.py does for the side-by-side
runner), for grids over scalar parameters, and for integer index inputs,
which bench/diff_inputs.py makes valid (sorted cu_seqlens, consistent token
tables, in-range block tables) instead of random, and with the TileLang side
and the comparison of bench/diff_tilelang.py (out_idx over every parameter,
eager and autotuned factories, outputs poisoned on both sides so that
unwritten elements are not compared, top-k up to ties, overflow rerun with
smaller inputs). bench/prepare.sh (DIFF=1) copies these, diff_run.py and
tilec_launch.py into bench/.out/diff; bench/device.sh runs it:
python3 diff_tma.py --jobs 12 [--only STEM,...]   (--print shows the
patched runner). The cases run through bench/diff_schedule.py: a GPU and
host memory budget (--gpu-gib 120, --host-gib 80% of the available), a
--time-budget SECONDS after which nothing starts and running cases stop,
--skip-done A.jsonl[,B.jsonl] to resume a run (runner errors run again);
lines print as cases finish.
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
# A kernel with a grid barrier (T.sync_grid; metadata "cooperative") runs
# only under a cooperative launch: the driver sets up the barrier's
# workspace for those alone (the runner's plain launch failed).
LAUNCH = """            r = cuda.cuLaunchKernel(h, *grid, *kern["block"], sh, None, ptrs, None)
"""
COOPERATIVE_LAUNCH = """            if kern.get("cooperative"):
                r = cuda.cuLaunchCooperativeKernel(h, *grid, *kern["block"], sh, None, ptrs)
            else:
                r = cuda.cuLaunchKernel(h, *grid, *kern["block"], sh, None, ptrs, None)
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

# The TileLang side and the comparison (bench/diff_tilelang.py): out_idx
# counted over every parameter, eager and autotuned factories run, both
# sides' outputs start as one sentinel so that unwritten elements are not
# compared, top-k indices compared up to ties, overflow flagged (and the
# case rerun with smaller inputs, below).
AUTOTUNE_SKIP = """    if "autotune" in src:
        row["skip"] = "autotune factory"
        return row
"""
LOAD_START = """        spec = importlib.util.spec_from_file_location("""
LOAD_END = """        out_idx = [i % n for i in out_idx]
"""
LOAD = """        import diff_tilelang
        diff_tilelang.phase("TileLang compile")
        k, out_idx, tl_notes = diff_tilelang.load(os.path.join(HERE, "tilelang", stem + ".py"), stem, case, fn,
                                                  torch, tilelang)
"""
CLONES = """    tl_vals = [v.clone() if hasattr(v, "clone") else v for v in vals]
"""
POISON = CLONES + """    sentinels = {}
    for j in out_idx:
        diff_tilelang.poison(vals[tensor_pos[j]], torch)
        sentinels[tensor_pos[j]] = diff_tilelang.sentinel_value(vals[tensor_pos[j]].dtype, torch)
"""
TL_CALL = """        res = k(*tens_in)
"""
TL_POISONED = """        diff_tilelang.phase("TileLang run")
        res, tl_made = diff_tilelang.poisoned_call(k, tens_in, torch, [vals[tensor_pos[j]] for j in out_idx])
"""
# Phase lines on stderr (bench/diff_tilelang.py's phase), so that a case
# stopped at the time limit says where it was (session 6's 240 s timeout of
# kda chunk_intra_token_parallel said nothing more).
TILEC_START = """    # tilec
    cuda = ctypes.CDLL("libcuda.so.1")
"""
TILEC_PHASE = """    # tilec
    diff_tilelang.phase("tilec launch")
    cuda = ctypes.CDLL("libcuda.so.1")
"""
COMPARE_START = """    worst, detail = 0.0, []
"""
COMPARE_END = """    row.update(worst_rel=worst, agree=worst <= 1e-2, detail=detail[:4])
"""
COMPARE = """    diff_tilelang.phase("compare")
    for j in out_idx:
        if tl_out[j].data_ptr() not in tl_made:
            tl_notes.append(f"{fn['params'][tensor_pos[j]]['name']}: TileLang's output not poisoned")
            sentinels.pop(tensor_pos[j], None)
    worst, detail, overflow, unwritten = diff_tilelang.compare(fn, vals, tl_out, tensor_pos, sentinels, torch)
    row.update(worst_rel=worst, agree=worst <= 1e-2, detail=detail + tl_notes)
    if unwritten:
        row["unwritten"] = unwritten
    if overflow:
        row["overflow"] = overflow
"""
# Inputs: the runner's randn * 0.5, or DIFF_INPUT_SCALE for the rerun of a
# case whose outputs overflowed on both sides.
RANDN = """            x = (torch.randn(shape, device="cuda") * 0.5).to(dt)
"""
RANDN_SCALED = """            x = (torch.randn(shape, device="cuda") * float(os.environ.get("DIFF_INPUT_SCALE", "0.5"))).to(dt)
"""
# --only STEM,STEM: a subset of the cases (the overflow rerun included,
# which --one STEM skips).
CASES = """    cases = json.load(open(os.path.join(HERE, "cases.json")))
"""
CASES_ONLY = CASES + """    only = os.environ.get("DIFF_ONLY", "")
    cases = [c for c in cases if not only or c["stem"] in only.split(",")]
"""
# The pool of the runner's main (12 cases at a time whatever their size,
# lines in case order) and what replaces it: bench/diff_schedule.py (a
# memory budget, a time budget, lines as cases finish, --skip-done; the
# overflow rerun of bench/diff_tilelang.py).
POOL_START = """    def run(c):
"""
POOL_END = """            print(line, flush=True)
"""
POOL = """    import diff_schedule
    diff_schedule.main(__file__, cases, sys.argv)
"""


def patched(source):
    """diff_run.py's source with the replacements above."""
    start, end = source.find(LOAD_START), source.find(LOAD_END)
    if start < 0 or end < start:
        sys.exit("diff_tma.py: diff_run.py changed; update LOAD_START / LOAD_END")
    source = source[:start] + LOAD + source[end + len(LOAD_END):]
    start, end = source.find(COMPARE_START), source.find(COMPARE_END)
    if start < 0 or end < start:
        sys.exit("diff_tma.py: diff_run.py changed; update COMPARE_START / COMPARE_END")
    source = source[:start] + COMPARE + source[end + len(COMPARE_END):]
    start, end = source.find(POOL_START), source.find(POOL_END)
    if start < 0 or end < start:
        sys.exit("diff_tma.py: diff_run.py changed; update POOL_START / POOL_END")
    source = source[:start] + POOL + source[end + len(POOL_END):]
    for old, new in ((PLAIN, TMA), (SYMBOLS, SCALARS), (RANDOM_SYMBOLS, VALID_SYMBOLS),
                     (BEFORE_TILELANG, VALID_INDICES), (AUTOTUNE_SKIP, ""), (CLONES, POISON),
                     (TL_CALL, TL_POISONED), (RANDN, RANDN_SCALED), (CASES, CASES_ONLY),
                     (TILEC_START, TILEC_PHASE), (LAUNCH, COOPERATIVE_LAUNCH)):
        if source.count(old) != 1:
            sys.exit(f"diff_tma.py: diff_run.py changed; update the replacement of {old.strip()[:60]!r}")
        source = source.replace(old, new)
    return source


if __name__ == "__main__":
    source = patched(open(os.path.join(HERE, "diff_run.py")).read())
    if sys.argv[1:] == ["--print"]:
        print(source)
        sys.exit(0)
    if "--only" in sys.argv:
        at = sys.argv.index("--only")
        os.environ["DIFF_ONLY"] = sys.argv[at + 1]
        del sys.argv[at:at + 2]
    namespace = {"__name__": "__main__", "__file__": os.path.abspath(__file__)}
    exec(compile(source, os.path.join(HERE, "diff_run.py"), "exec"), namespace)
