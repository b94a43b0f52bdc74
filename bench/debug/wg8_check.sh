#!/usr/bin/env bash
# GPU check of T.wgmma_gemm / T.wait_wgmma (wg8, issue #10 item 3): the
# kernels of test/Passes/Inputs/wgmma-async.tile (float16 in, float32 out)
#   ws   MLA decode's score shape without operand regions: per block of
#        64 keys, S = Q_l K_l^T + Q_r K_r^T + Q_pe K_pe^T as three async
#        gemms into one accumulator and one T.wait_wgmma(0), in a T.ws
#        consumer region fed by a TMA producer region over mbarriers
#        (H 128, S 1024, half 64, pe 32: 2 blocks, 16 iterations);
#   two  two accumulators in flight: C1 = A B1^T read after
#        T.wait_wgmma(1), C2 = A B2^T after T.wait_wgmma(0) (M 128, N 64,
#        K 64).
# Every element against a float64 reference on the host (outputs start
# as NaN, so an element no thread wrote fails).
# Here (no GPU): NO_RUN=1 OUT=bench/.out bash bench/debug/wg8_check.sh
# builds everything into bench/.out/wg8_check/. On the GPU machine, from
# the repository root, with build/bin/tilec carried (or TILEC=...):
#   bash bench/debug/wg8_check.sh
# Prints one table row per case; exit 0 = every element matched.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
out=${OUT:-/tmp}/wg8_check
src=test/Passes/Inputs/wgmma-async.tile
mkdir -p "$out"
build() { # stem [defines...]
  local stem=$1
  shift
  "$tilec" $src --target sm_90a "$@" \
    -o "$out/$stem.ptx" --header "$out/$stem.h" --namespace "wg8::$stem"
}
build ws -D 'mode="ws"' -D H=128 -D S=1024
build two -D 'mode="two"' -D M=128 -D N=64 -D K=64
g++ -std=c++17 -O2 -Wall -I/usr/local/cuda/include -I"$out" -Ibench/debug \
  bench/debug/wg8_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/wg8_check"
[[ ${NO_RUN:-} ]] || "$out/wg8_check"
