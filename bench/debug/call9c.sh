#!/usr/bin/env bash
# Session 9, final device call: the helpers' GPU checks (wg9, conf9b,
# conf9a; prebuilt here with NO_RUN=1 OUT=bench/.out), the kda kernel that
# faulted in call 2 under compute-sanitizer (its PTX before and after the
# 128-byte TMA-store alignment), the differential test of the kernels whose
# PTX changed since call 2 or that are newly accepted (bench/.out/diff9c),
# then the whole side-by-side run with TileLang (.dev/sxs9, the MLA cases
# a second and third time).
#   bash bench/debug/call9c.sh
set -uo pipefail
out=${OUT:-/tmp/call9c}
mkdir -p "$out" /tmp/site
[ -d /tmp/site/tilelang ] || tar -C /tmp/site -xJf .dev/tilelang-site.tar.xz
export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=/tmp/site/z3/lib TILELANG_CACHE_DIR=/tmp/tlc PYTHONUNBUFFERED=1
SECONDS=0
for c in wg9 conf9b; do
  timeout 90 bench/.out/${c}_check/${c}_check >"$out/$c.txt" 2>&1
  echo "$c rc=$? ${SECONDS}s" >>"$out/log.txt"
done
timeout 120 bash bench/.out/conf9a_check/run.sh >"$out/conf9a.txt" 2>&1
echo "conf9a rc=$? ${SECONDS}s" >>"$out/log.txt"
kda=kda__chunk_intra_token_parallel__tilelang_chunk_kda_fwd_intra_token_parallel
for d in diff9full diff9c; do
  [ -f bench/.out/$d/tilec/$kda.ptx ] || continue
  (cd bench/.out/$d && timeout 90 compute-sanitizer --tool memcheck --print-limit 3 \
     python3 diff_tma.py --jobs 1 --only $kda >"$out/kda-$d.jsonl" 2>"$out/kda-$d.err")
  echo "kda $d rc=$? ${SECONDS}s" >>"$out/log.txt"
done
(cd bench/.out/diff9c && timeout 150 python3 diff_tma.py --jobs 8 --gpu-gib 120 \
   --time-budget 130 >"$out/diff.jsonl" 2>"$out/diff.err")
echo "diff rc=$? ${SECONDS}s" >>"$out/log.txt"
python3 bench/.out/diff9c/diff_summary.py "$out/diff.jsonl" >"$out/diff.md"
(cd .dev/sxs9 && timeout 280 python3 sxs_tma.py >"$out/sxs.jsonl" 2>"$out/sxs.err")
echo "sxs rc=$? ${SECONDS}s" >>"$out/log.txt"
(cd .dev/sxs9 && for i in 2 3; do timeout 50 python3 sxs_tma.py mla_decode_64 mla_decode_128 >"$out/sxs-mla$i.jsonl" 2>>"$out/sxs.err"; done)
echo "mla rc=$? ${SECONDS}s" >>"$out/log.txt"
cat "$out/log.txt"
for c in wg9 conf9b conf9a; do [ -f "$out/$c.txt" ] && { echo "== $c"; tail -n 14 "$out/$c.txt"; }; done
for d in diff9full diff9c; do [ -f "$out/kda-$d.err" ] && { echo "== kda $d"; tail -n 6 "$out/kda-$d.err"; cat "$out/kda-$d.jsonl" | cut -c1-300; }; done
head -n 30 "$out/diff.md"
python3 bench/sxs_report.py "$out"/sxs.jsonl
