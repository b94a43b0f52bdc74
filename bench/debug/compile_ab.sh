#!/usr/bin/env bash
# Two (or more) builds of tilec timed on the same first compiles, in turns
# (A B A B ...), so that a shared machine's changing load falls on each
# alike: per kernel and binary, the minimum wall time and the minimum CPU
# time (user + system, ptxas included) of REPEATS runs, each with a fresh
# TILEC_CACHE_DIR (so ptxas runs), header and checks included, sm_90a -O3.
#   bash bench/debug/compile_ab.sh REPEATS "KERNEL..." TILEC_A TILEC_B...
# e.g. bash bench/debug/compile_ab.sh 7 "gemm_relu flash_attention" \
#        /tmp/old/build/bin/tilec build/bin/tilec
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
repeats=$1 kernels=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| kernel | tilec | min wall | min CPU |"
echo "| --- | --- | --- | --- |"
for kernel in $kernels; do
  : >"$work/times"
  for ((i = 0; i < repeats; i++)); do
    for tilec in "$@"; do
      rm -rf "$work/cache"
      TILEC_CACHE_DIR=$work/cache /usr/bin/time -f "%e %U %S" -o "$work/t" \
        "$tilec" "examples/$kernel.tile" --target sm_90a \
        -o "$work/out.ptx" --header "$work/out.h" >/dev/null
      echo "$tilec $(cat "$work/t")" >>"$work/times"
    done
  done
  for tilec in "$@"; do
    awk -v t="$tilec" -v k="$kernel" '$1 == t {
        c = $3 + $4; if (!n++ || $2 < w) w = $2; if (n == 1 || c < m) m = c }
      END { printf "| %s | %s | %.2f s | %.2f s |\n", k, t, w, m }' \
      "$work/times"
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
