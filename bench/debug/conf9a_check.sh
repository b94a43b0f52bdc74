#!/usr/bin/env bash
# GPU check of conf9a's newly accepted conformance kernels and its new
# primitives (conf9a_check.cpp says what each row computes and against
# what):
# - T.rng_init / T.rng_rand (cuRAND's Philox stream computed in the
#   kernel): TileLang's rand_uint example and the two kernels of
#   test/Frontend/tilelang/rng.tile, exact against a host model of
#   curand_init / curand (itself checked against Philox's known-answer
#   vectors and, where nvcc is found, against cuRAND: conf9a_curand.cu);
# - flash_attention gqa_fwd_bshd (a compile-time `class`), causal and not;
# - deepseek_deepgemm fp8 2xAcc (a dtype compared with a string);
# - tilelang.quantize's unpacking helpers (test/Frontend/tilelang/
#   quantize.tile), exact against the fields of the packed bytes.
# The session's other changes (sub-byte dtypes, itertools.product's
# `repeat`) change no generated code: test/Frontend/.
# Here (no GPU), from the repository root:
#   NO_RUN=1 OUT=bench/.out bash bench/debug/conf9a_check.sh
# builds everything into bench/.out/conf9a_check/ (kernels read from
# ../shared/conformance/kernels, or KERNELS=DIR). On the GPU machine, with
# bench/.out/conf9a_check carried:
#   bash bench/.out/conf9a_check/run.sh
# (or this script where tilec and the kernels are at hand). Prints one table
# row per case; exit 0 = every element matched. About 10 s.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
kernels=${KERNELS:-../shared/conformance/kernels}
out=${OUT:-/tmp}/conf9a_check
mkdir -p "$out"
build() { # source namespace defines...
  local src=$1 ns=$2
  shift 2
  "$tilec" "$src" --target sm_90a "$@" -o "$out/conf9a_$ns.ptx" \
    --header "$out/conf9a_$ns.h" --namespace "conf9a::$ns"
}
build "$kernels/rand__rand_uint__tilelang_rand_1d.tile" rand -D M=100000 -D seed=42
build test/Frontend/tilelang/rng.tile rng
build test/Frontend/tilelang/quantize.tile quant -D N=65536
fa=(-D batch=2 -D heads=8 -D seq_len=320 -D dim=128 -D groups=4 -D block_M=64
  -D block_N=64 -D num_stages=2 -D threads=128)
build "$kernels/flash_attention__example_gqa_fwd_bshd__flashattn.tile" fa "${fa[@]}" -D is_causal=True
build "$kernels/flash_attention__example_gqa_fwd_bshd__flashattn.tile" fa_nc "${fa[@]}" -D is_causal=False
build "$kernels/deepseek_deepgemm__example_deepgemm_fp8_2xAcc__tl_gemm.tile" gemm \
  -D block_N=128 -D in_dtype=float8_e4m3fn -D out_dtype=bfloat16 -D accum_dtype=float32 \
  -D M=192 -D N=256 -D K=512
g++ -std=c++17 -O2 -Wall -I/usr/local/cuda/include -I"$out" -Ibench/debug \
  bench/debug/conf9a_check.cpp -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/conf9a_check"
cp bench/debug/conf9a_curand.cu "$out/"
# The run on the GPU machine: cuRAND's values first where nvcc is there.
cat > "$out/run.sh" <<'RUN'
#!/usr/bin/env bash
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export CURAND_OUT=$(mktemp -d)
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [[ -x $nvcc ]] && "$nvcc" -O2 -o "$CURAND_OUT/conf9a_curand" "$here/conf9a_curand.cu" &&
  "$CURAND_OUT/conf9a_curand"; then
  echo "cuRAND reference: $CURAND_OUT"
else
  echo "no nvcc or cuRAND run: the host model is checked against Philox's known answers only"
fi
"$here/conf9a_check"
RUN
chmod +x "$out/run.sh"
[[ ${NO_RUN:-} ]] || "$out/run.sh"
