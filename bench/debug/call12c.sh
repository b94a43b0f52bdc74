#!/usr/bin/env bash
# Session 12, device call 3: this session's GPU checks (bench/.out/*_check:
# T.tvm_warp_shuffle and the Hadamard example, warp-granular thread
# partitions, the raw cp.async producer), each against a host float64
# reference, and the differential test (TileLang vs tilec) of the kernels
# this session newly accepts or changes (bench/.out/D12c). One tarball.
#   bash bench/debug/call12c.sh
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
if [ -d bench/.out/D12c ]; then
  (cd bench/.out/D12c && timeout 300 python3 diff_tma.py --jobs 7 --gpu-gib 120 --time-budget 270 >"$out/diff.jsonl" 2>"$out/diff.err")
  echo "diff rc=$? ${SECONDS}s" >>"$out/log.txt"
  python3 bench/.out/D12c/diff_summary.py "$out/diff.jsonl" >"$out/diff-summary.txt" 2>&1
fi
tar -C "$out" -czf "${OUT:-/tmp}/call12c.tgz" .
cat "$out/log.txt"
for f in "$out"/*_check.txt; do [ -f "$f" ] && { echo "== $(basename "$f")"; grep -v '^  ' "$f" | tail -14; }; done
[ -f "$out/diff-summary.txt" ] && { echo "== differential"; head -40 "$out/diff-summary.txt"; }
