#!/usr/bin/env bash
# Issue 15's SIMT and memory-bound kernels (T.cumsum / T.cummax as warp
# scans, guarded elementwise loops, instances the tile does not divide):
# every element against torch in float64, and the time of each kernel
# against torch and a device copy of the same bytes, as one table.
#
#   bench/debug/simt2_check.sh prepare   # build machine: tilec -> bench/.out/simt2
#   bench/debug/simt2_check.sh run       # GPU machine, from the repository root,
#                                        # with bench/.out carried
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
case "${1:-}" in
  prepare) exec python3 bench/debug/simt2_check.py prepare "${TILEC:-build/bin/tilec}" ;;
  run) exec python3 bench/debug/simt2_check.py run ;;
  *) echo "usage: $0 prepare|run" >&2; exit 2 ;;
esac
