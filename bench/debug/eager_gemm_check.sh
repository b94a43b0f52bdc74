#!/usr/bin/env bash
# GPU check of an eager-style factory through its launch header
# (examples/eager_gemm.tile, see eager_gemm_check.cpp). On the GPU machine,
# from the repository root, with build/bin/tilec carried (or TILEC=...):
#   bash bench/debug/eager_gemm_check.sh
# Compiles the example for sm_90a with N=1024 K=512, builds the checker with
# g++ against the CUDA driver API and runs it; prints a table, exit 0 = ok.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
out=${OUT:-/tmp}/eager_gemm_check
mkdir -p "$out"
N=${N:-1024} K=${K:-512}
"$tilec" examples/eager_gemm.tile --target sm_90a -D N="$N" -D K="$K" \
  -o "$out/eager_gemm.ptx" --header "$out/eager_gemm.h" --json "$out/eager_gemm.json"
g++ -std=c++17 -O2 -Wall -DEAGER_N="$N" -DEAGER_K="$K" -I/usr/local/cuda/include \
  -I"$out" bench/debug/eager_gemm_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda \
  -o "$out/eager_gemm_check"
[[ ${NO_RUN:-} ]] || "$out/eager_gemm_check"
