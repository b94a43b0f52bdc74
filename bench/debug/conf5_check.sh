#!/usr/bin/env bash
# GPU check of conf5's constructs that change generated code:
# - T.gemm accumulators 192 columns wide (test/Passes/Inputs/
#   padded-accumulator.tile: the padded mma.sync layout, 96 of 128
#   registers kept), with an element-wise loop, reductions along both
#   dimensions, a copy and an atomic add to global memory; FullRow over
#   8 warps (128x192 blocks) and Square over 2x4 warps (32x192 blocks),
#   and a power-of-two control (N = 256);
# - fragment rows indexed at a serial loop's variable inside T.Parallel
#   (test/Passes/Inputs/runtime-register-index.tile, FlashDecoding's
#   combine), num_split = 4 and 8.
# Every element against a float64 reference on the host.
# Here (no GPU): NO_RUN=1 OUT=bench/.out bash bench/debug/conf5_check.sh
# builds everything into bench/.out/conf5_check/. On the GPU machine, from
# the repository root, with build/bin/tilec carried (or TILEC=...):
#   bash bench/debug/conf5_check.sh
# Prints one table row per case; exit 0 = every element matched.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
out=${OUT:-/tmp}/conf5_check
mkdir -p "$out"
gemm() { # stem [defines...]
  local stem=$1
  shift
  "$tilec" test/Passes/Inputs/padded-accumulator.tile --target sm_90a -D M=256 -D K=64 "$@" \
    -o "$out/$stem.ptx" --header "$out/$stem.h" --namespace "conf5::$stem"
}
gemm pad_fullrow -D N=192                                   # 128x192 blocks, 8x1 warps
gemm pad_square -D N=192 -D block_M=32 -D full_row=0        # 32x192 blocks, 2x4 warps
gemm pow2_fullrow -D N=256                                  # control: a power of two
comb() { # stem num_split
  "$tilec" test/Passes/Inputs/runtime-register-index.tile --target sm_90a -D batch=8 \
    -D num_split=$2 -o "$out/$1.ptx" --header "$out/$1.h" --namespace "conf5::$1"
}
comb combine4 4
comb combine8 8
g++ -std=c++17 -O2 -Wall -I/usr/local/cuda/include -I"$out" \
  bench/debug/conf5_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/conf5_check"
[[ ${NO_RUN:-} ]] || "$out/conf5_check"
