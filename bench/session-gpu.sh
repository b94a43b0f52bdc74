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

if [[ -d bench/.out/rel ]]; then
  echo "== reliability fixes: scans along dim 0, copies under thread guards"
  python3 bench/debug/rel_check.py run && status+=("rel ok") || status+=("rel FAILED")
fi

if [[ -d bench/.tools ]]; then
  echo "== tilec-bench / tilec-tune"
  bash bench/tools-gpu-check.sh && status+=("tools ok") || status+=("tools FAILED")
fi

if [[ -x examples/cmake/.out/tilec_example ]]; then
  echo "== installed package, multi-target header (examples/cmake)"
  bash examples/cmake/gpu-check.sh run && status+=("cmake ok") || status+=("cmake FAILED")
fi

if [[ ${SESSION_DIFF:-0} == 1 && -d .dev/diff && -f .dev/tilelang-site.tar.xz ]]; then
  echo "== differential test against TileLang 0.1.15 (accepted conformance kernels)"
  mkdir -p /tmp/site && tar -C /tmp/site -xJf .dev/tilelang-site.tar.xz
  (export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=/tmp/site/z3/lib TILELANG_CACHE_DIR=/tmp/tlc PYTHONUNBUFFERED=1
   # bench/diff_tma.py (copied in with bench/diff_*.py and tilec_launch.py) where
   # present: memory-aware, stops starting cases 20 s before the limit;
   # DIFF_SKIP_DONE=A.jsonl resumes an earlier run (bench/diff_schedule.py).
   cd .dev/diff && limit=${DIFF_TIMEOUT:-300}
   if [[ -f diff_tma.py ]]; then
     timeout $limit python3 diff_tma.py --jobs 12 --time-budget $((limit - 20)) \
       ${DIFF_SKIP_DONE:+--skip-done "$DIFF_SKIP_DONE"} > diff.jsonl
     python3 diff_summary.py ${DIFF_SKIP_DONE//,/ } diff.jsonl | head -60
   else
     timeout $limit python3 diff_run.py --jobs 8 > diff.jsonl; cat diff.jsonl | tail -80
   fi
   cp diff.jsonl "${OUT:-/tmp}/" 2>/dev/null || true)
  status+=("diff: $(grep -c '"agree": true' .dev/diff/diff.jsonl 2>/dev/null) agree of $(wc -l < .dev/diff/diff.jsonl 2>/dev/null)")
fi

echo "== summary"
printf '%s\n' "${status[@]}"
