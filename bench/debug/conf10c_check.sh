#!/usr/bin/env bash
# GPU check of what conf10c added (conf10c_check.cpp says what each kernel
# computes and against what): T.gemm with B in a fragment (staged through
# shared memory; tf32 on sm_90a, fp16 on sm_80), gemm regions sliced by a
# T.unroll loop's variable (sm_90a wgmma, sm_80 mma.sync), a shared-memory
# histogram of atomic adds under a condition on the thread and the data,
# and a wgmma operand buffer also copied out to global memory. The kernels
# are the lit tests' (test/). Here (no GPU), from the repository root:
#   NO_RUN=1 OUT=bench/.out bash bench/debug/conf10c_check.sh
# builds everything into bench/.out/conf10c_check/. On the GPU machine,
# with bench/.out/conf10c_check carried:
#   bench/.out/conf10c_check/conf10c_check
# Prints one table row per case, `all ok` last; exit 0 = every element
# matched. About a second.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
out=${OUT:-/tmp}/conf10c_check
mkdir -p "$out"
fragb=test/Passes/gemm-fragment-b.tile
regions=test/Passes/Inputs/gemm-regions.tile
hist=test/Frontend/tilelang/atomic-add-histogram.tile
copyout=test/Passes/wgmma-operand-copy-out.tile
"$tilec" "$fragb" --target sm_90a -o "$out/fragb_sm90.ptx" \
  --header "$out/fragb_sm90.h" --namespace conf10c::fragb_sm90
"$tilec" "$fragb" --target sm_80 -D 'dtype="float16"' -o "$out/fragb_sm80.ptx" \
  --header "$out/fragb_sm80.h" --namespace conf10c::fragb_sm80
for t in sm_90a:sm90 sm_80:sm80; do
  "$tilec" "$regions" --target "${t%%:*}" -D 'mode="unroll"' \
    -o "$out/unroll_${t#*:}.ptx" --header "$out/unroll_${t#*:}.h" \
    --namespace "conf10c::unroll_${t#*:}"
done
"$tilec" "$hist" --target sm_90a -o "$out/hist.ptx" --header "$out/hist.h" \
  --namespace conf10c::hist
"$tilec" "$copyout" --target sm_90a -o "$out/copyout.ptx" \
  --header "$out/copyout.h" --namespace conf10c::copyout
g++ -std=c++17 -O2 -Wall -I/usr/local/cuda/include -I"$out" -Ibench/debug \
  bench/debug/conf10c_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/conf10c_check"
[[ ${NO_RUN:-} ]] || "$out/conf10c_check"
