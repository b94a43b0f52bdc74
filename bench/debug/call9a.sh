#!/usr/bin/env bash
# Session 9, device call 1: the differential test against TileLang of the
# accepted conformance kernels whose sm_90a PTX tile-guard-global-accesses
# changed (bench/.out/diff9a: bench/debug/ptx_ab.py against ad7a46b's
# tilec, then ../shared/sxs/diff_prepare.py on that subset), which include
# the five whose verdicts differed in session 8 (clean_logits_ x2, the
# varlen FlashAttention kernels x3; those now with sequences that cover the
# packed rows, bench/diff_inputs.py).
#   bash bench/debug/call9a.sh [SECONDS]
set -uo pipefail
total=${1:-300}
out=${OUT:-/tmp/call9a}
mkdir -p "$out" /tmp/site
[ -d /tmp/site/tilelang ] || tar -C /tmp/site -xJf .dev/tilelang-site.tar.xz
export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=/tmp/site/z3/lib TILELANG_CACHE_DIR=/tmp/tlc PYTHONUNBUFFERED=1
SECONDS=0
(cd bench/.out/diff9a && timeout $((total - 10)) python3 diff_tma.py --jobs 8 --gpu-gib 120 \
   --time-budget $((total - 30)) >"$out/diff.jsonl" 2>"$out/diff.err")
echo "diff rc=$? ${SECONDS}s" >>"$out/log.txt"
python3 bench/.out/diff9a/diff_summary.py "$out/diff.jsonl" >"$out/diff.md"
cat "$out/log.txt"; head -n 60 "$out/diff.md"
