#!/usr/bin/env bash
# Compiles the runnable examples with tilec into bench/.out (PTX + launch
# header + metadata), each with a default instance and one whose sizes the
# tile does not divide. Runs here, on the build machine; bench/device.sh then
# builds and runs the harness on the GPU machine.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tilec=${TILEC:-build/bin/tilec}
out=${TILEC_BENCH_OUT:-bench/.out} # bench/tools-agree-prepare.sh sets it
rm -rf "$out" && mkdir -p "$out"
compile() { # name file instances-json
  printf '%s' "$3" >"$out/$1.instances.json"
  if "$tilec" "examples/$2.tile" --target sm_90a --instances "$out/$1.instances.json" \
    -o "$out/$1.ptx" --header "$out/$1.h" --json "$out/$1.json" 2>"$out/$1.log"; then
    echo "prepare: $1 -> $out/$1.{ptx,h,json}"
  else
    echo "prepare: $1 does not compile: $(head -n 1 "$out/$1.log")"
  fi
}
compile vector_add vector_add \
  '[{"name": "vector_add", "N": 268435456}, {"name": "vector_add_odd", "N": 1000003}]'
compile softmax softmax \
  '[{"name": "softmax", "M": 32768, "N": 4096}, {"name": "softmax_odd", "M": 1001, "N": 4096}]'
compile rmsnorm_silu rmsnorm_silu \
  '[{"name": "rmsnorm_silu", "M": 32768, "hidden": 4096}, {"name": "rmsnorm_silu_odd", "M": 1001, "hidden": 4000}]'
compile gemm_relu gemm_relu \
  '[{"name": "gemm_relu_2048", "M": 2048, "N": 2048, "K": 2048}, {"name": "gemm_relu_4096", "M": 4096, "N": 4096, "K": 4096}, {"name": "gemm_relu_8192", "M": 8192, "N": 8192, "K": 8192}, {"name": "gemm_relu_odd", "M": 1000, "N": 1000, "K": 1000}, {"name": "gemm_relu_bf16", "M": 4096, "N": 4096, "K": 4096, "dtype": "bfloat16"}, {"name": "gemm_relu_bf16_odd", "M": 1000, "N": 1000, "K": 1000, "dtype": "bfloat16"}, {"name": "gemm_relu_k64_t128", "block_K": 64}, {"name": "gemm_relu_k32_t256", "threads": 256}, {"name": "gemm_relu_k64_t256", "block_K": 64, "threads": 256}, {"name": "gemm_relu_k32_s4", "num_stages": 4}, {"name": "gemm_relu_k64_t256_s4", "block_K": 64, "threads": 256, "num_stages": 4}, {"name": "gemm_relu_n256_t256", "block_N": 256, "threads": 256}, {"name": "gemm_relu_m256_t256", "block_M": 256, "threads": 256}, {"name": "gemm_relu_n256_t256_s4", "block_N": 256, "threads": 256, "num_stages": 4}, {"name": "gemm_relu_m256_k64_t256", "block_M": 256, "block_K": 64, "threads": 256}, {"name": "gemm_relu_m256_k64_t256_s4", "block_M": 256, "block_K": 64, "threads": 256, "num_stages": 4}, {"name": "gemm_relu_n256_k64_t256", "block_N": 256, "block_K": 64, "threads": 256}, {"name": "gemm_relu_k1024", "K": 1024}, {"name": "gemm_relu_m256_k64_t256_2048", "M": 2048, "N": 2048, "K": 2048, "block_M": 256, "block_K": 64, "threads": 256}, {"name": "gemm_relu_m256_k64_t256_8192", "M": 8192, "N": 8192, "K": 8192, "block_M": 256, "block_K": 64, "threads": 256}]'
compile gemm_bias_gelu gemm_bias_gelu \
  '[{"name": "gemm_bias_gelu", "M": 4096, "N": 4096, "K": 1024}, {"name": "gemm_bias_gelu_bf16", "M": 4096, "N": 4096, "K": 1024, "dtype": "bfloat16"}, {"name": "gemm_bias_gelu_odd", "M": 1000, "N": 1000, "K": 1000}]'
compile cumsum cumsum \
  '[{"name": "cumsum", "M": 4096, "N": 64}, {"name": "cumsum_odd", "M": 1001, "N": 64}]'
# FlashAttention, (batch, seq, heads, dim) fp16. Check instances (every
# output element against float64): seq_len 1000 leaves a partial query tile
# and a partial KV tile (block_M = block_N = 64), dim 64 a second head size,
# batch and heads > 1 the index arithmetic; each with its causal twin. The
# timing shape, 8x32x4096x128, and its causal twin.
compile flash_attention flash_attention \
  '[{"name": "flash_attention_512", "batch": 1, "heads": 4, "seq_len": 512, "dim": 128}, {"name": "flash_attention_512_causal", "batch": 1, "heads": 4, "seq_len": 512, "dim": 128, "is_causal": true}, {"name": "flash_attention_odd", "batch": 2, "heads": 3, "seq_len": 1000, "dim": 128}, {"name": "flash_attention_odd_causal", "batch": 2, "heads": 3, "seq_len": 1000, "dim": 128, "is_causal": true}, {"name": "flash_attention_d64", "batch": 2, "heads": 3, "seq_len": 512, "dim": 64}, {"name": "flash_attention_d64_causal", "batch": 2, "heads": 3, "seq_len": 512, "dim": 64, "is_causal": true}, {"name": "flash_attention_4096", "batch": 8, "heads": 32, "seq_len": 4096, "dim": 128}, {"name": "flash_attention_4096_causal", "batch": 8, "heads": 32, "seq_len": 4096, "dim": 128, "is_causal": true}]'
