#!/usr/bin/env bash
# GPU check of the mma.sync GEMM dtypes of issue #11 (conf3): float32
# operands computed as tf32 (m16n8k8) and OCP fp8 e4m3 / e5m2 (m16n8k32),
# in every storage order (ldmatrix and element-load paths), and the f32 ->
# fp8 store (tile-lower-fp8-casts), through the kernels' launch headers,
# and element-wise conversions to / from e4m3 and e5m2 (every fp8 code,
# and f32 / f16 values across the range, saturation included). The
# kernels are test/Passes/Inputs/gemm-dtypes.tile and fp8-cast.tile.
# Here (no GPU): NO_RUN=1 OUT=bench/.out bash bench/debug/conf3_check.sh
# builds everything into bench/.out/conf3_check/. On the GPU machine, from
# the repository root, with build/bin/tilec carried (or TILEC=...):
#   bash bench/debug/conf3_check.sh
# Prints one table row per case; exit 0 = every element matched.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
out=${OUT:-/tmp}/conf3_check
mkdir -p "$out"
src=test/Passes/Inputs/gemm-dtypes.tile
build() { # stem [defines...]
  local stem=$1
  shift
  "$tilec" $src --target sm_90a -D M=256 -D N=192 -D K=256 "$@" \
    -o "$out/$stem.ptx" --header "$out/$stem.h" --namespace "conf3::$stem"
}
build tf32_nt                                        # A (M,K), B (N,K): ldmatrix
build tf32_tn -D trans_A=True -D trans_B=False       # A (K,M), B (K,N): element loads
build tf32_nn -D trans_B=False                       # ldmatrix A, element-load B
build tf32_nt_w8 -D threads=256 -D block_M=128        # 8 warps, 128x64 tiles
build tf32_areg -D a_in_registers=True -D trans_B=False # A from a fragment
build e4m3_nt -D a_dtype=float8_e4m3 -D b_dtype=float8_e4m3 -D block_K=64
# fp8 on wgmma (m64nNk32): TMA-fed and in flight across iterations, and
# warp-specialized (one 128 KiB block per SM) with partial tiles along N.
build e4m3_tma -D a_dtype=float8_e4m3 -D b_dtype=float8_e4m3 -D block_K=128 -D num_stages=3
build e4m3_ws -D a_dtype=float8_e4m3 -D b_dtype=float8_e5m2 -D block_M=128 -D block_N=128 \
  -D block_K=128 -D num_stages=4
# fp8 mma.sync with ldmatrix (64 threads: not a warpgroup, so no wgmma).
build e4m3_w64 -D a_dtype=float8_e4m3 -D b_dtype=float8_e4m3 -D block_K=64 -D threads=64
build e4m3_e5m2 -D a_dtype=float8_e4m3 -D b_dtype=float8_e5m2 -D block_K=64
build e5m2_tn -D a_dtype=float8_e5m2 -D b_dtype=float8_e5m2 -D block_K=64 \
  -D trans_A=True -D trans_B=False
build e4m3_out8 -D a_dtype=float8_e4m3 -D b_dtype=float8_e4m3 -D block_K=64 \
  -D out_dtype=float8_e4m3
cast() { # stem src dst
  "$tilec" test/Passes/Inputs/fp8-cast.tile --target sm_90a -D N=8192 -D src=$2 -D dst=$3 \
    -o "$out/$1.ptx" --header "$out/$1.h" --namespace "conf3::$1"
}
cast e4m3_to_f32 float8_e4m3 float32
cast e5m2_to_bf16 float8_e5m2 bfloat16
cast f32_to_e4m3 float32 float8_e4m3
cast f32_to_e5m2 float32 float8_e5m2
cast f16_to_e4m3 float16 float8_e4m3
g++ -std=c++17 -O2 -Wall -I/usr/local/cuda/include -I"$out" \
  bench/debug/conf3_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/conf3_check"
[[ ${NO_RUN:-} ]] || "$out/conf3_check"
