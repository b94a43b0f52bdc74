#!/bin/sh
# Compiles the five kernels of the 2026-12-01 differential test (diff_run.py)
# into bench/.out/diff/ for bench/debug/diff_check.py; -D values as in
# /work/shared/conformance/cases.tsv. usage: bench/debug/diff_prepare.sh [TILEC]
set -e
cd "$(dirname "$0")/../.."
TILEC=${1:-build/bin/tilec}
K=/work/shared/conformance/kernels
OUT=bench/.out/diff
mkdir -p $OUT
for stem in attention_sink__example_gqa_sink_bwd_varlen__flashattn_bwd_preprocess \
    deepseek_mla__example_mla_decode_paged__mla_decode_tilelang \
    dsa_sparse_finetune__indexer_topk_reducesum__tl_indexer_topk_reducesum_impl \
    flash_attention__example_gqa_bwd_tma_reduce_varlen__flashattn_fwd \
    gdn__example_wy_fast_bwd_split__tilelang_wy_fast_bwd; do
  D=$(grep "^$stem.tile	" /work/shared/conformance/cases.tsv | cut -f3 | sed 's/\([^ ]*\)/-D \1/g')
  $TILEC $K/$stem.tile --target sm_90a $D -o $OUT/$stem.ptx --json $OUT/$stem.json
  echo "compiled $stem"
done
