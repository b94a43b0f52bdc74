#!/usr/bin/env bash
# One device call (session 8, issue #10): FlashAttention 128x128 / 256
# threads in 2 and 3 stages, default / --overlap-gemms / --pingpong, in
# turns, with TileLang on the base folder (the same -D values), cuDNN in
# every process. Here: the three folders .dev/fa8_{base,ov,pp} prepared
# with ../shared/sxs/prepare.py --extra bench/debug/sxs_fa8.py (--tilec
# a wrapper adding the flag); there, from the repository root:
#   bash bench/debug/fa8_call.sh [ROUNDS]
set -uo pipefail
rounds=${1:-2}
out=${OUT:-/tmp/fa8-out}
mkdir -p "$out" /tmp/site
[ -d /tmp/site/tilelang ] || tar -C /tmp/site -xJf .dev/tilelang-site.tar.xz
export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=/tmp/site/z3/lib TILELANG_CACHE_DIR=/tmp/tlc PYTHONUNBUFFERED=1
cases="fa_4096_b128 fa_4096_b128_s3 fa_4096_b128_s3_causal fa_4096_causal"
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv >"$out/smi.txt" 2>&1
for r in $(seq 1 "$rounds"); do
  for v in base ov pp; do
    tl=1; [[ $v == base && $r == 1 ]] && tl=
    (cd .dev/fa8_$v && SXS_NO_TILELANG=$tl timeout 150 python3 sxs_tma.py $cases \
       >"$out/$v.$r.jsonl" 2>"$out/$v.$r.err")
    echo "$v round $r rc=$? ${SECONDS}s" >>"$out/log.txt"
  done
done
for v in base ov pp; do echo "== $v"; python3 bench/sxs_report.py "$out"/$v.*.jsonl 2>&1 | tail -n 8; done
