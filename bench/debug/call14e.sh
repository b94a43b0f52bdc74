#!/usr/bin/env bash
# Session 14, device call 5: the GPU checks once more at the session's
# last compiler, after check_host.h's compareAbt took its tolerance
# (bench/.out/*_check: wg13, wg14, i8). One tarball.
#   bash bench/debug/call14e.sh
set -uo pipefail
source bench/debug/call_lib.sh
call_setup
run_checks
call_finish call14e
show_checks 14
