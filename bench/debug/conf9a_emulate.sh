#!/usr/bin/env bash
# CPU emulation of conf9a's SIMT kernels, no GPU needed
# (test/Targets/Inputs/simt-emulate.cpp says how; test/Targets/
# simt-emulation.test runs it on rng.tile and quantize.tile): tilec's LLVM IR for sm_90a of rand_uint, rng.tile and
# quantize.tile, retargeted to the host (thread / block index intrinsics as
# functions, address spaces dropped) and run for every thread against the
# host references. From the repository root:
#   bash bench/debug/conf9a_emulate.sh      (KERNELS=DIR for the conformance set)
# Prints one table row per kernel; exit 0 = every element matched.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tilec=${TILEC:-build/bin/tilec}
kernels=${KERNELS:-../shared/conformance/kernels}
out=${OUT:-/tmp}/conf9a_emulate
mkdir -p "$out"
host() { # .ll in, host .ll out
  sed -e 's/ptx_kernel //' -e 's/@llvm\.nvvm\.read\.ptx\.sreg\.tid\.x/@emu_tid/g' \
    -e 's/@llvm\.nvvm\.read\.ptx\.sreg\.ctaid\.x/@emu_ctaid/g' -e '/^target /d' \
    -e 's/addrspace([0-9])//g' -e '/^attributes/d' -e 's/ #[0-9]\+//g' -e '/^declare.*@emu_/d' "$1" > "$2"
  printf 'declare i32 @emu_tid()\ndeclare i32 @emu_ctaid()\n' >> "$2"
  if grep -q '@llvm\.nvvm' "$2"; then
    echo "$1: uses NVVM intrinsics the emulation does not model" >&2
    exit 1
  fi
}
"$tilec" "$kernels/rand__rand_uint__tilelang_rand_1d.tile" -D M=100000 -D seed=42 \
  --target sm_90a --emit=llvm -o "$out/rand.ll"
"$tilec" test/Frontend/tilelang/rng.tile --target sm_90a --emit=llvm -o "$out/rng.ll"
"$tilec" test/Frontend/tilelang/quantize.tile --target sm_90a --emit=llvm -o "$out/quant.ll"
for k in rand rng quant; do host "$out/$k.ll" "$out/${k}_host.ll"; done
clang++-22 -O1 -w -DWITH_RAND test/Targets/Inputs/simt-emulate.cpp "$out/rand_host.ll" "$out/rng_host.ll" \
  "$out/quant_host.ll" -o "$out/conf9a_emulate"
"$out/conf9a_emulate"
