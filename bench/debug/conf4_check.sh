#!/usr/bin/env bash
# GPU check of conf4's fragments read and written element by element
# outside T.Parallel (TileLang's "floating" fragments, replicated over the
# threads): test/Passes/Inputs/floating-fragments.tile reads a block mask
# at a serial loop's index (int8 and bool masks), the (1,) result of a
# whole-tile reduction into a scalar, and a (1,) fragment written from
# global memory inside a T.Parallel loop; at two block shapes / thread
# counts; and T.copy between fragments of different element types
# (test/Passes/Inputs/fragment-cast-copy.tile: f32 -> f16, bf16, e4m3).
# Every element against a float64 reference on the host.
# Here (no GPU): NO_RUN=1 OUT=bench/.out bash bench/debug/conf4_check.sh
# builds everything into bench/.out/conf4_check/. On the GPU machine, from
# the repository root, with build/bin/tilec carried (or TILEC=...):
#   bash bench/debug/conf4_check.sh
# Prints one table row per case; exit 0 = every element matched.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
out=${OUT:-/tmp}/conf4_check
mkdir -p "$out"
src=test/Passes/Inputs/floating-fragments.tile
build() { # stem [defines...]
  local stem=$1
  shift
  "$tilec" $src --target sm_90a -D M=256 -D N=512 "$@" \
    -o "$out/$stem.ptx" --header "$out/$stem.h" --namespace "conf4::$stem"
}
build mask_i8                                             # 32x64 tiles, 128 threads
build mask_bool -D mask_dtype=bool                        # T.bool mask (one byte each)
build mask_w8 -D block_M=64 -D threads=256                # 8 warps
build mask_narrow -D block_N=128 -D threads=64            # 4 blocks per row, 2 warps
cast() { # stem out_dtype scale
  "$tilec" test/Passes/Inputs/fragment-cast-copy.tile --target sm_90a -D M=256 -D N=128 \
    -D out_dtype=$2 -D scale=$3 -o "$out/$1.ptx" --header "$out/$1.h" --namespace "conf4::$1"
}
cast cast_f16 float16 2.0                                 # fragment f32 -> f16 copy
cast cast_bf16 bfloat16 2.0                               # -> bf16
cast cast_e4m3 float8_e4m3 600.0                          # -> e4m3, past 448 saturates
g++ -std=c++17 -O2 -Wall -I/usr/local/cuda/include -I"$out" \
  bench/debug/conf4_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/conf4_check"
[[ ${NO_RUN:-} ]] || "$out/conf4_check"
