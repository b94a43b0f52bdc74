#!/usr/bin/env bash
# Session 11, device call 2: TileLang's conv against torch (which side the
# differential mismatch is on), the differential test of the T.sync_grid
# kernel with the cooperative launch, and the grid barrier's mirror kernel
# at several grid sizes (1000 blocks hung in call 1), each under a timeout.
set -uo pipefail
out=$(mktemp -d)
mkdir -p /tmp/site
[ -d /tmp/site/tilelang ] || tar -C /tmp/site -xJf .dev/tilelang-site.tar.xz
export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=/tmp/site/z3/lib TILELANG_CACHE_DIR=/tmp/tlc PYTHONUNBUFFERED=1
SECONDS=0
for b in 132 264 500 1000; do
  timeout 20 python3 bench/debug/conf10b_check.py bench/.out/conf10b_check mirror_n,$b >"$out/mirror-$b.txt" 2>&1
  echo "mirror $b blocks rc=$? ${SECONDS}s" >>"$out/log.txt"
done
(cd bench/.out/D11 && DIFF_ONLY=deepseek_mla__example_mla_decode_persistent__flashattn timeout 120 python3 diff_tma.py --jobs 1 --gpu-gib 120 --time-budget 100 >"$out/diff.jsonl" 2>"$out/diff.err")
echo "diff rc=$? ${SECONDS}s" >>"$out/log.txt"
timeout 150 python3 bench/debug/conv_tl.py bench/.out/k/convolution__example_convolution__convolution.tile >"$out/conv_tl.txt" 2>&1
echo "conv_tl rc=$? ${SECONDS}s" >>"$out/log.txt"
tar -C "$out" -czf "${OUT:-/tmp}/call11b.tgz" .
cat "$out/log.txt"
for b in 132 264 500 1000; do echo "== $b"; grep -- '-->' "$out/mirror-$b.txt" | head -2; done
echo "== diff"; cut -c1-600 "$out/diff.jsonl"; tail -3 "$out/diff.err"
echo "== TileLang conv"; tail -6 "$out/conv_tl.txt"
