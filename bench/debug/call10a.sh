#!/usr/bin/env bash
# Session 10, device call 1: where MLA decode's time goes. The side-by-side
# MLA cases once (tilec HEAD vs TileLang), then Nsight Compute (full set,
# source counters) on tilec's split-KV kernel at batch 128 and on
# TileLang's kernels of the same source. One tarball under $OUT.
#   bash bench/debug/call10a.sh   (carry .dev/sxs10, .dev/tilelang-site.tar.xz, bench/.out/mla10)
set -uo pipefail
out=$(mktemp -d)
mkdir -p /tmp/site
[ -d /tmp/site/tilelang ] || tar -C /tmp/site -xJf .dev/tilelang-site.tar.xz
export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=/tmp/site/z3/lib TILELANG_CACHE_DIR=/tmp/tlc PYTHONUNBUFFERED=1
SECONDS=0
(cd .dev/sxs10 && timeout 150 python3 sxs_tma.py mla_decode_64 mla_decode_128 >"$out/sxs-mla.jsonl" 2>>"$out/sxs.err")
echo "sxs rc=$? ${SECONDS}s" >>"$out/log.txt"
m=bench/.out/mla10
timeout 120 ncu --clock-control none --set full --import-source no -k regex:mla_decode_kernel0 -c 1 \
  -o "$out/tilec" python3 bench/debug/mla_check.py $m/mla128.ptx $m/mla128.json 2 >"$out/ncu-tilec.log" 2>&1
echo "ncu tilec rc=$? ${SECONDS}s" >>"$out/log.txt"
# TileLang's kernels: every kernel launch of the sxs case after the tilec ones.
(cd .dev/sxs10 && timeout 150 ncu --clock-control none --set full -k 'regex:^(?!mla_decode_kernel[01]$)(main|mla)' -c 3 \
  -o "$out/tilelang" python3 sxs_tma.py mla_decode_128 >"$out/ncu-tl.log" 2>&1)
echo "ncu tilelang rc=$? ${SECONDS}s" >>"$out/log.txt"
for r in tilec tilelang; do
  [ -f "$out/$r.ncu-rep" ] || continue
  ncu -i "$out/$r.ncu-rep" --print-details all >"$out/$r.txt" 2>&1
  ncu -i "$out/$r.ncu-rep" --page source --csv --print-source sass >"$out/$r-sass.csv" 2>&1
  ncu -i "$out/$r.ncu-rep" --page raw --csv >"$out/$r-raw.csv" 2>&1
done
echo "reports ${SECONDS}s" >>"$out/log.txt"
tar -C "$out" -czf "${OUT:-/tmp}/call10a.tgz" --exclude='*.ncu-rep' .
cat "$out/log.txt"
python3 bench/sxs_report.py "$out"/sxs-mla.jsonl
for r in tilec tilelang; do
  echo "== $r"; grep -E '^  [A-Za-z_0-9]+.*\(|Duration|Registers Per|Achieved Occupancy|Issued Warp Per|No Eligible|Warp Cycles Per Issued|Compute \(SM\) Throughput|Memory Throughput|L2 Hit|Shared Memory Configuration Size' "$out/$r.txt" | head -40
done
