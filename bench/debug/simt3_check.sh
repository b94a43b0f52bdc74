#!/usr/bin/env bash
# Issue 15, third round (helper simt3): guarded elementwise loops, guarded
# T.if_then_else loads, small / odd instances, reverse scans over padded
# tiles, and pipelines with fewer rings (sm_80 PTX). Every element against
# float64 torch; time against torch and a device copy of the same bytes.
#
#   bench/debug/simt3_check.sh prepare   # build machine: tilec -> bench/.out/simt3_check
#   bench/debug/simt3_check.sh run       # GPU machine, from the repository root,
#                                        # with bench/.out carried
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
case "${1:-}" in
  prepare) exec python3 bench/debug/simt3_check.py prepare "${TILEC:-build/bin/tilec}" ;;
  run) exec python3 bench/debug/simt3_check.py run ;;
  *) echo "usage: $0 prepare|run" >&2; exit 2 ;;
esac
