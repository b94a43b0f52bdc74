#!/usr/bin/env bash
# GPU check of int8 T.gemm, of float16 T.gemm with a float16
# accumulator and of float32 T.gemm on tf32 wgmma (i8_check.cpp says what each build computes and against
# what): wgmma and mma.sync, both storage orders.
# Here (no GPU), from the repository root:
#   NO_RUN=1 OUT=bench/.out bash bench/debug/i8_check.sh
# builds everything into bench/.out/i8_check/. On the GPU machine, with
# bench/.out/i8_check carried:
#   bench/.out/i8_check/i8_check
# Prints one table row per case, `all ok` last; exit 0 = every element
# matched exactly. A few seconds.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
out=${OUT:-/tmp}/i8_check
mkdir -p "$out"
src=test/Passes/Inputs/gemm-dtypes.tile
int8=(-D a_dtype=int8 -D b_dtype=int8 -D acc_dtype=int32 -D out_dtype=int32)
build() { # name target extra-args...
  local name=$1 target=$2
  shift 2
  "$tilec" "$src" --target "$target" "${int8[@]}" "$@" \
    -o "$out/i8_$name.ptx" --header "$out/i8_$name.h" --namespace "i8::$name"
}
build nt90 sm_90a -D block_K=64
build tma90 sm_90a -D block_K=128 -D num_stages=3
build nt80 sm_80 -D block_K=64
build tn90 sm_90a -D block_K=64 -D trans_A=True -D trans_B=False
half=(-D a_dtype=float16 -D b_dtype=float16 -D acc_dtype=float16 -D out_dtype=float16)
"$tilec" "$src" --target sm_90a "${half[@]}" -o "$out/i8_h90.ptx" \
  --header "$out/i8_h90.h" --namespace i8::h90
"$tilec" "$src" --target sm_80 "${half[@]}" -o "$out/i8_h80.ptx" \
  --header "$out/i8_h80.h" --namespace i8::h80
"$tilec" "$src" --target sm_90a -o "$out/i8_t90.ptx" \
  --header "$out/i8_t90.h" --namespace i8::t90
"$tilec" "$src" --target sm_90a -D num_stages=3 -o "$out/i8_tma90t.ptx" \
  --header "$out/i8_tma90t.h" --namespace i8::tma90t
g++ -std=c++17 -O2 -Wall -I/usr/local/cuda/include -I"$out" -Ibench/debug \
  bench/debug/i8_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/i8_check"
[[ ${NO_RUN:-} ]] || "$out/i8_check"
