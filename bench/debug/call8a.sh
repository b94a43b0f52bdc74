#!/usr/bin/env bash
# Session 8, device call 3: the helpers' GPU checks (wg8, conf8, tmast8;
# prebuilt here with NO_RUN=1 OUT=bench/.out) and the differential test of
# the accepted conformance kernels whose sm_90a PTX changed this session
# (bench/.out/diff8: ../shared/sxs/diff_prepare.py on that subset, plus the
# four explained gdn / kda kernels and the newly accepted sparse GQA decode).
#   bash bench/debug/call8a.sh [SECONDS]
set -uo pipefail
total=${1:-420}
out=${OUT:-/tmp/call8a}
mkdir -p "$out" /tmp/site
[ -d /tmp/site/tilelang ] || tar -C /tmp/site -xJf .dev/tilelang-site.tar.xz
export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=/tmp/site/z3/lib TILELANG_CACHE_DIR=/tmp/tlc PYTHONUNBUFFERED=1
SECONDS=0
for c in wg8 conf8 tmast8; do
  timeout 120 bench/.out/${c}_check/${c}_check >"$out/$c.txt" 2>&1
  echo "$c rc=$? ${SECONDS}s" >>"$out/log.txt"
done
left=$((total - SECONDS))
(cd bench/.out/diff8 && timeout $((left - 10)) python3 diff_tma.py --jobs 8 --gpu-gib 120 \
   --time-budget $((left - 30)) >"$out/diff.jsonl" 2>"$out/diff.err")
echo "diff rc=$? ${SECONDS}s" >>"$out/log.txt"
python3 bench/.out/diff8/diff_summary.py "$out/diff.jsonl" >"$out/diff.md"
cat "$out/log.txt"; for c in wg8 conf8 tmast8; do echo "== $c"; tail -n 12 "$out/$c.txt"; done
head -n 40 "$out/diff.md"
