#!/usr/bin/env bash
# GPU check of conf8's newly accepted NVIDIA kernel (conf8_check.cpp says
# what it computes and against what): TileLang's paged block-sparse GQA
# decode from the conformance set, which stopped at its factory's
# `print(main)` and now compiles (print runs at compile time), for sm_90a
# and sm_80 (PTX, JIT-compiled on the H200). conf8's other change (AMD
# stack slots in the private address space: blocksparse_flashattn on
# gfx942) has no GPU here: test/Targets/amdgpu-private-alloca.tile.
# Here (no GPU), from the repository root:
#   NO_RUN=1 OUT=bench/.out bash bench/debug/conf8_check.sh
# builds everything into bench/.out/conf8_check/ (the kernel source is read
# from ../shared/conformance/kernels, or KERNELS=DIR). On the GPU machine,
# with bench/.out/conf8_check carried:
#   bench/.out/conf8_check/conf8_check
# (or the script itself where tilec and the kernels are at hand). Prints one
# table row per target; exit 0 = every element matched. About 10 s (inputs
# of 2 x 64 MiB and the float64 reference on the host, two launches).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
kernels=${KERNELS:-../shared/conformance/kernels}
out=${OUT:-/tmp}/conf8_check
mkdir -p "$out"
src=$kernels/blocksparse_attention__example_tilelang_sparse_gqa_decode_paged__flashattn.tile
# cases.tsv's values but 64 pages (8 per sequence) instead of 1024.
defines=(-D num_stages=2 -D threads=128 -D batch=8 -D heads=32 -D heads_kv=8
  -D dim=128 -D dim_v=128 -D block_N=64 -D block_H=64 -D page_block_size=256
  -D num_pages=64)
for t in sm_90a:sm90 sm_80:sm80; do
  "$tilec" "$src" --target "${t%%:*}" "${defines[@]}" -o "$out/paged_${t#*:}.ptx" \
    --header "$out/paged_${t#*:}.h" --namespace "conf8::paged_${t#*:}" 2>"$out/print_${t#*:}.txt"
done
g++ -std=c++17 -O2 -Wall -I/usr/local/cuda/include -I"$out" -Ibench/debug \
  bench/debug/conf8_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/conf8_check"
[[ ${NO_RUN:-} ]] || "$out/conf8_check"
