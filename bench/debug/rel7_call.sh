#!/usr/bin/env bash
# One device call for issue #12 (helper rel7), on the GPU machine from the
# repository root, with .dev/tilelang-site.tar.xz, the differential folder
# DIR (prepared here: DIFF=1 bash bench/prepare.sh makes bench/.out/diff,
# or ../shared/sxs/diff_prepare.py then `cp bench/diff_*.py
# bench/tilec_launch.py DIR/`; this branch's diff_tma.py / diff_tilelang.py
# / diff_schedule.py must be the ones in DIR) and bench/.out/rel7_family
# (`python3 bench/debug/rel7_family.py prepare` here) carried:
#
#   bash bench/debug/rel7_call.sh DIR [SECONDS]
#
# 1. bench/debug/rel7_family.py run: gdn / kda chunk_gated_delta_rule_fwd_h
#    and kda recompute_w_u_fwd, tilec and TileLang against the float64
#    reference (beside the differential run; small kernels);
# 2. the differential test of session 6's 8 runner errors only (7 memory,
#    1 timeout), memory-aware (bench/diff_schedule.py: smallest first, the
#    100 GiB mamba chunk_scan with at most 20 GiB beside it), nothing
#    started after SECONDS - 25 (default 200 in all); a case stopped at a
#    limit names the phase it was in.
# Everything lands in $OUT (or /tmp/rel7-out): family.txt, TileLang's CUDA
# of the isolating cases (tilelang_*.cu), diff.jsonl, diff.err, diff.md.
set -uo pipefail
dir=$1 total=${2:-200}
out=${OUT:-/tmp/rel7-out}
stems=deepseek_mla__example_mla_decode__flashattn,deepseek_nsa__benchmark_nsa_fwd__tilelang_sparse_attention,deepseek_nsa__example_tilelang_nsa_bwd__tilelang_kernel_fwd,deepseek_nsa__example_tilelang_nsa_bwd__tilelang_kernel_preprocess,deepseek_v32__sparse_mla_bwd__preprocess,linear_attention__example_mamba_chunk_scan__chunk_scan_fwd,linear_attention__example_mamba_chunk_state__chunk_state_fwd,kda__chunk_intra_token_parallel__tilelang_chunk_kda_fwd_intra_token_parallel
mkdir -p "$out" /tmp/site
[ -d /tmp/site/tilelang ] || tar -C /tmp/site -xJf .dev/tilelang-site.tar.xz
export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=/tmp/site/z3/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
  TILELANG_CACHE_DIR=/tmp/tlc PYTHONUNBUFFERED=1
SECONDS=0
(timeout $((total - 10)) python3 bench/debug/rel7_family.py run >"$out/family.txt" 2>&1
 echo "rel7_family rc=$? ${SECONDS}s" >>"$out/family.txt"
 cp bench/.out/rel7_family/*.cu "$out/" 2>/dev/null) &
family=$!
(cd "$dir" && timeout $((total - 10)) python3 diff_tma.py --jobs 8 --gpu-gib 120 \
   --time-budget $((total - 25)) --only "$stems" >"$out/diff.jsonl" 2>"$out/diff.err")
echo "diff rc=$? ${SECONDS}s" >>"$out/diff.err"
wait $family
python3 "$dir/diff_summary.py" "$out/diff.jsonl" >"$out/diff.md"
grep -v "^20[0-9-]* [0-9:]* *\[TileLang" "$out/family.txt" | tail -n 45; head -n 30 "$out/diff.md"
