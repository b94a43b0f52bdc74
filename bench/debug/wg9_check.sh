#!/usr/bin/env bash
# GPU check of T.gemm / T.wgmma_gemm on regions of shared buffers (wg9,
# issues #10 item 3 and #11): the kernels of
# test/Passes/Inputs/gemm-regions.tile (float16 in, float32 out), each
# built for sm_90a (wgmma, where the kernel takes it) and sm_80 (mma.sync;
# the H200 runs its PTX):
#   halves  S = Q[:, :256] K[:, :256]^T + Q[:, 256:] K[:, 256:]^T, the
#           two halves of a 64 x 512 Q times K (K-major region origins
#           in the 128B swizzle's atoms; the first gemm clear_accum);
#   async   the same as T.wgmma_gemm (scale-d = 0 for clear_accum) plus
#           S2 = Q[:, 256:] K[:, 256:]^T into a second accumulator, one
#           T.wait_wgmma(0) (sm_90a only);
#   tma     the halves of a 64 x 256 Q times K fed by T.tma_copy into
#           regions (whole swizzle atoms of Q_s and of stage 1 of a
#           two-stage K_s) in a T.ws producer region (sm_90a only);
#   pv      O2 = P V[:, 256:], B a region of columns (MN-major on wgmma);
#   acc     O[:, :64] = P V[:, :64] and O[:, 64:] = P V[:, 64:], the
#           accumulator's halves (each gemm a subset of its registers);
#   stage   C = A B through a stage of a two-stage buffer,
#           A_s[k % 2, :, :] and B_s[k % 2, :, :] (M 64, N 64, K 256);
# and TileLang's warp_specialize gemm_barrierpipe_stage2 example (T.ws,
# T.tma_copy into A_shared[ko % 2, :, :], T.gemm on that stage; M = N =
# K = 512) when it compiles. Every element against a float64 reference on
# the host (outputs start as NaN, so an element no thread wrote fails).
# Here (no GPU): NO_RUN=1 OUT=bench/.out bash bench/debug/wg9_check.sh
# builds everything into bench/.out/wg9_check/. On the GPU machine, from
# the repository root, with build/bin/tilec carried (or TILEC=...):
#   bash bench/debug/wg9_check.sh
# Prints one table row per case; exit 0 = every element matched.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
out=${OUT:-/tmp}/wg9_check
src=test/Passes/Inputs/gemm-regions.tile
bp=${CONFORMANCE:-/work/shared/conformance/kernels}/warp_specialize__example_warp_specialize_gemm_barrierpipe_stage2__matmul.tile
mkdir -p "$out"
build() { # stem target file [defines...]
  local stem=$1 target=$2 file=$3
  shift 3
  "$tilec" "$file" --target "$target" "$@" \
    -o "$out/$stem.ptx" --header "$out/$stem.h" --namespace "wg9::$stem"
}
for t in sm_90a sm_80; do
  s=${t%a}
  build halves_$s $t $src -D 'mode="halves"'
  build pv_$s $t $src -D 'mode="pv"'
  build acc_$s $t $src -D 'mode="acc"' -D half=64
  build stage_$s $t $src -D 'mode="stage"'
done
build async_sm_90 sm_90a $src -D 'mode="async"'
build tma_sm_90 sm_90a $src -D 'mode="tma"' -D half=128
defs=()
if [[ -f $bp ]] && build barrierpipe sm_90a "$bp" -D block_M=128 -D block_N=128 \
  -D block_K=64 -D M=512 -D N=512 -D K=512 2>"$out/barrierpipe.err"; then
  defs+=(-DWG9_BARRIERPIPE)
else
  echo "barrierpipe: not built ($(head -1 "$out/barrierpipe.err" 2>/dev/null))"
fi
cp bench/debug/wg9_check.cpp bench/debug/check_host.h "$out/"
g++ -std=c++17 -O2 -Wall -I/usr/local/cuda/include -I"$out" -Ibench/debug \
  "${defs[@]}" bench/debug/wg9_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda \
  -o "$out/wg9_check"
[[ ${NO_RUN:-} ]] || "$out/wg9_check"
