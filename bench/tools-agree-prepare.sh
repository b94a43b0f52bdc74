#!/usr/bin/env bash
# Build-machine half of bench/tools-agree-check.sh (issue 14): compiles, into
# bench/.tools-agree, the bench harness's kernels (bench/prepare.sh, whose
# headers the harness includes) and the two images tilec-bench times
# (gemm_relu 4096^3 and FlashAttention 8x32x4096x128, the harness's timing
# instances), with a tilec-bench that needs only the driver. Carry
# bench/.tools-agree.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin=${TILEC_BIN:-build/bin}
out=bench/.tools-agree
rm -rf "$out" && mkdir -p "$out"
TILEC="$bin/tilec" TILEC_BENCH_OUT="$out/harness" bench/prepare.sh >"$out/prepare.log"
grep -q 'gemm_relu ->' "$out/prepare.log" && grep -q 'flash_attention ->' "$out/prepare.log" ||
  { cat "$out/prepare.log"; exit 1; }
cp "$bin/tilec-bench" "$out/"
"$bin/tilec" examples/gemm_relu.tile --target sm_90a -o "$out/gemm_relu.ptx" --json "$out/gemm_relu.json"
"$bin/tilec" examples/flash_attention.tile --target sm_90a -o "$out/flash_attention.ptx" --json "$out/flash_attention.json"
du -sh "$out"
