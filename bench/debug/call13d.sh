#!/usr/bin/env bash
# Session 13, device call 4: after the spill changes (edf8405: masked
# fragment loads, wgmma A in registers over N warpgroups, operands of three
# swizzle atoms, descriptor bases at the gemm): the GPU checks
# (bench/.out/*_check: wg13, cpasync, ptr), the torch check of 28
# conformance cases (bench/.out/conf_torch), the differential test of the 72
# kernels whose PTX changed (bench/.out/D13d; grouped_gemm_ptr is ptr_check's)
# and the side-by-side run of the wgmma cases (.dev/sxs13). One tarball.
#   bash bench/debug/call13d.sh
set -uo pipefail
source bench/debug/call_lib.sh
call_setup
run_checks
(cd bench/.out/conf_torch && timeout 90 python3 conf_torch.py run --jobs 4 >"$out/conf_torch.txt" 2>&1)
echo "conf_torch rc=$? ${SECONDS}s" >>"$out/log.txt"
run_diff bench/.out/D13d 200 180
(cd .dev/sxs13 && timeout 170 python3 sxs_tma.py gemm_relu_seed gemm_relu_big gemm_relu_bf16 gemm_relu_8192 gemm_bias_gelu_4k fa_4096 fa_4096_causal fa_4096_b128 mla_decode_64 mla_decode_128 gemm_fp8_4096 gemm_fp8_8192 gemm_relu_384t >"$out/sxs.jsonl" 2>"$out/sxs.err")
echo "sxs rc=$? ${SECONDS}s" >>"$out/log.txt"
call_finish call13d
show_checks 8
echo "== conf_torch"; tail -32 "$out/conf_torch.txt"
show_diff 30
python3 bench/sxs_report.py "$out"/sxs.jsonl | head -60
