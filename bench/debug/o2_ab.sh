#!/usr/bin/env bash
# GPU A/B of the device code's LLVM level: tilec -O3 (the default) against
# -O2 (issue #13, item 7: -O2 compiles faster but changes the PTX of the
# sm_90a wgmma kernels, whose pipelined main loop O3 unrolls twice).
#
# Here (no GPU), from the project root with build/bin/tilec built:
#   bash bench/debug/o2_ab.sh
# compiles the gemm and attention groups of ../shared/sxs/prepare.py and
# bench/debug/sxs_cases.py twice, into .dev/sxs_o3 (build/bin/tilec) and
# .dev/sxs_o2 (bench/debug/tilec-O2), copies the TMA-aware runner into both,
# compares the two builds' PTX case by case (with ptxas's registers and
# spills from the metadata JSON) and prints the command for the GPU machine:
# only the cases whose PTX differs need timing, both folders in one call.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
# The shared runner beside the project (a worktree elsewhere: /work/shared).
shared=${SXS_SHARED:-$root/../shared/sxs}
[[ -f $shared/prepare.py || -n ${SXS_SHARED:-} ]] || shared=/work/shared/sxs
tilec=$root/build/bin/tilec
[[ -x $tilec ]] || { echo "o2_ab: build tilec first ($tilec)" >&2; exit 1; }
[[ -f $shared/prepare.py ]] || { echo "o2_ab: no $shared/prepare.py" >&2; exit 1; }

# The case names of the two groups, from both case lists.
cases=$(python3 - "$shared/prepare.py" bench/debug/sxs_cases.py <<'EOF'
import sys
names = []
for path in sys.argv[1:]:
    ns = {"__name__": "cases"}  # prepare.py's main() does not run
    exec(open(path).read(), ns)
    names += [c[0] for c in ns["CASES"] if c[5]["group"] in ("gemm", "attention")]
print(",".join(names))
EOF
)

for level in o3 o2; do
  out=$root/.dev/sxs_$level
  wrapper=$tilec
  [[ $level == o2 ]] && wrapper=$root/bench/debug/tilec-O2
  echo "o2_ab: preparing $out ($(basename "$wrapper"))"
  python3 "$shared/prepare.py" --tilec "$wrapper" --extra bench/debug/sxs_cases.py \
    --only "$cases" --out "$out" | sed 's/^/  /'
  cp bench/sxs_tma.py bench/tilec_launch.py "$out/"
done

# Which cases' PTX differs, and what ptxas made of each build.
python3 - "$root/.dev/sxs_o3" "$root/.dev/sxs_o2" <<'EOF'
import json, os, sys
o3, o2 = sys.argv[1:]

def resources(folder, name):
    path = os.path.join(folder, "tilec", name + ".json")
    if not os.path.exists(path):
        return "-"
    meta = json.load(open(path))
    parts = []
    for fn in meta["functions"]:
        for k in fn["kernels"]:
            r = k.get("resources", {})
            spill = r.get("spill_store_bytes", -1)
            parts.append(f"{r.get('registers', '?')} regs" + (f", {spill} B spilled" if spill > 0 else ""))
    return "; ".join(parts)

def lines(folder, name):
    path = os.path.join(folder, "tilec", name + ".ptx")
    return open(path).read().count("\n") if os.path.exists(path) else None

cases = json.load(open(os.path.join(o3, "cases.json")))
differ = []
print("\n| case | PTX | lines O3 / O2 | ptxas O3 | ptxas O2 | compile O3 / O2 |")
print("|---|---|---|---|---|---|")
times2 = {c["name"]: c.get("tilec_compile_s") for c in json.load(open(os.path.join(o2, "cases.json")))}
for c in cases:
    name = c["name"]
    p3, p2 = (os.path.join(d, "tilec", name + ".ptx") for d in (o3, o2))
    if not (os.path.exists(p3) and os.path.exists(p2)):
        verdict = "not compiled"
    elif open(p3).read() == open(p2).read():
        verdict = "identical"
    else:
        verdict = "differs"
        differ.append(name)
    print(f"| {name} | {verdict} | {lines(o3, name)} / {lines(o2, name)} | "
          f"{resources(o3, name)} | {resources(o2, name)} | "
          f"{c.get('tilec_compile_s')} / {times2.get(name)} s |")
print(f"\no2_ab: {len(differ)} of {len(cases)} cases differ: {' '.join(differ) or '(none)'}")
if differ:
    only = " ".join(differ)
    print("o2_ab: on the GPU machine, carrying .dev/sxs_o3 and .dev/sxs_o2, in one call:")
    print(f"  (cd .dev/sxs_o3 && SXS_NO_TILELANG=1 python3 sxs_tma.py {only}) &&")
    print(f"  (cd .dev/sxs_o2 && SXS_NO_TILELANG=1 python3 sxs_tma.py {only})")
    print("  (or every case of both groups: SXS_NO_TILELANG=1 python3 sxs_tma.py gemm attention)")
EOF
