#!/usr/bin/env bash
# Session 9, device call 4: the helpers' GPU checks again after their
# harnesses' fixes (wg9: TileLang's barrierpipe example writes a float16 C,
# read as float32 in call 3; conf9b / conf9a: tolerances for the tensor
# cores' float32 sums, which are not IEEE-rounded: fp8 wgmma keeps about
# 14 bits), then the MLA decode cases of the side-by-side run twice more
# with TileLang (.dev/sxs9). Everything lands in one tarball under $OUT.
#   bash bench/debug/call9d.sh
set -uo pipefail
out=$(mktemp -d)
mkdir -p /tmp/site
[ -d /tmp/site/tilelang ] || tar -C /tmp/site -xJf .dev/tilelang-site.tar.xz
export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=/tmp/site/z3/lib TILELANG_CACHE_DIR=/tmp/tlc PYTHONUNBUFFERED=1
SECONDS=0
for c in wg9 conf9b; do
  timeout 90 bench/.out/${c}_check/${c}_check >"$out/$c.txt" 2>&1
  echo "$c rc=$? ${SECONDS}s" >>"$out/log.txt"
done
timeout 120 bash bench/.out/conf9a_check/run.sh >"$out/conf9a.txt" 2>&1
echo "conf9a rc=$? ${SECONDS}s" >>"$out/log.txt"
for i in 2 3; do
  (cd .dev/sxs9 && timeout 60 python3 sxs_tma.py mla_decode_64 mla_decode_128 >"$out/sxs-mla$i.jsonl" 2>>"$out/sxs.err")
  echo "mla $i rc=$? ${SECONDS}s" >>"$out/log.txt"
done
tar -C "$out" -czf "${OUT:-/tmp}/call9d.tgz" .
cat "$out/log.txt"
for c in wg9 conf9b conf9a; do echo "== $c"; grep '^|' "$out/$c.txt"; done
python3 bench/sxs_report.py "$out"/sxs-mla2.jsonl "$out"/sxs-mla3.jsonl
