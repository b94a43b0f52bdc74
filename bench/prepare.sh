#!/usr/bin/env bash
# Compiles the runnable examples with tilec into bench/.out (PTX + launch
# header + metadata), each with a default instance and one whose sizes the
# tile does not divide. Runs here, on the build machine; bench/device.sh then
# builds and runs the harness on the GPU machine.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tilec=${TILEC:-build/bin/tilec}
out=bench/.out
rm -rf "$out" && mkdir -p "$out"
compile() { # name file instances-json
  printf '%s' "$3" >"$out/$1.instances.json"
  "$tilec" "examples/$2.tile" --target sm_90a --instances "$out/$1.instances.json" \
    -o "$out/$1.ptx" --header "$out/$1.h" --json "$out/$1.json"
  echo "prepare: $1 -> $out/$1.{ptx,h,json}"
}
compile vector_add vector_add \
  '[{"name": "vector_add", "N": 268435456}, {"name": "vector_add_odd", "N": 1000003}]'
compile softmax softmax \
  '[{"name": "softmax", "M": 32768, "N": 4096}, {"name": "softmax_odd", "M": 1001, "N": 4096}]'
compile rmsnorm_silu rmsnorm_silu \
  '[{"name": "rmsnorm_silu", "M": 32768, "hidden": 4096}, {"name": "rmsnorm_silu_odd", "M": 1001, "hidden": 4000}]'
