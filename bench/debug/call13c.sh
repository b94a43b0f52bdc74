#!/usr/bin/env bash
# Session 13, device call 3: do TileLang's own builds spill where tilec's do?
# The 20 accepted conformance kernels whose tilec PTX spills at their
# cases.tsv configuration (bench/.out/D13c), each run by the differential
# test with its own TileLang cache; registers and stack from both builds
# (bench/debug/spills_tl.sh). One tarball.
#   bash bench/debug/call13c.sh
set -uo pipefail
out=$(mktemp -d)
mkdir -p /tmp/site
[ -d /tmp/site/tilelang ] || tar -C /tmp/site -xJf .dev/tilelang-site.tar.xz
export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=/tmp/site/z3/lib PYTHONUNBUFFERED=1
cp bench/debug/spills_tl.sh "$out/"
timeout 560 bash bench/debug/spills_tl.sh "$PWD/bench/.out/D13c" "$out/spills" 7 >"$out/log.txt" 2>&1
echo "rc=$?" >>"$out/log.txt"
tar -C "$out" -czf "${OUT:-/tmp}/call13c.tgz" .
tail -30 "$out/log.txt"
