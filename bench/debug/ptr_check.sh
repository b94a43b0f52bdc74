#!/usr/bin/env bash
# GPU check of pointer tables (`T.Tensor([n], T.ptr)` + `T.make_tensor`):
# a grouped GEMM of 3 groups of different M (64, 192, 128 rows; K = 256,
# N = 128), each group's A, B and C its own allocation, reached through
# tables of device pointers (ptr_check.cpp says what is compared). The
# kernel is the lit test's (test/Frontend/tilelang/ptr-grouped-gemm.tile),
# built for sm_90a (cp.async + wgmma: no TMA for a run-time address), for
# sm_80 (cp.async + mma.sync; its PTX is JIT-compiled on the H200), and for
# sm_90a with a one-stage loop. Here (no GPU), from the repository root:
#   NO_RUN=1 OUT=bench/.out bash bench/debug/ptr_check.sh
# builds everything into bench/.out/ptr_check/. On the GPU machine, with
# bench/.out/ptr_check carried:
#   bench/.out/ptr_check/ptr_check
# Prints one table row per case, `all ok` last; exit 0 = every element
# matched. About a second.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
out=${OUT:-/tmp}/ptr_check
mkdir -p "$out"
kernel=test/Frontend/tilelang/ptr-grouped-gemm.tile
"$tilec" "$kernel" --target sm_90a -o "$out/sm90.ptx" --header "$out/sm90.h" \
  --namespace ptr_check::sm90
"$tilec" "$kernel" --target sm_80 -o "$out/sm80.ptx" --header "$out/sm80.h" \
  --namespace ptr_check::sm80
"$tilec" "$kernel" --target sm_90a -D stages=1 -o "$out/sm90_s1.ptx" \
  --header "$out/sm90_s1.h" --namespace ptr_check::sm90_s1
g++ -std=c++17 -O2 -Wall -I/usr/local/cuda/include -I"$out" -Ibench/debug \
  bench/debug/ptr_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/ptr_check"
[[ ${NO_RUN:-} ]] || "$out/ptr_check"
