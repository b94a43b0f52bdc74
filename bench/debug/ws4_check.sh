#!/usr/bin/env bash
# GPU check of TileLang's hand-written warp specialization (issue #10 item
# 4's explicit forms, ws4): T.ws regions, T.alloc_barrier mbarriers,
# T.tma_copy, T.set_max_nreg, and fragments / T.gemm laid out over one
# warpgroup of a 256-thread block. The kernels are
# test/Passes/Inputs/ws-gemm.tile (C = A @ B, f16 in, f32 accumulated,
# f16 out), in the roles of TileLang's examples/warp_specialize GEMMs:
#   tma_p1    producer warpgroup 1 (TMA + mbarriers), consumer 0
#   tma_p0    the roles swapped: the consumer is warpgroup 1
#   tma_regs  tma_p1 with setmaxnreg (240 / 24)
#   tma_edge  tma_p1 on M=320 N=192 K=480: partial tiles (TMA zero-fills)
#   tma_relu  tma_p0 with max(C, 0) in a T.Parallel over warpgroup 1's
#             accumulator
#   split     two consumer warpgroups, one N half each, T.copy in T.ws
#   split_edge split on M=320 N=192 K=480
#   split_pipe split in T.Pipelined(num_stages=3), run as written
#   eager     test/Passes/Inputs/ws-gemm-eager.tile: run-time M, N, K
#             (T.const), roles swapped, in a T.Pipelined loop; run at
#             512x384x1024 and 320x192x480
# Here (no GPU): NO_RUN=1 OUT=bench/.out bash bench/debug/ws4_check.sh
# builds everything into bench/.out/ws4_check/. On the GPU machine, from
# the repository root, with build/bin/tilec carried (or TILEC=...):
#   bash bench/debug/ws4_check.sh
# Prints one table row per case; exit 0 = every element matched.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
out=${OUT:-/tmp}/ws4_check
mkdir -p "$out"
src=test/Passes/Inputs/ws-gemm.tile
build() { # stem [defines...]
  local stem=$1
  shift
  "$tilec" $src --target sm_90a "$@" \
    -o "$out/$stem.ptx" --header "$out/$stem.h" --namespace "ws4::$stem"
}
build tma_p1 -D producer=1
build tma_p0 -D producer=0
build tma_regs -D producer=1 -D regs=True
build tma_edge -D producer=1 -D M=320 -D N=192 -D K=480
build tma_relu -D producer=0 -D relu=True
build split -D 'roles="split"'
build split_edge -D 'roles="split"' -D M=320 -D N=192 -D K=480
build split_pipe -D 'roles="split"' -D stages=3
"$tilec" test/Passes/Inputs/ws-gemm-eager.tile --target sm_90a \
  -o "$out/eager.ptx" --header "$out/eager.h" --namespace ws4::eager
g++ -std=c++17 -O2 -Wall -I/usr/local/cuda/include -I"$out" \
  bench/debug/ws4_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/ws4_check"
[[ ${NO_RUN:-} ]] || "$out/ws4_check"
