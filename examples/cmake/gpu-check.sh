#!/usr/bin/env bash
# The GPU check of the installed package and of multi-target headers:
#
#   examples/cmake/gpu-check.sh prepare   # here: install tilec to a prefix,
#                                         # move it, build this project into
#                                         # examples/cmake/.out/
#   examples/cmake/gpu-check.sh run       # on the GPU machine (carry
#                                         # examples/cmake/.out): runs it
#
# The program prints the compute capability, the image each header chose
# for it (sm_90a on an H200), a rejected launch's statusString(), and per
# kernel the elements checked against float64 and the largest error; it
# ends with PASS (exit 0) or FAIL.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$here/.out
case ${1:-} in
  prepare)
    build=${TILEC_BUILD_DIR:-$root/build}
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    cmake --install "$build" --prefix "$tmp/installed" >/dev/null
    mv "$tmp/installed" "$tmp/moved"
    cmake -S "$here" -B "$tmp/example" -G Ninja \
      -DCMAKE_PREFIX_PATH="$tmp/moved" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$tmp/example"
    rm -rf "$out" && mkdir -p "$out"
    cp "$tmp/example/tilec_example" "$out/"
    echo "gpu-check: built $out/tilec_example"
    ;;
  run)
    "$out/tilec_example"
    # compute-sanitizer, where the machine has it, on the same program.
    if command -v compute-sanitizer >/dev/null; then
      compute-sanitizer --error-exitcode 1 "$out/tilec_example" >/dev/null &&
        echo "gpu-check: compute-sanitizer: no errors"
    fi
    ;;
  *)
    echo "usage: examples/cmake/gpu-check.sh prepare|run" >&2
    exit 2
    ;;
esac
