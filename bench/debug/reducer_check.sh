#!/usr/bin/env bash
# GPU check of T.alloc_reducer / T.finalize_reducer (reducer_check.cpp says
# what each kernel computes and against what): a gemv whose row sums are a
# sum reducer updated by a T.Parallel loop spread over the rows and
# columns (test/Frontend/tilelang/reducer-gemv.tile, on sm_90a and sm_80,
# and with a partial last tile and 256 threads), a column maximum into a
# max reducer (reducer-max.tile) and a column minimum into a
# replication="none" min reducer (reducer-none.tile). Here (no GPU), from
# the repository root:
#   NO_RUN=1 OUT=bench/.out bash bench/debug/reducer_check.sh
# builds everything into bench/.out/reducer_check/. On the GPU machine,
# with bench/.out/reducer_check carried:
#   bench/.out/reducer_check/reducer_check
# Prints one table row per case, `all ok` last; exit 0 = every element
# matched. About a second.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
out=${OUT:-/tmp}/reducer_check
mkdir -p "$out"
gemv=test/Frontend/tilelang/reducer-gemv.tile
colmax=test/Frontend/tilelang/reducer-max.tile
colmin=test/Frontend/tilelang/reducer-none.tile
for t in sm_90a:sm90 sm_80:sm80; do
  "$tilec" "$gemv" --target "${t%%:*}" -o "$out/gemv_${t#*:}.ptx" \
    --header "$out/gemv_${t#*:}.h" --namespace "reducer::gemv_${t#*:}"
  "$tilec" "$colmax" --target "${t%%:*}" -o "$out/colmax_${t#*:}.ptx" \
    --header "$out/colmax_${t#*:}.h" --namespace "reducer::colmax_${t#*:}"
done
"$tilec" "$gemv" --target sm_90a -D M=200 -D K=328 -D block_K=128 \
  -D threads=256 -o "$out/gemv_odd.ptx" --header "$out/gemv_odd.h" \
  --namespace reducer::gemv_odd
"$tilec" "$colmin" --target sm_90a -o "$out/colmin.ptx" \
  --header "$out/colmin.h" --namespace reducer::colmin
g++ -std=c++17 -O2 -Wall -I/usr/local/cuda/include -I"$out" -Ibench/debug \
  bench/debug/reducer_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/reducer_check"
[[ ${NO_RUN:-} ]] || "$out/reducer_check"
