#!/usr/bin/env bash
# Session 13, device call 2: after the copy out of a swizzled wgmma buffer
# went through its swizzle (LowerCopy): cpasync_check (its box and MLA ws
# cases were wrong in call 1) and the differential of the two kernels whose
# PTX that changed (bench/.out/D13b). One tarball.
#   bash bench/debug/call13b.sh
set -uo pipefail
source bench/debug/call_lib.sh
call_setup
run_checks
run_diff bench/.out/D13b 300 270
call_finish call13b
show_checks 14
show_diff 40
