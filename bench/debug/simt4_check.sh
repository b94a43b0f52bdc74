#!/usr/bin/env bash
# Issue 15, fourth round (helper simt4): guarded elementwise loops over odd
# row strides as realigned 16-byte vectors, and sm_90a wgmma loops that
# pipeline fewer operands. Every element against float64 torch; time
# against torch and a device copy of the same bytes.
#
#   bench/debug/simt4_check.sh prepare   # build machine: tilec -> bench/.out/simt4_check
#   bench/debug/simt4_check.sh run       # GPU machine, from the repository root,
#                                        # with bench/.out carried
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
case "${1:-}" in
  prepare) exec python3 bench/debug/simt4_check.py prepare "${TILEC:-build/bin/tilec}" ;;
  run) exec python3 bench/debug/simt4_check.py run ;;
  *) echo "usage: $0 prepare|run" >&2; exit 2 ;;
esac
