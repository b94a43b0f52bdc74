#!/usr/bin/env bash
# GPU check of the kernels conf9b made compile (conf9b_check.cpp says what
# each computes and against what): TileLang's deepseek_mhc mhc_post and
# flash_decoding mha_inference from the conformance set, which stopped at
# layout conflicts and now lay out through tile-infer-layouts' retry
# (docs/lowering.md, rule 8), and deepseek_mhc mhc_pre_gemm_sqrsum (a loop
# reading a T.gemm A fragment at an offset a serial loop sets), for sm_90a
# and sm_80 (PTX, JIT-compiled on the H200). Here (no GPU), from the repository root:
#   NO_RUN=1 OUT=bench/.out bash bench/debug/conf9b_check.sh
# builds everything into bench/.out/conf9b_check/ (kernel sources from
# ../shared/conformance/kernels, or KERNELS=DIR). On the GPU machine, with
# bench/.out/conf9b_check carried:
#   bench/.out/conf9b_check/conf9b_check
# Prints one table row per kernel and target; exit 0 = every element
# matched. A few seconds (the float64 references on the host dominate).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
kernels=${KERNELS:-../shared/conformance/kernels}
out=${OUT:-/tmp}/conf9b_check
mkdir -p "$out"
post=$kernels/deepseek_mhc__example_mhc_post__mhc_post_tilelang.tile
mha=$kernels/flash_decoding__example_mha_inference__flashattn.tile
sqrsum=$kernels/deepseek_mhc__example_mhc_pre__mhc_pre_gemm_sqrsum_tilelang.tile
# mhc_post: cases.tsv's values. mha_inference: cases.tsv's but 8 heads and
# 1024 KV positions (8192 in cases.tsv) to keep the host reference short.
post_d=(-D hc=4 -D hidden=2560)
mha_d=(-D batch=1 -D heads=8 -D seqlen_q=128 -D seqlen_kv=1024 -D dim=128
  -D is_causal=False -D block_M=128 -D block_N=64)
sqrsum_d=(-D hc_mult3=24 -D hc_hidden_size=16384)
for t in sm_90a:sm90 sm_80:sm80; do
  "$tilec" "$post" --target "${t%%:*}" "${post_d[@]}" -o "$out/post_${t#*:}.ptx" \
    --header "$out/post_${t#*:}.h" --namespace "conf9b::post_${t#*:}"
  "$tilec" "$mha" --target "${t%%:*}" "${mha_d[@]}" -o "$out/mha_${t#*:}.ptx" \
    --header "$out/mha_${t#*:}.h" --namespace "conf9b::mha_${t#*:}"
  "$tilec" "$sqrsum" --target "${t%%:*}" "${sqrsum_d[@]}" -o "$out/sqrsum_${t#*:}.ptx" \
    --header "$out/sqrsum_${t#*:}.h" --namespace "conf9b::sqrsum_${t#*:}"
done
g++ -std=c++17 -O2 -Wall -I/usr/local/cuda/include -I"$out" -Ibench/debug \
  bench/debug/conf9b_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/conf9b_check"
[[ ${NO_RUN:-} ]] || "$out/conf9b_check"
