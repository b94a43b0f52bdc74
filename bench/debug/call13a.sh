#!/usr/bin/env bash
# Session 13, device call 1: session 12's GPU checks re-run after its barrier
# fixes (bench/.out/*_check: shuffles and Hadamard, warp partitions, raw
# cp.async), each against a host float64 reference, and the differential test
# (TileLang vs tilec) of the 9 kernels whose PTX those fixes changed
# (bench/.out/D13a). One tarball.
#   bash bench/debug/call13a.sh
set -uo pipefail
source bench/debug/call_lib.sh
call_setup
run_checks
run_diff bench/.out/D13a 300 270
call_finish call13a
show_checks 14
show_diff 40
