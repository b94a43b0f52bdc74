#!/usr/bin/env bash
# GPU check of tmast8's TMA-store epilogues on sm_90a (see tmast8_check.cpp):
# FlashAttention (examples/flash_attention.tile, out_idx output) with full
# and partial last tiles, GEMMs with a C_shared epilogue (an out_idx output,
# examples/autotune_gemm.tile, and a T.empty output with dynamic m,
# test/Targets/Inputs/tma-store-eager-gemm.tile), M = 1000 and seq_len 4000 / 1000
# partial; every element against a float64 reference, outputs poisoned, no
# write past the tensor. With TILEC_BEFORE (a tilec built without this
# change: main's build before the merge) also FA 8x32x4096x128 (128x128
# blocks, 256 threads) timed before / after in turns (median of 9 rounds of
# 10 launches), the two outputs equal bit for bit. About 30 s on the GPU
# machine (the host references on every core, 4 x 268 MB of fp16 inputs).
# Here (build machine), from the repository root:
#   TILEC_BEFORE=/path/to/old/tilec NO_RUN=1 OUT=bench/.out bash bench/debug/tmast8_check.sh
# builds everything into bench/.out/tmast8_check/; then on the GPU machine,
# with bench/.out carried:
#   bench/.out/tmast8_check/tmast8_check
# (or, with build/bin/tilec carried and no timing: bash bench/debug/tmast8_check.sh).
# Prints one table row per case; exit 0 = every element matched.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
out=${OUT:-/tmp}/tmast8_check
mkdir -p "$out"
fa() { # tilec stem [defines...]
  local t=$1 stem=$2
  shift 2
  "$t" examples/flash_attention.tile --target sm_90a "$@" \
    -o "$out/$stem.ptx" --header "$out/$stem.h" --namespace "tmast8::$stem"
}
big=(-D block_M=128 -D block_N=128 -D threads=256)
fa "$tilec" fa_full "${big[@]}" -D batch=1 -D heads=2 -D seq_len=1024
fa "$tilec" fa_part "${big[@]}" -D batch=1 -D heads=2 -D seq_len=4000
fa "$tilec" fa_small -D batch=2 -D heads=2 -D seq_len=1000 -D dim=64
"$tilec" examples/autotune_gemm.tile --target sm_90a -D M=1000 -D N=512 -D K=512 \
  -o "$out/gemm_part.ptx" --header "$out/gemm_part.h" --namespace tmast8::gemm_part
"$tilec" test/Targets/Inputs/tma-store-eager-gemm.tile --target sm_90a -D N=512 -D K=512 \
  -o "$out/eager_part.ptx" --header "$out/eager_part.h" --namespace tmast8::eager_part
flags=()
if [[ ${TILEC_BEFORE:-} ]]; then
  fa "$TILEC_BEFORE" fa_before "${big[@]}"
  fa "$tilec" fa_after "${big[@]}"
else
  flags+=(-DNO_BEFORE)
fi
for stem in fa_full fa_part fa_small gemm_part eager_part; do
  grep -q 'cp.async.bulk.tensor.*global.shared' "$out/$stem.ptx" ||
    echo "warning: $stem.ptx has no TMA store"
done
g++ -std=c++17 -O2 -Wall -pthread "${flags[@]}" -I/usr/local/cuda/include -I"$out" \
  -Ibench/debug bench/debug/tmast8_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda \
  -o "$out/tmast8_check"
[[ ${NO_RUN:-} ]] || "$out/tmast8_check"
