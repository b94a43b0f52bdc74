#!/usr/bin/env bash
# Session 12, device call 1: the differential test (TileLang vs tilec, the
# same random inputs, every tensor) of every conformance kernel tilec
# accepts on sm_90a (bench/.out/D12, prepared by ../shared/sxs/diff_prepare.py;
# grouped_gemm_ptr left out: diff_prepare.py cannot parse its list-valued
# -D, and bench/debug/ptr_check.sh checks it against float64). One tarball.
#   bash bench/debug/call12a.sh
set -uo pipefail
out=$(mktemp -d)
mkdir -p /tmp/site
[ -d /tmp/site/tilelang ] || tar -C /tmp/site -xJf .dev/tilelang-site.tar.xz
export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=/tmp/site/z3/lib TILELANG_CACHE_DIR=/tmp/tlc PYTHONUNBUFFERED=1
SECONDS=0
(cd bench/.out/D12 && timeout 560 python3 diff_tma.py --jobs 7 --gpu-gib 120 --time-budget 530 >"$out/diff.jsonl" 2>"$out/diff.err")
echo "diff rc=$? ${SECONDS}s" >>"$out/log.txt"
python3 bench/.out/D12/diff_summary.py "$out/diff.jsonl" >"$out/diff-summary.txt" 2>&1
tar -C "$out" -czf "${OUT:-/tmp}/call12a.tgz" .
cat "$out/log.txt"
head -60 "$out/diff-summary.txt"
tail -3 "$out/diff.err"
