#!/usr/bin/env bash
# GPU check of thread branches whose arms are whole warps but not whole
# warpgroups (warps_check.cpp says what each kernel computes and against
# what): fragments, reductions within a warp and across an arm's warps, a
# pipelined global -> shared -> fragment copy and a T.Parallel loop in an
# arm of threads [32, 96) of 96 (DeepSeek's mHC pre shape), the same split
# 64 | 64 of 128, and mma.sync gemms in arms [0, 64) | [64, 192), the
# second also as a pipelined cp.async loop over K. The
# kernels are the lit tests' (test/Passes/warp-arms.test). Here (no GPU),
# from the repository root:
#   NO_RUN=1 OUT=bench/.out bash bench/debug/warps_check.sh
# builds everything into bench/.out/warps_check/. On the GPU machine, with
# bench/.out/warps_check carried:
#   bench/.out/warps_check/warps_check
# (or this script without NO_RUN). Prints the seed of its fresh random
# inputs (SEED=n repeats a run), one table row per case, `all ok` last;
# exit 0 = every element matched. About a second.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
out=${OUT:-/tmp}/warps_check
mkdir -p "$out"
arms=test/Passes/Inputs/warp-arms.tile
gemm=test/Passes/Inputs/warp-arms-gemm.tile
for t in sm_90a:sm90 sm_80:sm80; do
  "$tilec" "$arms" --target "${t%%:*}" -o "$out/arms_${t#*:}.ptx" \
    --header "$out/arms_${t#*:}.h" --namespace "warps::arms_${t#*:}"
  "$tilec" "$gemm" --target "${t%%:*}" -o "$out/gemm_${t#*:}.ptx" \
    --header "$out/gemm_${t#*:}.h" --namespace "warps::gemm_${t#*:}"
  "$tilec" "$gemm" --target "${t%%:*}" -D K=256 -o "$out/pipe_${t#*:}.ptx" \
    --header "$out/pipe_${t#*:}.h" --namespace "warps::pipe_${t#*:}"
done
"$tilec" "$arms" --target sm_90a -D threads=128 -D split=64 \
  -o "$out/arms128_sm90.ptx" --header "$out/arms128_sm90.h" \
  --namespace warps::arms128_sm90
g++ -std=c++17 -O2 -Wall -I/usr/local/cuda/include -I"$out" -Ibench/debug \
  bench/debug/warps_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda \
  -o "$out/warps_check"
[[ ${NO_RUN:-} ]] || "$out/warps_check"
