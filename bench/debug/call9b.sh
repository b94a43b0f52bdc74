#!/usr/bin/env bash
# Session 9, device call 2: the differential test against TileLang of every
# conformance kernel tilec accepts on sm_90a (bench/.out/diff9full:
# ../shared/sxs/diff_prepare.py on 4b7aa86's conformance table, with its
# tilec: the guarded global accesses, cu_seqlens covering the packed rows),
# then the pipeline fuzzer's GPU check of 300 random kernels compiled by it
# (python3 bench/debug/fuzz_gpu_check.py prepare <4b7aa86's tilec> 300 9001).
#   bash bench/debug/call9b.sh [SECONDS]
set -uo pipefail
total=${1:-560}
out=${OUT:-/tmp/call9b}
mkdir -p "$out" /tmp/site
[ -d /tmp/site/tilelang ] || tar -C /tmp/site -xJf .dev/tilelang-site.tar.xz
export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=/tmp/site/z3/lib TILELANG_CACHE_DIR=/tmp/tlc PYTHONUNBUFFERED=1
SECONDS=0
timeout 120 python3 bench/debug/fuzz_gpu_check.py run >"$out/fuzzgpu.txt" 2>&1
echo "fuzzgpu rc=$? ${SECONDS}s" >>"$out/log.txt"
total=$((total - SECONDS))
(cd bench/.out/diff9full && timeout $((total - 10)) python3 diff_tma.py --jobs 8 --gpu-gib 120 \
   --time-budget $((total - 30)) >"$out/diff.jsonl" 2>"$out/diff.err")
echo "diff rc=$? ${SECONDS}s" >>"$out/log.txt"
python3 bench/.out/diff9full/diff_summary.py "$out/diff.jsonl" >"$out/diff.md"
cat "$out/log.txt"; tail -n 12 "$out/fuzzgpu.txt"; head -n 80 "$out/diff.md"
