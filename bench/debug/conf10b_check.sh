#!/usr/bin/env bash
# GPU check of the kernels conf10b made compile (conf10b_check.py says what
# each computes and against what): TileLang's convolution example and its
# analyzer twin (T.Tensor views of the filter and the output, T.im2col),
# the persistent GEMM (T.Persistent), DeepSeek's persistent MLA decoding
# (T.sync_grid between the split attention and the combine) and a small
# grid-barrier kernel whose blocks read what other blocks wrote. Torch
# makes fresh random inputs each run and the float64 references
# (torch.nn.functional.conv2d in the example's NHWC / KH KW C F layout,
# matmul, softmax attention). Here (no GPU), from the repository root:
#   NO_RUN=1 OUT=bench/.out bash bench/debug/conf10b_check.sh
# builds everything into bench/.out/conf10b_check/ (kernel sources from
# ../shared/conformance/kernels, or KERNELS=DIR): PTX, launch headers and
# libconf10b.so, which wraps the launch functions for ctypes. On the GPU
# machine, with bench/.out/conf10b_check carried:
#   python3 bench/debug/conf10b_check.py bench/.out/conf10b_check
# Prints the markdown table and `all ok` last; exit 0 = every element
# matched (and the oversized cooperative grid was rejected).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
kernels=${KERNELS:-../shared/conformance/kernels}
[[ -d $kernels ]] || kernels=/work/shared/conformance/kernels
out=${OUT:-/tmp}/conf10b_check
mkdir -p "$out"
conv=$kernels/convolution__example_convolution__convolution.tile
analyze=$kernels/analyze__example_conv_analyze__kernel.tile
pgemm=$kernels/gemm__example_gemm_persistent__matmul_persistent.tile
mla=$kernels/deepseek_mla__example_mla_decode_persistent__flashattn.tile
mirror=test/Frontend/tilelang/sync-grid.tile
# cases.tsv's -D values.
conv_d=(-D S=1 -D D=1 -D P=1 -D block_M=64 -D block_N=128 -D block_K=32
  -D num_stages=3 -D threads=256)
conv2_d=(-D S=2 -D D=2 -D P=2 -D block_M=64 -D block_N=128 -D block_K=32
  -D num_stages=3 -D threads=256)
pgemm_d=(-D block_M=128 -D block_N=256 -D block_K=64 -D threads=256 -D num_stages=3)
mla_d=(-D batch=128 -D heads=128 -D kv_head_num=1 -D seqlen_kv=8192 -D dim=512
  -D pe_dim=64 -D block_N=64 -D block_H=64 -D num_split=2)
build() { # name source target defines...
  local name=$1 src=$2 target=$3
  shift 3
  "$tilec" "$src" --target "$target" "$@" -o "$out/$name.ptx" \
    --header "$out/$name.h" --namespace "conf10b::$name" 2>"$out/$name.log" ||
    { cat "$out/$name.log"; exit 1; }
}
build conv_sm90 "$conv" sm_90a "${conv_d[@]}"
build conv_sm80 "$conv" sm_80 "${conv_d[@]}"
build conv2_sm90 "$conv" sm_90a "${conv2_d[@]}"
build analyze_sm90 "$analyze" sm_90a "${conv_d[@]}"
build pgemm_sm90 "$pgemm" sm_90a "${pgemm_d[@]}"
build pgemm_sm80 "$pgemm" sm_80 "${pgemm_d[@]}"
build mla_sm90 "$mla" sm_90a "${mla_d[@]}"
build mirror_sm90 "$mirror" sm_90a
build mirror_sm80 "$mirror" sm_80
g++ -std=c++17 -O2 -Wall -shared -fPIC -I/usr/local/cuda/include -I"$out" \
  bench/debug/conf10b_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda \
  -o "$out/libconf10b.so"
[[ ${NO_RUN:-} ]] || python3 bench/debug/conf10b_check.py "$out"
