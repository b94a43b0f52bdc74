#!/usr/bin/env bash
# Session 14, device call 1: per-class wgmma / mma.sync choice and wgmma
# operands written element by element: the GPU checks (bench/.out/*_check:
# wg13, whose transpose_A case had not run yet, and wg14), the torch check
# of 28 conformance cases (bench/.out/conf_torch) and the differential
# test of the 24 kernels whose PTX changed (bench/.out/D14a). One tarball.
#   bash bench/debug/call14a.sh
set -uo pipefail
source bench/debug/call_lib.sh
call_setup
run_checks
(cd bench/.out/conf_torch && timeout 90 python3 conf_torch.py run --jobs 4 >"$out/conf_torch.txt" 2>&1)
echo "conf_torch rc=$? ${SECONDS}s" >>"$out/log.txt"
run_diff bench/.out/D14a 300 280
call_finish call14a
show_checks 10
echo "== conf_torch"; tail -32 "$out/conf_torch.txt"
show_diff 34
