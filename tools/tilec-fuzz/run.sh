#!/usr/bin/env bash
# Builds the libFuzzer target (ASan + coverage) and fuzzes the frontend.
#   tools/tilec-fuzz/run.sh [SECONDS]    (default 600)
# Seeds: every example and every .tile under test/. Crashes land in
# build-fuzz/crashes/.
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
find examples test -name '*.tile' -exec cp {} $build/corpus/ \;
ASAN_OPTIONS=detect_leaks=0 $build/bin/tilec-fuzz $build/corpus \
  -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 \
  -artifact_prefix=$build/crashes/ -print_final_stats=1
