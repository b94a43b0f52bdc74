#!/usr/bin/env bash
# GPU check of conf7's construct that changes generated NVIDIA code:
# - test/Frontend/tilelang/serial-break.tile: `break` and `continue` in a
#   T.serial loop on run-time conditions (local flags; the rest of the body
#   under `if not exited`): per row of X (256 x 64), the sum of its
#   non-negative entries up to the first prefix sum above 4, the count of
#   summed entries and the index where it stopped.
# The session's other change, T.gemm with A in registers on AMD's MFMA, has
# no GPU here: test/Unit/LayoutMfmaTest.cpp ("A in registers") runs its
# register reads on the CPU against the ISA's layouts.
# Every element against a float64 (or exact) reference on the host.
# Here (no GPU): NO_RUN=1 OUT=bench/.out bash bench/debug/conf7_check.sh
# builds everything into bench/.out/conf7_check/. On the GPU machine, from
# the repository root, with build/bin/tilec carried (or TILEC=...):
#   bash bench/debug/conf7_check.sh
# Prints one table row per case; exit 0 = every element matched.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
out=${OUT:-/tmp}/conf7_check
t=test/Frontend/tilelang
mkdir -p "$out"
build() { # file stem
  "$tilec" "$1.tile" --target sm_90a -o "$out/$2.ptx" --header "$out/$2.h" \
    --namespace "conf7::$2"
}
build $t/serial-break serial_break
g++ -std=c++17 -O2 -Wall -I/usr/local/cuda/include -I"$out" \
  bench/debug/conf7_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/conf7_check"
[[ ${NO_RUN:-} ]] || "$out/conf7_check"
