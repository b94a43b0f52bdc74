#!/usr/bin/env bash
# Session 10, device call 2: MLA decode with its last gemm (P V) kept in
# flight across the back edge in the consumers' loop that keeps its block
# barriers (--overlap-gemms; .dev/sxs10ov) against HEAD's default schedule
# (.dev/sxs10), alternating, TileLang in every run; compute-sanitizer on a
# small instance of the new schedule; the helpers' GPU checks (conf10a,
# conf10c). One tarball under $OUT.
#   bash bench/debug/call10b.sh
set -uo pipefail
out=$(mktemp -d)
mkdir -p /tmp/site
[ -d /tmp/site/tilelang ] || tar -C /tmp/site -xJf .dev/tilelang-site.tar.xz
export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=/tmp/site/z3/lib TILELANG_CACHE_DIR=/tmp/tlc PYTHONUNBUFFERED=1
SECONDS=0
for i in 1 2; do
  for v in sxs10 sxs10ov; do
    (cd .dev/$v && timeout 120 python3 sxs_tma.py mla_decode_64 mla_decode_128 >"$out/$v-$i.jsonl" 2>>"$out/sxs.err")
    echo "$v $i rc=$? ${SECONDS}s" >>"$out/log.txt"
  done
done
m=bench/.out/mla10
timeout 60 python3 bench/debug/mla_check.py $m/mla128_ov.ptx $m/mla128_ov.json >"$out/mla128_ov.txt" 2>&1
echo "mla_check rc=$? ${SECONDS}s" >>"$out/log.txt"
for tool in memcheck racecheck synccheck; do
  timeout 120 compute-sanitizer --tool $tool python3 bench/debug/mla_check.py $m/small_ov.ptx $m/small_ov.json >"$out/san-$tool.txt" 2>&1
  echo "sanitizer $tool rc=$? ${SECONDS}s" >>"$out/log.txt"
done
for c in conf10a conf10c; do
  timeout 90 bench/.out/${c}_check/${c}_check >"$out/$c.txt" 2>&1
  echo "$c rc=$? ${SECONDS}s" >>"$out/log.txt"
done
tar -C "$out" -czf "${OUT:-/tmp}/call10b.tgz" .
cat "$out/log.txt"
echo "== base"; python3 bench/sxs_report.py "$out"/sxs10-1.jsonl "$out"/sxs10-2.jsonl
echo "== overlap"; python3 bench/sxs_report.py "$out"/sxs10ov-1.jsonl "$out"/sxs10ov-2.jsonl
cat "$out/mla128_ov.txt"
for t in memcheck racecheck synccheck; do echo "== $t"; tail -4 "$out/san-$t.txt"; done
for c in conf10a conf10c; do echo "== $c"; grep '^|\|all ok' "$out/$c.txt"; done
