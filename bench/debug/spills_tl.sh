#!/usr/bin/env bash
# Registers, stack frame and spills of TileLang's and tilec's builds of the
# same conformance kernels, on the GPU machine (TileLang compiles with nvcc
# there). DIR is a diff_prepare.py directory (cases.json, tilec/*.ptx, the
# bench/diff_*.py runner): each case runs the differential test with its own
# TILELANG_CACHE_DIR, so the device_kernel.cu TileLang leaves there is that
# case's: kept as OUTDIR/STEM.tilelang.cu; ptxas -v reads tilec's PTX, and
# bench/debug/spills_report.py (nvcc -Xptxas -v of TileLang's source against
# the unpacked TileLang site, $SITE, default /tmp/site) prints the table:
# registers and spill stores of both and the differential's verdict. The
# same report runs anywhere with nvcc on OUTDIR.
#   bash bench/debug/spills_tl.sh DIR OUTDIR [JOBS]
set -uo pipefail
dir=$1 out=$2 jobs=${3:-6}
mkdir -p "$out"
stems=$(python3 -c "import json,sys; print(' '.join(c['stem'] for c in json.load(open(sys.argv[1]))))" "$dir/cases.json")
for s in $stems; do echo "$s"; done | xargs -P "$jobs" -I{} bash -c '
  cd "$0" && TILELANG_CACHE_DIR=/tmp/tlc-spills/{} timeout 300 \
    python3 diff_tma.py --jobs 1 --only {} --time-budget 240 >"$1/{}.jsonl" 2>"$1/{}.err"' "$dir" "$out"
for s in $stems; do
  # TileLang's CUDA source of this case, and ptxas -v of tilec's PTX: the
  # two sides bench/debug/spills_report.py compares.
  src=$(find "/tmp/tlc-spills/$s" -name device_kernel.cu 2>/dev/null | head -1)
  [ -n "$src" ] && cp "$src" "$out/$s.tilelang.cu"
  ptxas -arch=sm_90a -v "$dir/tilec/$s.ptx" -o "$out/$s.cubin" >"$out/$s.ptxas" 2>&1
done
python3 "$(dirname "${BASH_SOURCE[0]}")/spills_report.py" "$out" --site "${SITE:-/tmp/site}" >"$out/table.md"
cat "$out/table.md"
