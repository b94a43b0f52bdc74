#!/usr/bin/env bash
# Session 8, final device call: the differential test of the five kernels
# whose first verdicts came in call 3 (varlen FlashAttention x3, the two
# clean_logits kernels), with adea454's PTX (bench/.out/diff8b: is the
# difference this session's?), then the whole side-by-side run at HEAD
# (.dev/sxs8f) with TileLang.
#   bash bench/debug/call8b.sh
set -uo pipefail
out=${OUT:-/tmp/call8b}
mkdir -p "$out" /tmp/site
[ -d /tmp/site/tilelang ] || tar -C /tmp/site -xJf .dev/tilelang-site.tar.xz
export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=/tmp/site/z3/lib TILELANG_CACHE_DIR=/tmp/tlc PYTHONUNBUFFERED=1
SECONDS=0
(cd bench/.out/diff8b && timeout 100 python3 diff_tma.py --jobs 5 --gpu-gib 120 --time-budget 80 \
   >"$out/diff.jsonl" 2>"$out/diff.err")
echo "diff rc=$? ${SECONDS}s" >>"$out/log.txt"
python3 bench/.out/diff8b/diff_summary.py "$out/diff.jsonl" >"$out/diff.md"
(cd .dev/sxs8f && timeout 330 python3 sxs_tma.py >"$out/sxs.jsonl" 2>"$out/sxs.err")
echo "sxs rc=$? ${SECONDS}s" >>"$out/log.txt"
cat "$out/log.txt"; head -n 14 "$out/diff.md"
python3 bench/sxs_report.py "$out"/sxs.jsonl
