#!/usr/bin/env bash
# One device call for issue #12 (helper rel6), on the GPU machine from the
# repository root, with .dev/tilelang-site.tar.xz, the differential folder
# DIR (prepared here: ../shared/sxs/diff_prepare.py, then
# `cp bench/diff_*.py bench/tilec_launch.py DIR/`) and bench/.out/rel6_dhu
# (`python3 bench/debug/rel6_dhu.py prepare` here) carried:
#
#   bash bench/debug/rel6_call.sh DIR [DONE.jsonl[,MORE.jsonl]] [SECONDS]
#
# 1. bench/debug/rel6_dhu.py run: gdn's chunk_gated_delta_rule_bwd_dhu, tilec
#    and TileLang against the float64 reference (beside the differential
#    run; a small kernel), TileLang's CUDA kept;
# 2. the differential test resumed: the stems with a result in DONE are
#    skipped (runner errors run again), nothing starts after SECONDS - 25
#    (default 280 in all), memory-aware (bench/diff_schedule.py).
# Everything lands in $OUT (or /tmp/rel6-out): dhu.txt, diff.jsonl,
# diff.err, diff.md (the summary over DONE and this run).
set -uo pipefail
dir=$1 done=${2:-} total=${3:-280}
out=${OUT:-/tmp/rel6-out}
mkdir -p "$out" /tmp/site
tar -C /tmp/site -xJf .dev/tilelang-site.tar.xz
export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=/tmp/site/z3/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
  TILELANG_CACHE_DIR=/tmp/tlc PYTHONUNBUFFERED=1
SECONDS=0
(timeout 150 python3 bench/debug/rel6_dhu.py run >"$out/dhu.txt" 2>&1
 echo "rel6_dhu rc=$? ${SECONDS}s" >>"$out/dhu.txt"
 cp bench/.out/rel6_dhu/*.cu "$out/" 2>/dev/null) &
dhu=$!
skip=()
for f in ${done//,/ }; do skip+=("$(cd "$(dirname "$f")" && pwd)/$(basename "$f")"); done
joined=$(IFS=,; echo "${skip[*]}")
(cd "$dir" && timeout $((total - 10)) python3 diff_tma.py --jobs 12 --time-budget $((total - 25)) \
   ${joined:+--skip-done "$joined"} >"$out/diff.jsonl" 2>"$out/diff.err")
echo "diff rc=$? ${SECONDS}s" >>"$out/diff.err"
wait $dhu
python3 "$dir/diff_summary.py" "${skip[@]}" "$out/diff.jsonl" >"$out/diff.md"
tail -n 25 "$out/dhu.txt"; head -n 40 "$out/diff.md"
