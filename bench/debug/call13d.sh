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
out=$(mktemp -d)
mkdir -p /tmp/site
[ -d /tmp/site/tilelang ] || tar -C /tmp/site -xJf .dev/tilelang-site.tar.xz
export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=/tmp/site/z3/lib TILELANG_CACHE_DIR=/tmp/tlc PYTHONUNBUFFERED=1
SECONDS=0
for b in bench/.out/*_check/*_check; do
  [ -x "$b" ] || continue
  n=$(basename "$b")
  timeout 90 "$b" "$(dirname "$b")" >"$out/$n.txt" 2>&1
  echo "$n rc=$? ${SECONDS}s" >>"$out/log.txt"
done
(cd bench/.out/conf_torch && timeout 90 python3 conf_torch.py run --jobs 4 >"$out/conf_torch.txt" 2>&1)
echo "conf_torch rc=$? ${SECONDS}s" >>"$out/log.txt"
(cd bench/.out/D13d && timeout 200 python3 diff_tma.py --jobs 7 --gpu-gib 120 --time-budget 180 >"$out/diff.jsonl" 2>"$out/diff.err")
echo "diff rc=$? ${SECONDS}s" >>"$out/log.txt"
python3 bench/.out/D13d/diff_summary.py "$out/diff.jsonl" >"$out/diff-summary.txt" 2>&1
(cd .dev/sxs13 && timeout 170 python3 sxs_tma.py gemm_relu_seed gemm_relu_big gemm_relu_bf16 gemm_relu_8192 gemm_bias_gelu_4k fa_4096 fa_4096_causal fa_4096_b128 mla_decode_64 mla_decode_128 gemm_fp8_4096 gemm_fp8_8192 gemm_relu_384t >"$out/sxs.jsonl" 2>"$out/sxs.err")
echo "sxs rc=$? ${SECONDS}s" >>"$out/log.txt"
tar -C "$out" -czf "${OUT:-/tmp}/call13d.tgz" .
cat "$out/log.txt"
for f in "$out"/*_check.txt; do [ -f "$f" ] && { echo "== $(basename "$f")"; grep -v '^  ' "$f" | tail -8; }; done
echo "== conf_torch"; tail -32 "$out/conf_torch.txt"
echo "== differential"; head -30 "$out/diff-summary.txt"
python3 bench/sxs_report.py "$out"/sxs.jsonl | head -60
