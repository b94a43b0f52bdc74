#!/usr/bin/env bash
# GPU check of the frontend features of issue #11 (conf2) through their
# launch headers: generic T.const sizes with a launch-header assert check,
# global-to-global T.copy, T.Layout index maps on global tensors, tile
# T.atomic_add (split-K), T.alloc_global workspaces, grids over integer
# scalars, float16 -> float32 reductions, threads=(x, y) blocks. The kernels are the lit tests'.
# On the GPU machine, from the repository root, with build/bin/tilec
# carried (or TILEC=...):
#   bash bench/debug/conf2_check.sh
# Prints one table row per check; exit 0 = every element matched.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
out=${OUT:-/tmp}/conf2_check
mkdir -p "$out"
t=test/Frontend
build() { # file stem [defines...]
  local file=$1 stem=$2
  shift 2
  "$tilec" "$file" --target sm_90a "$@" -o "$out/$stem.ptx" --header "$out/$stem.h" \
    --namespace "conf2::$stem"
}
build $t/eager/generic-const.tile generic_const
build $t/tilelang/copy-global-to-global.tile global_copy
build $t/tilelang/layout-index-map.tile index_map
build $t/tilelang/atomic-add-tile.tile atomic_tile
build $t/tilelang/alloc-global-workspace.tile workspace
build $t/tilelang/grid-scalar.tile grid_scalar
build $t/tilelang/reduce-widening.tile reduce_widening
build $t/tilelang/threads-2d.tile threads_2d
g++ -std=c++17 -O2 -Wall -I/usr/local/cuda/include -I"$out" \
  bench/debug/conf2_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/conf2_check"
[[ ${NO_RUN:-} ]] || "$out/conf2_check"
