#!/usr/bin/env bash
# GPU-machine half of bench/session-prepare.sh: every check in one call,
# a table last. From the repository root with bench/.session (and
# bench/.tools) carried.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
status=()

echo "== written T.Pipelined schedules (against torch, float64)"
python3 bench/debug/pipelined_schedule_check.py && status+=("schedules ok") || status+=("schedules FAILED")

echo "== eager-style factory through its header"
e=bench/.session/eager
if g++ -std=c++17 -O2 -DEAGER_N=1024 -DEAGER_K=512 -I/usr/local/cuda/include -I"$e" \
     "$e/eager_gemm_check.cpp" -L/usr/local/cuda/lib64/stubs -lcuda -o /tmp/eager_gemm_check &&
   /tmp/eager_gemm_check; then status+=("eager ok"); else status+=("eager FAILED"); fi

if [[ -f bench/debug/rel_check.sh && -d bench/.session/rel ]]; then
  echo "== reliability fixes"
  bash bench/debug/rel_check.sh bench/.session/rel && status+=("rel ok") || status+=("rel FAILED")
fi

if [[ -d bench/.tools ]]; then
  echo "== tilec-bench / tilec-tune"
  bash bench/tools-gpu-check.sh && status+=("tools ok") || status+=("tools FAILED")
fi

echo "== summary"
printf '%s\n' "${status[@]}"
