#!/usr/bin/env bash
# Session 14, device call 3: stores sunk out of if/else arms, wgmma operands
# written from fragments in any order, tf32 wgmma, float16 accumulators: the
# GPU checks (bench/.out/*_check: wg14, i8 with its float16 and tf32 cases),
# the torch check of 28 conformance cases and the differential test of the
# 13 kernels whose PTX changed (bench/.out/D14c). One tarball.
#   bash bench/debug/call14c.sh
set -uo pipefail
source bench/debug/call_lib.sh
call_setup
run_checks
(cd bench/.out/conf_torch && timeout 90 python3 conf_torch.py run --jobs 4 >"$out/conf_torch.txt" 2>&1)
echo "conf_torch rc=$? ${SECONDS}s" >>"$out/log.txt"
run_diff bench/.out/D14c 240 220
call_finish call14c
show_checks 10
echo "== conf_torch"; tail -32 "$out/conf_torch.txt"
show_diff 30
