#!/usr/bin/env bash
# GPU check of fragments whose extents are not powers of two (nonpow2):
# the lit tests' kernels (test/Frontend/tilelang/nonpow2-fragment.tile:
# a [24] fragment in a block of 96 threads, its sum and max, a [4, 4]
# fragment reduced along each dimension; nonpow2-rows.tile: a [6, 24]
# fragment reduced along each dimension), on 64 blocks of random inputs,
# every output element against float64 (nonpow2_check.cpp). Here (no GPU),
# from the repository root:
#   NO_RUN=1 OUT=bench/.out bash bench/debug/nonpow2_check.sh
# builds everything into bench/.out/nonpow2_check/. On the GPU machine,
# with bench/.out/nonpow2_check carried:
#   bench/.out/nonpow2_check/nonpow2_check
# Prints one table row per case, `all ok` last; exit 0 = every element
# matched. About a second.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
out=${OUT:-/tmp}/nonpow2_check
mkdir -p "$out"
"$tilec" test/Frontend/tilelang/nonpow2-fragment.tile --target sm_90a -D B=64 \
  -o "$out/mix24.ptx" --header "$out/mix24.h" --namespace nonpow2::mix24
"$tilec" test/Frontend/tilelang/nonpow2-rows.tile --target sm_90a -D B=64 \
  -o "$out/rows.ptx" --header "$out/rows.h" --namespace nonpow2::rows
g++ -std=c++17 -O2 -Wall -I/usr/local/cuda/include -I"$out" -Ibench/debug \
  bench/debug/nonpow2_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/nonpow2_check"
[[ ${NO_RUN:-} ]] || "$out/nonpow2_check"
