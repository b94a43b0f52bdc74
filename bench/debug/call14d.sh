#!/usr/bin/env bash
# Session 14, device call 4: the gdn / kda kernels whose PTX changed (wgmma
# operands written from fragments) and that differ from TileLang 0.1.15,
# where earlier sessions found TileLang wrong: tilec and TileLang against
# the float64 references of bench/debug/rel6_dhu.py (chunk_delta_bwd dhu)
# and rel7_family.py (chunk_delta_h fwd, gdn and kda), with
# bench/.out/rel6_dhu and bench/.out/rel7_family prepared here
# (`python3 bench/debug/rel6_dhu.py prepare TILEC`, the same for rel7).
#   bash bench/debug/call14d.sh
set -uo pipefail
source bench/debug/call_lib.sh
call_setup
(timeout 200 python3 bench/debug/rel6_dhu.py run >"$out/dhu.txt" 2>&1)
echo "rel6_dhu rc=$? ${SECONDS}s" >>"$out/log.txt"
(timeout 200 python3 bench/debug/rel7_family.py run >"$out/family.txt" 2>&1)
echo "rel7_family rc=$? ${SECONDS}s" >>"$out/log.txt"
call_finish call14d
for f in dhu family; do
  echo "== $f"; grep -v "^20[0-9-]* [0-9:]* *\[TileLang" "$out/$f.txt" | tail -n 30
done
