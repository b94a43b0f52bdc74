#!/usr/bin/env bash
# Builds the libFuzzer target (ASan + coverage) and fuzzes the frontend.
#   tools/tilec-fuzz/run.sh [SECONDS]    (default 600)
# Seeds: every example and every .tile under test/ (named after their paths,
# so files with the same base name do not overwrite each other). A token
# dictionary (Python keywords and operators, T.* primitives) is written next
# to the corpus so that mutations produce words the parser knows. Crashes
# land in build-fuzz/crashes/; the fuzzer runs as one process on one core
# (run it under `nice` on a shared machine).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
secs=${1:-600}
build=build-fuzz
if [[ ! -f $build/build.ninja ]]; then
  cmake -G Ninja -S . -B $build -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DTILEC_BUILD_FUZZERS=ON -DTILEC_ENABLE_PCH=OFF \
    -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link,address" \
    -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address"
fi
ninja -C $build -j2 tilec-fuzz
mkdir -p $build/corpus $build/crashes
find examples test -name '*.tile' -print | while read -r f; do
  cp "$f" "$build/corpus/seed_${f//\//_}"
done

# libFuzzer dictionary: one quoted token per line.
dict=$build/tile.dict
{
  for w in False None True and as assert async await break class continue \
    def del elif else except finally for from global if import in is lambda \
    nonlocal not or pass raise return try while with yield; do
    echo "\"$w\""
  done
  for p in '(' ')' '[' ']' '{' '}' ':' ',' ';' '.' '...' '+' '-' '*' '**' \
    '/' '//' '%' '@' '|' '&' '^' '~' '<<' '>>' '<' '>' '<=' '>=' '==' '!=' \
    '=' '->' ':=' '+=' '//=' '**=' '\' '#' "'''" '"""' '0x' '1e-3'; do
    printf '"%s"\n' "$(printf '%s' "$p" | sed 's/\\/\\\\/g; s/"/\\"/g')"
  done
  # A tab, and line breaks followed by one and two levels of indentation.
  printf '"%s"\n' '\x09' '\x0a    ' '\x0a        '
  for t in T.Kernel T.prim_func T.Tensor T.alloc_shared T.alloc_fragment \
    T.alloc_local T.alloc_var T.copy T.gemm T.clear T.fill T.Parallel \
    T.Pipelined T.serial T.reduce_max T.reduce_sum T.ceildiv T.dynamic \
    T.use_swizzle T.annotate_layout T.exp2 T.max T.cast T.macro \
    tilelang.jit tilelang.autotune threads= num_stages= transpose_B= dim= \
    '"float16"' '"float32"' '"int8"' range; do
    printf '"%s"\n' "$(printf '%s' "$t" | sed 's/"/\\"/g')"
  done
} > "$dict"

ASAN_OPTIONS=detect_leaks=0 $build/bin/tilec-fuzz $build/corpus \
  -dict="$dict" -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 \
  -artifact_prefix=$build/crashes/ -print_final_stats=1
