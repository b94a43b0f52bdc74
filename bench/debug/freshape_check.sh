#!/usr/bin/env bash
# GPU check of T.reshape of a fragment (freshape_check.cpp says what each
# kernel computes and against what): a gemm accumulator seen as
# (N, Q, H), written element-wise through the view and reduced over its
# last dimension, on sm_90a (wgmma) and sm_80 (mma.sync), and a view of a
# view used element-wise. The kernel is the lit test's
# (test/Frontend/tilelang/reshape-fragment.tile). Here (no GPU), from the
# repository root:
#   NO_RUN=1 OUT=bench/.out bash bench/debug/freshape_check.sh
# builds everything into bench/.out/freshape_check/. On the GPU machine,
# with bench/.out/freshape_check carried:
#   bench/.out/freshape_check/freshape_check
# Prints one table row per case, `all ok` last; exit 0 = every element
# matched. About a second.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
out=${OUT:-/tmp}/freshape_check
mkdir -p "$out"
src=test/Frontend/tilelang/reshape-fragment.tile
"$tilec" "$src" --target sm_90a -o "$out/hs_sm90.ptx" \
  --header "$out/hs_sm90.h" --namespace freshape::hs_sm90
"$tilec" "$src" --target sm_80 -o "$out/hs_sm80.ptx" \
  --header "$out/hs_sm80.h" --namespace freshape::hs_sm80
"$tilec" "$src" --target sm_90a -D Q=4 -D H=32 -D K=128 \
  -o "$out/hs_q4_sm90.ptx" --header "$out/hs_q4_sm90.h" \
  --namespace freshape::hs_q4_sm90
"$tilec" "$src" --target sm_90a -D variant=4 -o "$out/hs_chain_sm90.ptx" \
  --header "$out/hs_chain_sm90.h" --namespace freshape::hs_chain_sm90
g++ -std=c++17 -O2 -Wall -I/usr/local/cuda/include -I"$out" -Ibench/debug \
  bench/debug/freshape_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/freshape_check"
[[ ${NO_RUN:-} ]] || "$out/freshape_check"
