#!/usr/bin/env bash
# GPU-machine check of tilec-bench and the tuning flow (issue 14). Builds
# nothing: run bench/tools-gpu-prepare.sh on the build machine first and
# carry bench/.tools. About 1-2 minutes of GPU time:
#   1. tilec-bench on gemm_relu 4096^3 (PTX and cubin) and FlashAttention
#      8x32x4096x128, with and without L2 flushing; the bench harness's last
#      numbers (bench/RESULTS.md) are printed beside them for comparison
#      (the harness does not flush L2, so compare the --no-flush rows);
#   2. a saved output checked against a second run (same seed: must match);
#   3. tilec-bench --tune on the 32 configurations of
#      examples/autotune_gemm.tile, writing bench/.tools/tuning-cache.json
#      (copy it back: it is the cache the README's example keeps).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
t=bench/.tools
bench=$t/tilec-bench
log=${OUT:-/tmp}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
status=0
run() { # label, args...
  local label=$1
  shift
  echo "== $label"
  if ! "$bench" "$@"; then
    echo "FAILED: $label"
    status=1
  fi
}
gemm_flops='2*M*N*K'
fa_flops='4*batch*heads*seq_len*seq_len*dim'
run "gemm_relu 4096^3 fp16, PTX, L2 flushed" $t/gemm_relu.ptx --flops "$gemm_flops"
run "gemm_relu 4096^3 fp16, PTX, no flush" $t/gemm_relu.ptx --flops "$gemm_flops" --no-flush
run "gemm_relu 4096^3 fp16, cubin (this machine's ptxas), no flush" $t/gemm_relu.cubin --meta $t/gemm_relu_cubin.json --flops "$gemm_flops" --no-flush
echo "   bench harness, last run: gemm_relu 4096x4096x4096 fp16: 0.3171 ms, 433 TFLOP/s"
run "flash_attention 8x32x4096x128 fp16, L2 flushed" $t/flash_attention.ptx --flops "$fa_flops"
run "flash_attention 8x32x4096x128 fp16, no flush" $t/flash_attention.ptx --flops "$fa_flops" --no-flush
echo "   bench harness, last run: flash_attention_4096: 8.2801 ms, 266 TFLOP/s"
run "JSON output" $t/gemm_relu.ptx --flops "$gemm_flops" --json --iters 20
run "save output" $t/gemm_relu.ptx --iters 5 --seed 3 --save-output "$log/gemm.out"
run "check against the saved output (must pass)" $t/gemm_relu.ptx --iters 5 --seed 3 --check-against "$log/gemm.out"
echo "== check against the saved output with another seed (must be refused)"
if "$bench" $t/gemm_relu.ptx --iters 5 --seed 4 --check-against "$log/gemm.out"; then
  echo "FAILED: a different seed was accepted"
  status=1
fi
echo "== tilec-bench --tune (32 configurations of examples/autotune_gemm.tile)"
if ! time "$bench" --tune $t/autotune_gemm --cache $t/tuning-cache.json --flops "$gemm_flops"; then
  echo "FAILED: --tune"
  status=1
fi
[ -n "${OUT:-}" ] && cp $t/tuning-cache.json "$OUT/" 2>/dev/null
echo "tools-gpu-check: exit $status"
exit $status
