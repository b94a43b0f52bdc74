#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with bench/.out carried:
# builds the harness with nvcc against the generated headers, checks and
# times every kernel, runs compute-sanitizer once, times PyTorch eager,
# torch.compile and scaled_dot_product_attention in the same run, runs the
# differential test against TileLang when prepare.sh ran with DIFF=1
# (TileLang from .dev/tilelang-site.tar.xz, carried too), and prints the
# table last.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=bench/.out
log=${OUT:-/tmp}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xcompiler -fopenmp \
  -I bench/harness -I "$out" bench/harness/main.cu -lcuda -lcublas -o "$out/harness" || exit 1
"$out/harness" | tee "$log/harness.jsonl"
echo "== compute-sanitizer memcheck (small instances)"
compute-sanitizer --tool memcheck --error-exitcode 3 "$out/harness" --quick >"$log/sanitizer.txt" 2>&1
echo "compute-sanitizer exit code: $? ($(grep -c 'ERROR SUMMARY: 0 errors' "$log/sanitizer.txt") clean summary)"
tail -n 3 "$log/sanitizer.txt"
python3 bench/torch_baselines.py 2>"$log/torch.err" | tee "$log/torch.jsonl"
echo "== mla_decode against torch (float64), launched from its PTX + metadata"
[ -f "$out/mla_decode.json" ] && python3 bench/debug/mla_check.py 2>&1 | tee "$log/mla.txt"
# The differential test against TileLang, when bench/prepare.sh ran with
# DIFF=1: TileLang from .dev/tilelang-site.tar.xz (TILELANG_SITE, carried),
# every accepted conformance kernel run by both on the same inputs.
if [ -f "$out/diff/diff_tma.py" ]; then
  echo "== differential test against TileLang"
  site=${TILELANG_SITE:-.dev/tilelang-site.tar.xz}
  if [ -f "$site" ]; then
    (mkdir -p /tmp/site && tar -C /tmp/site -xJf "$site" &&
      export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=/tmp/site/z3/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
        TILELANG_CACHE_DIR=/tmp/tlc PYTHONUNBUFFERED=1 &&
      cd "$out/diff" && python3 diff_tma.py --jobs "${DIFF_JOBS:-12}" ${DIFF_ARGS:-}) >"$log/diff.jsonl" 2>"$log/diff.err"
    python3 "$out/diff/diff_summary.py" "$log/diff.jsonl" | tee "$log/diff.md"
    # The bench/RESULTS.md section (bench/diff_report.py, where present).
    [ -f bench/diff_report.py ] && python3 bench/diff_report.py "$log/diff.jsonl" \
      "differential test against TileLang" \
      "\`DIFF=1 bash bench/prepare.sh\` here, \`bash bench/device.sh\` there" >"$log/diff_section.md"
  else
    echo "no $site: carry it with bench/.out (../shared/sxs/pack-tilelang.sh makes it)"
  fi
fi
echo "== results"
python3 bench/report.py "$log/harness.jsonl" "$log/torch.jsonl" | tee "$log/table.md"
