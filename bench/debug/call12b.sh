#!/usr/bin/env bash
# Session 12, device call 2: the grid barrier after the convergent-asm fix
# (call 1 of session 11 hung at 128*1000-37 elements, a partial last block,
# after a 132-block launch: conf10b_check.py's mirror group runs exactly that
# pair, on sm_90a and sm_80, twice); TileLang's own persistent MLA decode
# against float64 (bench/debug/mla_tl.py: which side the differential
# mismatch is on); the whole side-by-side run (.dev/sxs12). One tarball.
#   bash bench/debug/call12b.sh
set -uo pipefail
out=$(mktemp -d)
mkdir -p /tmp/site
[ -d /tmp/site/tilelang ] || tar -C /tmp/site -xJf .dev/tilelang-site.tar.xz
export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=/tmp/site/z3/lib TILELANG_CACHE_DIR=/tmp/tlc PYTHONUNBUFFERED=1
SECONDS=0
for i in 1 2; do
  timeout 60 python3 bench/debug/conf10b_check.py bench/.out/conf10b_check mirror >"$out/mirror-$i.txt" 2>&1
  echo "mirror run $i rc=$? ${SECONDS}s" >>"$out/log.txt"
done
timeout 150 python3 bench/debug/mla_tl.py bench/.out/k/deepseek_mla__example_mla_decode_persistent__flashattn.tile >"$out/mla_tl.txt" 2>&1
echo "mla_tl rc=$? ${SECONDS}s" >>"$out/log.txt"
(cd .dev/sxs12 && timeout 330 python3 sxs_tma.py >"$out/sxs.jsonl" 2>"$out/sxs.err")
echo "sxs rc=$? ${SECONDS}s" >>"$out/log.txt"
tar -C "$out" -czf "${OUT:-/tmp}/call12b.tgz" .
cat "$out/log.txt"
for i in 1 2; do echo "== mirror $i"; grep '^|\|all ok\|FAILED' "$out/mirror-$i.txt"; done
echo "== TileLang mla"; tail -4 "$out/mla_tl.txt"
python3 bench/sxs_report.py "$out"/sxs.jsonl
tail -3 "$out/sxs.err"
