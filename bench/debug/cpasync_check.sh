#!/usr/bin/env bash
# GPU check of T.ptx_cp_async / T.cp_async_barrier_noinc / T.access_ptr
# (cpasync_check.cpp says what each kernel computes and against what): a
# warp-specialized kernel of the lit tests
# (test/Passes/Inputs/cp-async-ws.tile) whose producer warpgroup fills
# rings of shared stages with cp.async and arrives on mbarriers with
# .noinc, its consumer doing a wgmma T.gemm (swizzled operands, 16-byte
# copies) or a T.Parallel sum (row-major, 8- and 4-byte copies), and
# TileLang's warp-specialized MLA decode (the conformance kernel) at a
# small size. sm_90a. Here (no GPU), from the repository root:
#   NO_RUN=1 OUT=bench/.out bash bench/debug/cpasync_check.sh
# builds everything into bench/.out/cpasync_check/. On the GPU machine,
# with bench/.out/cpasync_check carried:
#   bench/.out/cpasync_check/cpasync_check
# Prints one table row per case, `all ok` last; exit 0 = every element
# matched. A few seconds (the MLA reference runs on the host).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
out=${OUT:-/tmp}/cpasync_check
mkdir -p "$out"
ws=test/Passes/Inputs/cp-async-ws.tile
mla=${MLA:-/work/shared/conformance/kernels/deepseek_mla__example_mla_decode_ws__flashattn.tile}
"$tilec" "$ws" --target sm_90a -o "$out/cpasync_gemm.ptx" \
  --header "$out/cpasync_gemm.h" --namespace cpasync::gemm
for v in 4 2; do
  "$tilec" "$ws" --target sm_90a -D 'mode="tilesum"' -D vec=$v \
    -o "$out/cpasync_sum$v.ptx" --header "$out/cpasync_sum$v.h" \
    --namespace cpasync::sum$v
done
"$tilec" test/Passes/Inputs/cp-async-groups.tile --target sm_80 \
  -o "$out/cpasync_groups.ptx" --header "$out/cpasync_groups.h" \
  --namespace cpasync::groups
"$tilec" test/Passes/wgmma-operand-box-from-fragment.tile --target sm_90a \
  -o "$out/cpasync_box.ptx" --header "$out/cpasync_box.h" \
  --namespace cpasync::box
"$tilec" "$mla" --target sm_90a -D batch=2 -D heads=128 -D kv_head_num=1 \
  -D seqlen_kv=1024 -D dim=512 -D pe_dim=64 -D block_N=64 -D block_H=64 \
  -D num_split=1 -D softmax_scale=0.041666666666666664 \
  -o "$out/cpasync_mla.ptx" --header "$out/cpasync_mla.h" \
  --namespace cpasync::mla
g++ -std=c++17 -O2 -Wall -I/usr/local/cuda/include -I"$out" -Ibench/debug \
  bench/debug/cpasync_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/cpasync_check"
[[ ${NO_RUN:-} ]] || "$out/cpasync_check"
