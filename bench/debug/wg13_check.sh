#!/usr/bin/env bash
# GPU check of session 13's wgmma changes (wg13_check.cpp says what each
# kernel computes and against what): K-major operands of three swizzle
# atoms (head dimension 192), and A in registers replicated over the
# warpgroups along N with masked loads of a dynamic row count, and A read
# MN-major (transpose_A). sm_90a.
# Here (no GPU), from the repository root:
#   NO_RUN=1 OUT=bench/.out bash bench/debug/wg13_check.sh
# builds everything into bench/.out/wg13_check/. On the GPU machine, with
# bench/.out/wg13_check carried:
#   bench/.out/wg13_check/wg13_check
# Prints one table row per case, `all ok` last; exit 0 = every element
# matched. A few seconds.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
out=${OUT:-/tmp}/wg13_check
mkdir -p "$out"
"$tilec" test/Passes/wgmma-atoms192.tile --target sm_90a \
  -o "$out/wg13_atoms.ptx" --header "$out/wg13_atoms.h" --namespace wg13::atoms
"$tilec" test/Passes/wgmma-register-a-replicated.tile --target sm_90a \
  -o "$out/wg13_replicated.ptx" --header "$out/wg13_replicated.h" \
  --namespace wg13::replicated 2>"$out/tilec-warnings.txt"
"$tilec" test/Passes/wgmma-transpose-a.tile --target sm_90a \
  -o "$out/wg13_transpose_a.ptx" --header "$out/wg13_transpose_a.h" \
  --namespace wg13::transpose_a
g++ -std=c++17 -O2 -Wall -I/usr/local/cuda/include -I"$out" -Ibench/debug \
  bench/debug/wg13_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/wg13_check"
[[ ${NO_RUN:-} ]] || "$out/wg13_check"