compile mla_decode mla_decode \
  '[{"name": "mla_decode_small", "batch": 2, "heads": 128, "seqlen_kv": 1024}, {"name": "mla_decode", "batch": 4, "heads": 128, "seqlen_kv": 8192}]'
# gemm_bias_gelu again with --fast-math (approximate division and exp in
# the GELU epilogue), as its own header namespace.
cp examples/gemm_bias_gelu.tile "$out/gemm_bias_gelu_fast.tile"
printf '%s' '[{"name": "gemm_bias_gelu_fast", "M": 4096, "N": 4096, "K": 1024}, {"name": "gemm_bias_gelu_fast_odd", "M": 1000, "N": 1000, "K": 1000}]' >"$out/gemm_bias_gelu_fast.instances.json"
if "$tilec" "$out/gemm_bias_gelu_fast.tile" --fast-math --target sm_90a --instances "$out/gemm_bias_gelu_fast.instances.json" \
  -o "$out/gemm_bias_gelu_fast.ptx" --header "$out/gemm_bias_gelu_fast.h" 2>"$out/gemm_bias_gelu_fast.log"; then
  echo "prepare: gemm_bias_gelu_fast (--fast-math) -> $out/gemm_bias_gelu_fast.{ptx,h}"
else
  echo "prepare: gemm_bias_gelu_fast does not compile: $(head -n 1 "$out/gemm_bias_gelu_fast.log")"
fi

# A/B against another tilec build (TILEC_BASE=/path/to/tilec): the best
# GEMM configuration compiled by both, timed side by side by the harness.
if [ -n "${TILEC_BASE:-}" ]; then
  cp examples/gemm_relu.tile "$out/gemm_relu_base.tile"
  printf '%s' '[{"name": "gemm_relu_base_4096", "num_stages": 4}]' >"$out/gemm_relu_base.instances.json"
  if "$TILEC_BASE" "$out/gemm_relu_base.tile" --target sm_90a --instances "$out/gemm_relu_base.instances.json" \
    -o "$out/gemm_relu_base.ptx" --header "$out/gemm_relu_base.h" 2>"$out/gemm_relu_base.log"; then
    echo "prepare: gemm_relu_base ($TILEC_BASE) -> $out/gemm_relu_base.{ptx,h}"
  else
    echo "prepare: gemm_relu_base does not compile: $(head -n 1 "$out/gemm_relu_base.log")"
  fi
fi

# DIFF=1: the differential test against TileLang (../shared/sxs/README.md),
# prepared into $out/diff for bench/device.sh: every conformance kernel
# tilec accepts (ptxas included), compiled to PTX + metadata, with its
# source for TileLang's JIT and the runner (bench/diff_tma.py). Here, after
# the `rm -rf "$out"` above, so a later prepare.sh never leaves a stale set.
# TileLang itself travels as .dev/tilelang-site.tar.xz (TILELANG_SITE;
# ../shared/sxs/pack-tilelang.sh makes it): carry it with bench/.out.
if [ -n "${DIFF:-}" ]; then
  shared=${SHARED:-}
  for d in ../shared /work/shared; do
    [ -z "$shared" ] && [ -f "$d/sxs/diff_prepare.py" ] && shared=$d
  done
  if [ -z "$shared" ]; then
    echo "prepare: DIFF=1 needs the shared conformance set (SHARED=...)"
  else
    mkdir -p "$out/diff"
    python3 "$shared/conformance/run.py" --tilec "$tilec" --target sm_90a --ptxas \
      --jobs "${DIFF_JOBS:-2}" --out "$out/diff.conf.tsv" >"$out/diff.conf.log" 2>&1 || true
    echo "prepare: $(tail -n 1 "$out/diff.conf.log")"
    if python3 "$shared/sxs/diff_prepare.py" --tilec "$tilec" --results "$out/diff.conf.tsv" \
      --cases "$shared/conformance/cases.tsv" --out "$out/diff" >"$out/diff.prepare.log" 2>&1; then
      cp bench/diff_tma.py bench/diff_tilelang.py bench/diff_inputs.py bench/diff_schedule.py bench/tilec_launch.py \
        bench/diff_summary.py "$out/diff/"
      echo "prepare: differential test, $(tail -n 1 "$out/diff.prepare.log") -> $out/diff"
    else
      echo "prepare: diff_prepare.py failed: $(tail -n 1 "$out/diff.prepare.log")"
    fi
    site=${TILELANG_SITE:-.dev/tilelang-site.tar.xz}
    [ -f "$site" ] || echo "prepare: no $site for the GPU machine (../shared/sxs/pack-tilelang.sh)"
  fi
fi
