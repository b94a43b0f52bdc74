#!/usr/bin/env bash
# GPU check of T.tvm_warp_shuffle (shfl_check.cpp says what each kernel
# computes and against what): test/Frontend/tilelang/warp-shuffle.tile's
# rotation within groups of 8 (float16), 16 (bfloat16) and 32 (float32)
# lanes, and TileLang's Hadamard transform example (warp shuffles, a
# make_mma_swizzle_layout shared exchange) at n = 256, 1024 and 32768,
# float32, on sm_90a (and n = 1024 on sm_80). Here (no GPU), from the
# repository root:
#   NO_RUN=1 OUT=bench/.out bash bench/debug/shfl_check.sh
# builds everything into bench/.out/shfl_check/ (the Hadamard kernel from
# ../shared/conformance/kernels, or KERNELS=DIR). On the GPU machine, with
# bench/.out/shfl_check carried:
#   bench/.out/shfl_check/shfl_check
# Prints one table row per case, `all ok` last; exit 0 = every element
# matched.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
kernels=${KERNELS:-../shared/conformance/kernels}
[[ -d $kernels ]] || kernels=/work/shared/conformance/kernels
out=${OUT:-/tmp}/shfl_check
mkdir -p "$out"
rot=test/Frontend/tilelang/warp-shuffle.tile
had=$kernels/hadamard_transform__example_hadamard__hadamard.tile
for c in 8:float16 16:bfloat16 32:float32; do
  "$tilec" "$rot" --target sm_90a -D width=${c%%:*} -D dtype=${c#*:} \
    -o "$out/rot${c%%:*}.ptx" --header "$out/rot${c%%:*}.h" --namespace "shfl::rot${c%%:*}"
done
for n in 256 1024 32768; do
  "$tilec" "$had" --target sm_90a -D n=$n -D dtype=float32 \
    -o "$out/had$n.ptx" --header "$out/had$n.h" --namespace "shfl::had$n"
done
"$tilec" "$had" --target sm_80 -D n=1024 -D dtype=float32 \
  -o "$out/had1024_sm80.ptx" --header "$out/had1024_sm80.h" --namespace shfl::had1024_sm80
g++ -std=c++17 -O2 -Wall -I/usr/local/cuda/include -I"$out" -Ibench/debug \
  bench/debug/shfl_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/shfl_check"
[[ ${NO_RUN:-} ]] || "$out/shfl_check"
