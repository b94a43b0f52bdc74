#!/usr/bin/env bash
# Session 14, device call 2: the fence of a pipelined wgmma loop whose body
# writes its operand (conv's im2col, wrong in call 1) and int8 T.gemm: the
# GPU checks (bench/.out/*_check: wg14 with its pipelined case, i8), the
# torch check of conv2d (bench/.out/conf_torch) and the differential test
# of the two conv kernels (bench/.out/D14b). One tarball.
#   bash bench/debug/call14b.sh
set -uo pipefail
source bench/debug/call_lib.sh
call_setup
run_checks
(cd bench/.out/conf_torch && timeout 90 python3 conf_torch.py run --jobs 4 >"$out/conf_torch.txt" 2>&1)
echo "conf_torch rc=$? ${SECONDS}s" >>"$out/log.txt"
run_diff bench/.out/D14b 200 180
call_finish call14b
show_checks 10
echo "== conf_torch"; tail -6 "$out/conf_torch.txt"
show_diff 12
