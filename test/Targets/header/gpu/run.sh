#!/usr/bin/env bash
# GPU test of the generated launch headers: compiles kernels.cu to PTX and
# cubin with nvcc, renders a header for each from kernels.json with
# tilec-header, builds main.cpp against them with g++ -lcuda, and runs it.
# Needs an sm_90 GPU (clusters, TMA), nvcc, g++ and tilec-header (on PATH or
# in $TILEC_HEADER). Usage: run.sh [work dir]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work"
tool=${TILEC_HEADER:-tilec-header}
cuda=${CUDA_HOME:-/usr/local/cuda}

nvcc -arch=sm_90a -ptx "$here/kernels.cu" -o "$work/kernels.ptx"
nvcc -arch=sm_90a -cubin "$here/kernels.cu" -o "$work/kernels.cubin"
for kind in ptx cubin; do
  image=$work/kernels.$kind
  size=$(wc -c <"$image")
  sed -e "s/\"kind\": \"ptx\", \"target\": \"sm_90a\", \"size\": 0/\"kind\": \"$kind\", \"target\": \"sm_90a\", \"size\": $size/" \
      -e "s/header_gpu_test::ptx/header_gpu_test::$kind/" \
      "$here/kernels.json" >"$work/kernels_$kind.json"
  "$tool" "$work/kernels_$kind.json" --image "$image" -o "$work/kernels_$kind.h"
done
g++ -std=c++17 -O2 -Wall -Wextra -Werror -pthread -isystem "$cuda/include" \
  -I"$work" "$here/main.cpp" -L"$cuda/lib64/stubs" -lcuda -o "$work/header-gpu-test"
"$work/header-gpu-test"
