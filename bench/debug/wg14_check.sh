#!/usr/bin/env bash
# GPU check of session 14's wgmma changes (wg14_check.cpp says what each
# kernel computes and against what): wgmma and mma.sync gemms in one
# kernel (per-class family choice, dim 192 as three n64 instructions),
# and wgmma operands written element by element (also in a pipelined
# loop) or copied shared -> shared. sm_90a.
# Here (no GPU), from the repository root:
#   NO_RUN=1 OUT=bench/.out bash bench/debug/wg14_check.sh
# builds everything into bench/.out/wg14_check/. On the GPU machine, with
# bench/.out/wg14_check carried:
#   bench/.out/wg14_check/wg14_check
# Prints one table row per case, `all ok` last; exit 0 = every element
# matched. A few seconds.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
out=${OUT:-/tmp}/wg14_check
mkdir -p "$out"
"$tilec" test/Passes/wgmma-mixed-families.tile --target sm_90a \
  -o "$out/wg14_mixed.ptx" --header "$out/wg14_mixed.h" --namespace wg14::mixed
"$tilec" test/Passes/wgmma-element-writers.tile --target sm_90a \
  -o "$out/wg14_writers.ptx" --header "$out/wg14_writers.h" \
  --namespace wg14::writers
"$tilec" test/Passes/wgmma-pipelined-element-writer.tile --target sm_90a \
  -o "$out/wg14_piped.ptx" --header "$out/wg14_piped.h" --namespace wg14::piped
"$tilec" test/Passes/parallel-sink-stores.tile --target sm_90a \
  -o "$out/wg14_guarded.ptx" --header "$out/wg14_guarded.h" \
  --namespace wg14::guarded
"$tilec" test/Passes/wgmma-fragment-operand.tile --target sm_90a \
  -o "$out/wg14_fragop_k.ptx" --header "$out/wg14_fragop_k.h" \
  --namespace wg14::fragop_k
"$tilec" test/Passes/wgmma-fragment-operand.tile --target sm_90a \
  -D transpose=True -o "$out/wg14_fragop_mn.ptx" \
  --header "$out/wg14_fragop_mn.h" --namespace wg14::fragop_mn
g++ -std=c++17 -O2 -Wall -I/usr/local/cuda/include -I"$out" -Ibench/debug \
  bench/debug/wg14_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/wg14_check"
[[ ${NO_RUN:-} ]] || "$out/wg14_check"
