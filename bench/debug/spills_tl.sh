#!/usr/bin/env bash
# Registers, stack frame and spills of TileLang's and tilec's builds of the
# same conformance kernels, on the GPU machine (TileLang compiles with nvcc
# there). DIR is a diff_prepare.py directory (cases.json, tilec/*.ptx, the
# bench/diff_*.py runner): each case runs the differential test with its own
# TILELANG_CACHE_DIR, so the device_kernel.cu TileLang leaves there is that
# case's: kept as OUTDIR/STEM.tilelang.cu for bench/debug/spills_report.py
# (nvcc -Xptxas -v, here or on this machine, gives TileLang's spills; its
# kernel_lib.so was not found by name in session 13's run). ptxas -v reads
# tilec's PTX. Prints one row per kernel (every kernel of a case: max
# registers and stack, sum of spill stores) and leaves the JSON lines of
# the differential.
#   bash bench/debug/spills_tl.sh DIR OUTDIR [JOBS]
set -uo pipefail
dir=$1 out=$2 jobs=${3:-6}
mkdir -p "$out"
stems=$(python3 -c "import json,sys; print(' '.join(c['stem'] for c in json.load(open(sys.argv[1]))))" "$dir/cases.json")
for s in $stems; do echo "$s"; done | xargs -P "$jobs" -I{} bash -c '
  cd "$0" && TILELANG_CACHE_DIR=/tmp/tlc-spills/{} timeout 300 \
    python3 diff_tma.py --jobs 1 --only {} --time-budget 240 >"$1/{}.jsonl" 2>"$1/{}.err"' "$dir" "$out"
printf '| kernel | tilec regs | tilec stack B | tilec spill stores B | differential |\n|---|---|---|---|---|\n' >"$out/table.md"
for s in $stems; do
  # TileLang's CUDA source of this case, for bench/debug/spills_report.py
  # (nvcc -Xptxas -v there gives its registers and spills).
  src=$(find "/tmp/tlc-spills/$s" -name device_kernel.cu 2>/dev/null | head -1)
  [ -n "$src" ] && cp "$src" "$out/$s.tilelang.cu"
  ptxas -arch=sm_90a -v "$dir/tilec/$s.ptx" -o "$out/$s.cubin" >"$out/$s.ptxas" 2>&1
  tc=$(awk '/bytes stack frame/{for(i=1;i<=NF;i++){if($(i+1)=="bytes"&&$(i+2)=="stack")if($i>st)st=$i; if($(i+1)=="bytes"&&$(i+2)=="spill"&&$(i+3)~/^stores/)sp+=$i}}
           /Used [0-9]+ registers/{for(i=1;i<=NF;i++)if($i=="Used")if($(i+1)>r)r=$(i+1)}
           END{print r+0" | "st+0" | "sp+0}' "$out/$s.ptxas")
  verdict=$(python3 -c "import json,sys
for l in open(sys.argv[1]):
    try: r=json.loads(l)
    except Exception: continue
    v = 'agree' if r.get('agree') else r.get('skip') or r.get('error', 'differ')
    print(str(v)[:60]); break
" "$out/$s.jsonl" 2>/dev/null)
  echo "| $s | $tc | ${verdict:-none} |" >>"$out/table.md"
done
cat "$out/table.md"
