#!/usr/bin/env bash
# One device call for issue #15's guarded elementwise kernels (helper
# guard7), from the repository root. Here first (build machine):
#
#   bash bench/debug/guard7_call.sh prepare   # .dev/guard7 and bench/.out/guard7_check
#
# then on the GPU machine, with .dev/tilelang-site.tar.xz, .dev/guard7 and
# bench/.out carried:
#
#   bash bench/debug/guard7_call.sh run [REPEATS]
#
# 1. bench/debug/guard7_check.py run: every guarded instance with the
#    register hint as compiled, removed (the PTX before it) and at 4
#    blocks, every element checked against float64 (~1 min);
# 2. the side-by-side runner with TileLang 0.1.15 on the guarded cases and
#    vector_add_1000003, REPEATS (default 3) runs, then the median per case
#    (bench/sxs_report.py): the judge of "every SIMT case >= 1.0x TileLang".
# Everything lands in $OUT (or /tmp/guard7-out): check.txt, sxs.N.jsonl,
# sxs.N.err, sxs.md.
set -uo pipefail
cases=guarded_1001x1001,guarded_4099x1001,guarded_4097x999,guarded_4099x1001_f32
cases+=,guarded_4099x1000,guarded_4096x1024,vector_add_1000003
if [[ ${1:-} == prepare ]]; then
  shared=../shared
  [[ -d $shared ]] || shared=$(git rev-parse --git-common-dir)/../../shared # a worktree
  python3 "$shared/sxs/prepare.py" --extra bench/debug/sxs_cases.py --only "$cases" \
    --out .dev/guard7 && python3 bench/debug/guard7_check.py prepare
  exit
fi
[[ ${1:-} == run ]] || { sed -n 2,19p "$0"; exit 2; }
repeats=${2:-3}
out=${OUT:-/tmp/guard7-out}
mkdir -p "$out" /tmp/site
tar -C /tmp/site -xJf .dev/tilelang-site.tar.xz
export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=/tmp/site/z3/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
  TILELANG_CACHE_DIR=/tmp/tlc PYTHONUNBUFFERED=1
SECONDS=0
timeout 180 python3 bench/debug/guard7_check.py run >"$out/check.txt" 2>&1
echo "guard7_check rc=$? ${SECONDS}s" >>"$out/check.txt"
runs=()
for i in $(seq "$repeats"); do
  (cd .dev/guard7 && timeout 150 python3 sxs.py ${cases//,/ }) >"$out/sxs.$i.jsonl" 2>"$out/sxs.$i.err"
  echo "sxs run $i rc=$? ${SECONDS}s" >>"$out/sxs.$i.err"
  runs+=("$out/sxs.$i.jsonl")
done
python3 bench/sxs_report.py "${runs[@]}" >"$out/sxs.md"
tail -n 14 "$out/check.txt"; cat "$out/sxs.md"
