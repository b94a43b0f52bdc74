#!/usr/bin/env bash
# GPU check of np6's thread counts that are not powers of two: blocks of
# 384 threads (12 warps) whose layouts span 16 warps, the 4 phantom warps
# owning only the padding rows 192..255 of a 192-row tile.
# - examples/gemm_relu.tile, 192x256 blocks, threads=384: on sm_90a 3
#   wgmma consumer warpgroups of 64 rows (plus the producer warpgroup of
#   the warp-specialized loop: 512 threads), block_K 32 and 64; on sm_80
#   (mma.sync, the same H200 runs the sm_80 PTX) a 3x4 warp split, each
#   warp 64x64; a power-of-two control (threads=256, 128x256 blocks);
# - test/Passes/Inputs/padded-accumulator.tile at threads=384, 192x256
#   blocks, FullRow (12x1 warps) and Square (3x4): an element-wise loop, a
#   row max, a column sum across the warps along M (whose phantom partner
#   warps are skipped), a copy and an atomic add; sm_90a and sm_80.
# Every element against a float64 reference on the host.
# Here (no GPU): NO_RUN=1 OUT=bench/.out bash bench/debug/np6_check.sh
# builds everything into bench/.out/np6_check/. On the GPU machine, from
# the repository root, with build/bin/tilec carried (or TILEC=...):
#   bash bench/debug/np6_check.sh
# Prints one table row per case; exit 0 = every element matched.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
out=${OUT:-/tmp}/np6_check
mkdir -p "$out"
relu() { # stem target [defines...]
  local stem=$1 target=$2
  shift 2
  "$tilec" examples/gemm_relu.tile --target "$target" -D M=768 -D N=512 -D K=512 \
    -D block_N=256 "$@" -o "$out/$stem.ptx" --header "$out/$stem.h" --namespace "np6::$stem"
}
relu relu90_k32 sm_90a -D threads=384 -D block_M=192                # 3 wgmma warpgroups
relu relu90_k64 sm_90a -D threads=384 -D block_M=192 -D block_K=64
relu relu80_k32 sm_80 -D threads=384 -D block_M=192                 # mma.sync 3x4 warps
relu relu90_pow2 sm_90a -D threads=256 -D block_M=128               # control
# FullRow (bench/debug/np6_gemm_relu.tile): 12x1 warps on mma.sync.
"$tilec" bench/debug/np6_gemm_relu.tile --target sm_80 -D M=768 -D N=512 -D K=512 -D block_N=256 \
  -D threads=384 -D block_M=192 -o "$out/relu80_fullrow.ptx" --header "$out/relu80_fullrow.h" \
  --namespace np6::relu80_fullrow
pad() { # stem target [defines...]
  local stem=$1 target=$2
  shift 2
  "$tilec" test/Passes/Inputs/padded-accumulator.tile --target "$target" -D M=384 -D N=256 \
    -D K=64 -D threads=384 -D block_M=192 "$@" \
    -o "$out/$stem.ptx" --header "$out/$stem.h" --namespace "np6::$stem"
}
pad pad90_fullrow sm_90a                                            # 12x1 warps
pad pad90_square sm_90a -D full_row=0                               # 3x4 warps
pad pad80_fullrow sm_80
pad pad80_square sm_80 -D full_row=0
g++ -std=c++17 -O2 -Wall -I/usr/local/cuda/include -I"$out" \
  bench/debug/np6_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/np6_check"
[[ ${NO_RUN:-} ]] || "$out/np6_check"
