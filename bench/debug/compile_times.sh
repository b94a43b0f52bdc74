#!/usr/bin/env bash
# README's "Compile time" table: wall (and CPU) time of each example's compile
# with its header (so with ptxas and the resource checks), sm_90a, first
# with a fresh TILEC_CACHE_DIR ("first compile") and then again with that
# cache ("PTX seen before"), at each LLVM level given.
#   bash bench/debug/compile_times.sh [REPEATS] [LEVELS]   (default: 5 "3 2")
# TILEC=PATH times another build of tilec (an older commit's, for an A/B on
# the same machine at the same load), KERNELS="a b@sm_80,sm_90a" a subset.
# The machine is shared: each number is the minimum of REPEATS runs, and the
# load average is printed before and after.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-$PWD/build/bin/tilec}
repeats=${1:-5}
levels=${2:-3 2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# "wall cpu" of one compile: /usr/bin/time's elapsed and user + system.
one() {
  /usr/bin/time -f "%e %U %S" -o "$work/time" "$@" >/dev/null 2>"$work/log" ||
    { cat "$work/log" >&2; exit 1; }
  awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' "$work/time"
}

# The minimum wall time of the runs, and the CPU time of that run.
best() { sort -n | head -n 1; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| kernel | -O | first compile | PTX seen before |"
echo "| --- | --- | --- | --- |"
kernels=${KERNELS:-vector_add softmax rmsnorm_silu gemm_relu gemm_fp8 \
  flash_attention gemm_bias_gelu mla_decode gemm_relu@sm_80,sm_90a}
for kernel in $kernels; do
  name=${kernel%@*}
  target=sm_90a
  [[ $kernel == *@* ]] && target=${kernel#*@}
  for level in $levels; do
    cold=() warm=()
    for ((i = 0; i < repeats; i++)); do
      rm -rf "$work/cache"
      args=("$tilec" "examples/$name.tile" --target "$target" "-O$level")
      if [[ $target == *,* ]]; then
        args+=(-o "$work/out.h")
      else
        args+=(-o "$work/out.ptx" --header "$work/out.h")
      fi
      cold+=("$(TILEC_CACHE_DIR=$work/cache one "${args[@]}")")
      warm+=("$(TILEC_CACHE_DIR=$work/cache one "${args[@]}")")
    done
    c=$(printf '%s\n' "${cold[@]}" | best)
    w=$(printf '%s\n' "${warm[@]}" | best)
    label=$name
    [[ $target != sm_90a ]] && label="$name, ${target/,/ + }"
    printf '| %s | %s | %s s (%s s) | %s s (%s s) |\n' "$label" "$level" \
      ${c% *} ${c#* } ${w% *} ${w#* }
  done
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
