#!/usr/bin/env bash
# Build-machine half of bench/session-gpu.sh: compiles here, with this
# checkout's tilec, the kernels of the GPU checks that go with the issues
# (written-schedule GEMMs, the eager-style GEMM through its header, the
# reliability fixes) into bench/.session. Carry bench/.session (and
# bench/.tools from bench/tools-gpu-prepare.sh) to the GPU machine.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin=${TILEC_BIN:-build/bin}
out=bench/.session
rm -rf "$out" && mkdir -p "$out/sched" "$out/eager"

# T.Pipelined schedules as written (test/Passes/pipelined-schedule.test).
src=test/Passes/Inputs/pipelined-schedule.tile
size=(-D M=1024 -D N=1024 -D K=1024)
compile() { "$bin/tilec" "$src" "${size[@]}" "${@:2}" -o "$out/sched/$1.ptx" --json "$out/sched/$1.json"; }
compile default
compile stage_001 -D 'stage=[0,0,1]' -D 'order=[0,1,2]'
compile stage_004 -D stages=2 -D 'stage=[0,0,3]'
compile gemm_first -D 'order=[1,2,0]'
compile grouped -D 'group=[[0,1],[2]]' -D 'stage=[0,2]' -D 'order=[1,0]'

# The eager-style factory through its launch header.
"$bin/tilec" examples/eager_gemm.tile --target sm_90a -D N=1024 -D K=512 \
  -o "$out/eager/eager_gemm.ptx" --header "$out/eager/eager_gemm.h" \
  --json "$out/eager/eager_gemm.json"
cp bench/debug/eager_gemm_check.cpp "$out/eager/"

# The reliability fixes: python3 bench/debug/rel_check.py prepare
# (bench/.out/rel); the tools: bench/tools-gpu-prepare.sh (bench/.tools);
# the CMake package: examples/cmake/gpu-check.sh prepare; the differential
# test: ../shared/sxs/README.md (.dev/diff, SESSION_DIFF=1).
du -sh "$out"
