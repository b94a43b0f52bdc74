#!/usr/bin/env bash
# Session 13, device call 1: session 12's GPU checks re-run after its barrier
# fixes (bench/.out/*_check: shuffles and Hadamard, warp partitions, raw
# cp.async), each against a host float64 reference, and the differential test
# (TileLang vs tilec) of the 9 kernels whose PTX those fixes changed
# (bench/.out/D13a). One tarball.
#   bash bench/debug/call13a.sh
set -uo pipefail
out=$(mktemp -d)
mkdir -p /tmp/site
[ -d /tmp/site/tilelang ] || tar -C /tmp/site -xJf .dev/tilelang-site.tar.xz
export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=/tmp/site/z3/lib TILELANG_CACHE_DIR=/tmp/tlc PYTHONUNBUFFERED=1
SECONDS=0
for b in bench/.out/*_check/*_check; do
  [ -x "$b" ] || continue
  n=$(basename "$b")
  timeout 90 "$b" "$(dirname "$b")" >"$out/$n.txt" 2>&1
  echo "$n rc=$? ${SECONDS}s" >>"$out/log.txt"
done
if [ -d bench/.out/D13a ]; then
  (cd bench/.out/D13a && timeout 300 python3 diff_tma.py --jobs 7 --gpu-gib 120 --time-budget 270 >"$out/diff.jsonl" 2>"$out/diff.err")
  echo "diff rc=$? ${SECONDS}s" >>"$out/log.txt"
  python3 bench/.out/D13a/diff_summary.py "$out/diff.jsonl" >"$out/diff-summary.txt" 2>&1
fi
tar -C "$out" -czf "${OUT:-/tmp}/call13a.tgz" .
cat "$out/log.txt"
for f in "$out"/*_check.txt; do [ -f "$f" ] && { echo "== $(basename "$f")"; grep -v '^  ' "$f" | tail -14; }; done
[ -f "$out/diff-summary.txt" ] && { echo "== differential"; head -40 "$out/diff-summary.txt"; }
