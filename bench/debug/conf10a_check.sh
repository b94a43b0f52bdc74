#!/usr/bin/env bash
# GPU check of conf10a's T.reshape (docs/language.md, section 8.2): the
# kernel bench/debug/conf10a_reshape.tile writes a shared buffer through a
# 1-d view and reads it through a 3-d view, for sm_90a and sm_80 (PTX,
# JIT-compiled on the H200). Here (no GPU), from the repository root:
#   NO_RUN=1 OUT=bench/.out bash bench/debug/conf10a_check.sh
# builds everything into bench/.out/conf10a_check/. On the GPU machine, with
# bench/.out/conf10a_check carried:
#   bench/.out/conf10a_check/conf10a_check
# Prints one table row per target; exit 0 = every element matched.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
out=${OUT:-/tmp}/conf10a_check
mkdir -p "$out"
for t in sm_90a:sm90 sm_80:sm80; do
  "$tilec" bench/debug/conf10a_reshape.tile --target "${t%%:*}" \
    -o "$out/reshape_${t#*:}.ptx" --header "$out/reshape_${t#*:}.h" \
    --namespace "conf10a::reshape_${t#*:}"
done
g++ -std=c++17 -O2 -Wall -I/usr/local/cuda/include -I"$out" -Ibench/debug \
  bench/debug/conf10a_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda \
  -o "$out/conf10a_check"
[[ ${NO_RUN:-} ]] || "$out/conf10a_check"
