#!/usr/bin/env bash
# GPU check of 64-bit T.dynamic sizes and run-time loop bounds (issue #12):
# bench/debug/rel4_wide.tile through its generated header (rel4_check.cpp):
#   count_i64 / count_u32  T.serial(0, L[0], 2^20) with L[0] = 2^32 + 5
#                          (int64) and 3e9 (uint32): 4097 and 2862
#                          iterations (a truncated bound gave 1 and 0)
#   refusals               copy64 with n = 2^59 + 1 and 0, scale_rows with
#                          m = 2^50 (2^60 elements): the launch function
#                          refuses without launching
#   copy64                 fp16 copy, n = 2^31 + 2^20 + 3 and 2^32 + 5: the
#                          size itself past INT32_MAX, an int64 argument
#   scale_rows             B = 2A + 1 through 16-row shared tiles, m = 2^21
#                          + 5 rows of 1024 (a partial last tile at the edge)
# Every output element is compared bit for bit, plus a guard region past
# each output that must stay untouched; one table row per check.
#
# Here (no GPU):   OUT=bench/.out NO_RUN=1 bash bench/debug/rel4_check.sh
#   compiles into bench/.out/rel4_check/ (cubin, header, the harness).
# On the GPU machine, carrying bench/.out:  bench/.out/rel4_check/rel4_check
# Needs ~26 GB of device memory and ~30 GB of host memory; exit 0 = all ok.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
out=${OUT:-/tmp}/rel4_check
mkdir -p "$out"
src=bench/debug/rel4_wide.tile
"$tilec" "$src" --target sm_90a -o "$out/rel4_wide.cubin" --header "$out/rel4_wide.h" --namespace rel4
"$tilec" "$src" --target sm_90a --emit=tile -o "$out/rel4_wide.mlir"
# The decisions the check relies on: every kernel 64-bit, the sizes int64.
for k in copy64 scale_rows count_i64 count_u32; do
  grep -q "func.func @$k(.*tile.index_bits = 64 : i64" "$out/rel4_wide.mlir" ||
    { echo "rel4_check: $k is not 64-bit" >&2; exit 1; }
done
grep -q "std::int64_t tilec_p_n = static_cast<std::int64_t>(n);" "$out/rel4_wide.h" ||
  { echo "rel4_check: n is not passed as int64" >&2; exit 1; }
g++ -std=c++17 -O2 -fopenmp -Wall -I/usr/local/cuda/include -I"$out" \
  bench/debug/rel4_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/rel4_check"
[[ ${NO_RUN:-} ]] || "$out/rel4_check"
