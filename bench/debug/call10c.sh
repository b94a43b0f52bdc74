#!/usr/bin/env bash
# Session 10, device call 3: the whole side-by-side run at HEAD (every
# case, TileLang and the libraries in the same run; .dev/sxs10f), the
# differential test of the conformance kernels this session changed or
# newly accepts (bench/.out/D10), and conf10b's GPU check. One tarball.
#   bash bench/debug/call10c.sh
set -uo pipefail
out=$(mktemp -d)
mkdir -p /tmp/site
[ -d /tmp/site/tilelang ] || tar -C /tmp/site -xJf .dev/tilelang-site.tar.xz
export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=/tmp/site/z3/lib TILELANG_CACHE_DIR=/tmp/tlc PYTHONUNBUFFERED=1
SECONDS=0
(cd .dev/sxs10f && timeout 330 python3 sxs_tma.py >"$out/sxs.jsonl" 2>"$out/sxs.err")
echo "sxs rc=$? ${SECONDS}s" >>"$out/log.txt"
(cd bench/.out/D10 && timeout 160 python3 diff_tma.py --jobs 7 --gpu-gib 120 --time-budget 140 >"$out/diff.jsonl" 2>"$out/diff.err")
python3 bench/.out/D10/diff_summary.py "$out/diff.jsonl" >"$out/diff-summary.txt" 2>&1
echo "diff rc=$? ${SECONDS}s" >>"$out/log.txt"
timeout 90 python3 bench/debug/conf10b_check.py bench/.out/conf10b_check >"$out/conf10b.txt" 2>&1
echo "conf10b rc=$? ${SECONDS}s" >>"$out/log.txt"
tar -C "$out" -czf "${OUT:-/tmp}/call10c.tgz" .
cat "$out/log.txt"
python3 bench/sxs_report.py "$out"/sxs.jsonl
head -40 "$out/diff-summary.txt"
grep '^|\|all ok' "$out/conf10b.txt"
