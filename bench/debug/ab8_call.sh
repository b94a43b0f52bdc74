#!/usr/bin/env bash
# One device call (session 8, issue #10): the PTX of the session's start
# (.dev/ab8_base) against the automatic overlap + deepened rings
# (.dev/ab8_new), both prepared with ../shared/sxs/prepare.py --extra
# bench/debug/sxs_cases.py (plus sxs_tma.py / tilec_launch.py copied in),
# in turns, TileLang in the first round of the new folder. There:
#   bash bench/debug/ab8_call.sh [ROUNDS]
set -uo pipefail
rounds=${1:-2}
out=${OUT:-/tmp/ab8-out}
mkdir -p "$out" /tmp/site
[ -d /tmp/site/tilelang ] || tar -C /tmp/site -xJf .dev/tilelang-site.tar.xz
export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=/tmp/site/z3/lib TILELANG_CACHE_DIR=/tmp/tlc PYTHONUNBUFFERED=1
cases=${CASES:-"fa_4096_b128 gemm_fp8_4096 gemm_fp8_8192 gemm_fp8_8192_256"}
for r in $(seq 1 "$rounds"); do
  for v in base new; do
    tl=1; [[ $v == new && $r == 1 ]] && tl=
    (cd .dev/ab8_$v && SXS_NO_TILELANG=$tl timeout 200 python3 sxs_tma.py $cases \
       >"$out/$v.$r.jsonl" 2>"$out/$v.$r.err")
    echo "$v round $r rc=$? ${SECONDS}s" >>"$out/log.txt"
  done
done
for v in base new; do echo "== $v"; python3 bench/sxs_report.py "$out"/$v.*.jsonl 2>&1 | tail -n 6; done
