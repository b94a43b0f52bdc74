#!/usr/bin/env bash
# Runs on the GPU machine (bench/.out carried, as for bench/device.sh):
# Nsight Compute on the first launch of each kernel named, plus the SASS of
# the PTX files named, for finding where a kernel's time goes.
#   bash bench/profile.sh 'gemm_relu_k32_s4_kernel|gemm_relu_base_4096_kernel' gemm_relu
# Writes ncu.txt and <ptx>.sass under $OUT (or /tmp).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=bench/.out
log=${OUT:-/tmp}
kernels=$1
shift
if [ ! -x "$out/harness" ]; then
  nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xcompiler -fopenmp \
    -I bench/harness -I "$out" bench/harness/main.cu -lcuda -lcublas -o "$out/harness" || exit 1
fi
# One profiled launch per kernel (-c counts all matches, hence the regex
# alternation count); clocks left alone as METHOD.md says.
count=$(($(tr -cd '|' <<<"$kernels" | wc -c) + 1))
ncu --clock-control none -k "regex:^($kernels)\$" -c "$count" \
  --section SpeedOfLight --section ComputeWorkloadAnalysis \
  --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
  --section Occupancy --section LaunchStats --section SchedulerStats \
  --section WarpStateStats --section InstructionStats --print-details all \
  --metrics "regex:^smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$" \
  "$out/harness" --gemm >"$log/ncu.txt" 2>&1
echo "ncu exit code: $?"
grep -E "^  [a-z_0-9]+_kernel|Duration|Compute \(SM\) Throughput|Registers Per|Achieved Occupancy|Issued Warp Per|No Eligible|Stall|Bank|Warp Cycles Per Issued" "$log/ncu.txt" | head -80
for name in "$@"; do
  ptxas -arch=sm_90a "$out/$name.ptx" -o "$log/$name.cubin" &&
    cuobjdump --dump-sass "$log/$name.cubin" >"$log/$name.sass" && rm "$log/$name.cubin"
done
