#!/usr/bin/env bash
# Build-machine half of bench/tools-gpu-check.sh: compiles the kernels it
# times (the GEMM and FlashAttention examples at the bench harness's
# timing shapes, and every configuration of examples/autotune_gemm.tile
# with tilec-tune) into bench/.tools, with a tilec-bench binary that needs
# nothing but the driver on the GPU machine. Carry bench/.tools.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin=${TILEC_BIN:-build/bin}
out=bench/.tools
rm -rf "$out" && mkdir -p "$out"
cp "$bin/tilec-bench" "$out/"
# The harness's timing instances (bench/prepare.sh): gemm_relu 4096^3 with
# the defaults, FlashAttention 8x32x4096x128, not causal.
"$bin/tilec" examples/gemm_relu.tile --target sm_90a -o "$out/gemm_relu.ptx" --json "$out/gemm_relu.json"
"$bin/tilec" examples/gemm_relu.tile --target sm_90a -o "$out/gemm_relu.cubin" --json "$out/gemm_relu_cubin.json"
"$bin/tilec" examples/flash_attention.tile --target sm_90a -o "$out/flash_attention.ptx" --json "$out/flash_attention.json"
# The 32 configurations of the autotune example (PTX, as the harness loads).
"$bin/tilec-tune" examples/autotune_gemm.tile --target sm_90a -o "$out/autotune_gemm" --image ptx -j 2
du -sh "$out"
