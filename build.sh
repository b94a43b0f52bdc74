#!/usr/bin/env bash
# tilec's two set-up commands (see README.md):
#   ./build.sh        install what is missing, build, compile an example kernel
#   ./build.sh test   the same, then run every test (what CI runs)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
root=$PWD
build=${TILEC_BUILD_DIR:-$root/build}
mode=${1:-demo}
case "$mode" in
  demo | test) ;;
  *) echo "usage: ./build.sh [test]" >&2; exit 2 ;;
esac

./install-deps.sh

if [[ ! -f $build/build.ninja ]]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22
fi
start=$(date +%s)
ninja -C "$build" -j"${TILEC_JOBS:-2}"
echo "build: done in $(($(date +%s) - start)) s"

tilec=$build/bin/tilec
out=$build/demo
mkdir -p "$out"
example=$root/examples/vector_add.tile

if [[ $mode == demo ]]; then
  # The furthest stage this build of tilec reaches for the example.
  for emit in ptx tile ast; do
    case $emit in
      ptx) args=(-o "$out/vector_add.ptx" --header "$out/vector_add.h") ;;
      tile) args=(--emit=tile -o "$out/vector_add.mlir") ;;
      ast) args=(--emit=ast -o "$out/vector_add.ast") ;;
    esac
    if "$tilec" "$example" "${args[@]}" 2>"$out/$emit.log"; then
      echo "demo: compiled $example"
      for f in "$out"/vector_add.*; do echo "  wrote $f"; done
      exit 0
    fi
    echo "demo: --emit=$emit is not available yet:" \
      "$(head -n 1 "$out/$emit.log")"
  done
  echo "demo: no stage of the compiler could compile $example" >&2
  exit 1
fi

cd "$build"
ctest --output-on-failure
