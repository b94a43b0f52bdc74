#!/usr/bin/env bash
# Session 11, device call 1: everything this session's kernels need on the
# H200, one tarball, a summary last.
# - conf10b's GPU check (conv / T.Tensor views / T.im2col, persistent GEMM,
#   the T.sync_grid kernels) against torch, one group per process under its
#   own timeout (a grid barrier that hangs names its group);
# - TileLang's own conv against torch (bench/debug/conv_tl.py): which side
#   the old differential mismatch was on;
# - the helpers' checks built here (bench/.out/<name>_check/<name>_check,
#   each against a float64 CPU reference);
# - the differential test (TileLang vs tilec) of the conformance kernels
#   this session newly accepts or changes (bench/.out/D11), if prepared.
#   bash bench/debug/call11a.sh
set -uo pipefail
out=$(mktemp -d)
mkdir -p /tmp/site
[ -d /tmp/site/tilelang ] || tar -C /tmp/site -xJf .dev/tilelang-site.tar.xz
export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=/tmp/site/z3/lib TILELANG_CACHE_DIR=/tmp/tlc PYTHONUNBUFFERED=1
SECONDS=0
if [ -d bench/.out/conf10b_check ]; then
  for g in conv pgemm mirror mla; do
    timeout 60 python3 bench/debug/conf10b_check.py bench/.out/conf10b_check $g >"$out/conf10b-$g.txt" 2>&1
    echo "conf10b $g rc=$? ${SECONDS}s" >>"$out/log.txt"
  done
fi
for b in bench/.out/*_check/*_check; do
  [ -x "$b" ] || continue
  n=$(basename "$b")
  timeout 60 "$b" "$(dirname "$b")" >"$out/$n.txt" 2>&1
  echo "$n rc=$? ${SECONDS}s" >>"$out/log.txt"
done
if [ -d bench/.out/D11 ]; then
  (cd bench/.out/D11 && timeout 200 python3 diff_tma.py --jobs 7 --gpu-gib 120 --time-budget 180 >"$out/diff.jsonl" 2>"$out/diff.err")
  echo "diff rc=$? ${SECONDS}s" >>"$out/log.txt"
  python3 bench/.out/D11/diff_summary.py "$out/diff.jsonl" >"$out/diff-summary.txt" 2>&1
fi
timeout 120 python3 bench/debug/conv_tl.py ../shared/conformance/kernels/convolution__example_convolution__convolution.tile >"$out/conv_tl.txt" 2>&1
echo "conv_tl rc=$? ${SECONDS}s" >>"$out/log.txt"
tar -C "$out" -czf "${OUT:-/tmp}/call11a.tgz" .
cat "$out/log.txt"
for f in "$out"/conf10b-*.txt "$out"/*_check.txt; do [ -f "$f" ] && { echo "== $(basename "$f")"; tail -14 "$f"; }; done
[ -f "$out/diff-summary.txt" ] && { echo "== differential"; head -40 "$out/diff-summary.txt"; }
echo "== TileLang conv"; tail -6 "$out/conv_tl.txt"
