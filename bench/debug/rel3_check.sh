#!/usr/bin/env bash
# GPU check of 64-bit index arithmetic (issue #12 item 1): kernels over
# global tensors past 2^31 - 1 elements (bench/debug/rel3_big.tile), which
# tilec lowers with 64-bit offsets (tile.index_bits = 64):
#   copy_2p31   1-D fp16 copy, 2^31 + 2^20 + 3 elements (4.3 GB), guarded tail
#   copy_2p32   the same past 2^32: 2^32 + 2^20 + 3 elements (8.6 GB)
#   scale_2p31  2-D fp16 2049 x 2^20 through a shared tile, B = 2A + 1
#   rows        T.dynamic rows, n = 2^19 + 1 (2^31 + 4096 elements): the
#               32-bit build's launch function must reject it, the
#               -findex-bits=64 build must run it
#   copy_small  a 32-bit copy of 2^31 - 2^21 + 3 elements, for the bandwidth
#               comparison
# Every output element is compared with the host's expected value (bit
# exact: copies, and small integers scaled in fp16), plus a guard region
# past each output that must stay untouched; one table row per check.
#
# Here (no GPU):   OUT=bench/.out NO_RUN=1 bash bench/debug/rel3_check.sh
#   compiles into bench/.out/rel3_check/ (PTX, headers, the harness binary).
# On the GPU machine, carrying bench/.out:  bench/.out/rel3_check/rel3_check
#   (or the script without NO_RUN, with build/bin/tilec carried).
# Needs ~35 GB of device memory and ~40 GB of host memory; exit 0 = every
# element matched.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
out=${OUT:-/tmp}/rel3_check
mkdir -p "$out"
src=bench/debug/rel3_big.tile
cat > "$out/instances.json" <<'JSON'
[{"factory": "big_copy", "name": "copy_2p31", "params": {}},
 {"factory": "big_copy", "name": "copy_2p32", "params": {"N": 4296015875}},
 {"factory": "big_copy", "name": "copy_small", "params": {"N": 2145386499}},
 {"factory": "big_scale", "name": "scale_2p31", "params": {}},
 {"factory": "rows", "name": "rows", "params": {}}]
JSON
"$tilec" "$src" --target sm_90a --instances "$out/instances.json" \
  -o "$out/rel3_auto.cubin" --header "$out/rel3_auto.h" --namespace rel3::automatic
"$tilec" "$src" --target sm_90a --instances "$out/instances.json" -findex-bits=64 \
  -o "$out/rel3_wide.cubin" --header "$out/rel3_wide.h" --namespace rel3::wide
"$tilec" "$src" --target sm_90a --instances "$out/instances.json" \
  --emit=tile -o "$out/rel3_auto.mlir"
# The decisions the check relies on.
for k in copy_2p31:64 copy_2p32:64 copy_small:32 scale_2p31:64 rows:32; do
  grep -q "func.func @${k%%:*}(.*tile.index_bits = ${k##*:} : i64" "$out/rel3_auto.mlir" ||
    { echo "rel3_check: ${k%%:*} is not ${k##*:}-bit" >&2; exit 1; }
done
g++ -std=c++17 -O2 -fopenmp -Wall -I/usr/local/cuda/include -I"$out" \
  bench/debug/rel3_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/rel3_check"
[[ ${NO_RUN:-} ]] || "$out/rel3_check"
