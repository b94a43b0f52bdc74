#!/usr/bin/env bash
# GPU check of conf6's constructs that change generated code, through the
# lit tests' own kernels (test/Frontend/tilelang/):
# - parallel-nest.tile: a T.Parallel nested in a T.Parallel, merged into
#   one loop nest (rows i >= n of a 16x64 fragment zeroed);
# - serial-var-bound.tile: `for i in T.serial(count)` with count a
#   T.alloc_var read from global memory (counts 0, 1, 100, 256);
# - fill-region.tile: T.fill of one element of a shared buffer and of rows
#   4..11 of a fragment;
# - test/Passes/copy-fragment-part.tile: T.copy of rows 0..11 of a 64x64
#   mma.sync accumulator to shared memory, and of a global tile into rows
#   32..47 of a fragment (FlashDecoding's `acc_o[:valid_block_H, :]`);
# - sync-threads-named.tile: `T.sync_threads(3, 64)` inside `if tx < 64:`
#   (bar.sync 1, 64) around a reversal through shared memory, and
#   `T.atomic_add(counter[0], 1, return_prev=True)` by all 128 threads;
# - test/Passes/loop-partial-cover.tile: a 16x8 loop over shared memory
#   laid out like the row maxima of a 16x64 mma.sync accumulator that it
#   reads (FlashDecoding varlen's S_shared[h, k] - scores_max[h]).
# Every element against a float64 (or exact) reference on the host.
# The cross-warp reduction loop of the same session (tile-lower-simt) is
# checked by bench/debug/conf5_check.sh's pad_fullrow and pow2_fullrow,
# which now take it: run that one too.
# Here (no GPU): NO_RUN=1 OUT=bench/.out bash bench/debug/conf6_check.sh
# builds everything into bench/.out/conf6_check/. On the GPU machine, from
# the repository root, with build/bin/tilec carried (or TILEC=...):
#   bash bench/debug/conf6_check.sh && bash bench/debug/conf5_check.sh
# Prints one table row per case; exit 0 = every element matched.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
out=${OUT:-/tmp}/conf6_check
t=test/Frontend/tilelang
mkdir -p "$out"
build() { # file stem
  "$tilec" "$1.tile" --target sm_90a -o "$out/$2.ptx" --header "$out/$2.h" \
    --namespace "conf6::$2"
}
build $t/parallel-nest parallel_nest
build $t/serial-var-bound serial_var
build $t/fill-region fill_region
build test/Passes/copy-fragment-part part_copy
build $t/sync-threads-named ranks
build test/Passes/loop-partial-cover rows_shifted
g++ -std=c++17 -O2 -Wall -I/usr/local/cuda/include -I"$out" \
  bench/debug/conf6_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/conf6_check"
[[ ${NO_RUN:-} ]] || "$out/conf6_check"
