# Shared steps of the device call scripts (bench/debug/callNNx.sh), sourced
# from the repository root on the GPU machine:
#   source bench/debug/call_lib.sh
#   call_setup                 # $out (a fresh directory), TileLang's env, SECONDS=0
#   run_checks                 # every bench/.out/*_check/*_check binary, 90 s each
#   run_diff DIR TIMEOUT BUDGET    # the differential test of a diff_prepare.py DIR
#   call_finish NAME           # $OUT/NAME.tgz of $out, then the log
#   show_checks [LINES]; show_diff [LINES]   # the tables, last
# Each step appends "what rc=N Ts" to $out/log.txt.

call_setup() {
  out=$(mktemp -d)
  mkdir -p /tmp/site
  [ -d /tmp/site/tilelang ] || tar -C /tmp/site -xJf .dev/tilelang-site.tar.xz
  export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=/tmp/site/z3/lib \
    TILELANG_CACHE_DIR=/tmp/tlc PYTHONUNBUFFERED=1
  SECONDS=0
}

run_checks() {
  local b n
  for b in bench/.out/*_check/*_check; do
    [ -x "$b" ] || continue
    n=$(basename "$b")
    timeout 90 "$b" "$(dirname "$b")" >"$out/$n.txt" 2>&1
    echo "$n rc=$? ${SECONDS}s" >>"$out/log.txt"
  done
}

run_diff() {
  local dir=$1 limit=$2 budget=$3
  [ -d "$dir" ] || return 0
  (cd "$dir" && timeout "$limit" python3 diff_tma.py --jobs 7 --gpu-gib 120 \
    --time-budget "$budget" >"$out/diff.jsonl" 2>"$out/diff.err")
  echo "diff rc=$? ${SECONDS}s" >>"$out/log.txt"
  python3 "$dir/diff_summary.py" "$out/diff.jsonl" >"$out/diff-summary.txt" 2>&1
}

call_finish() {
  tar -C "$out" -czf "${OUT:-/tmp}/$1.tgz" .
  cat "$out/log.txt"
}

show_checks() {
  local f
  for f in "$out"/*_check.txt; do
    [ -f "$f" ] && { echo "== $(basename "$f")"; grep -v '^  ' "$f" | tail -"${1:-14}"; }
  done
}

show_diff() {
  [ -f "$out/diff-summary.txt" ] && { echo "== differential"; head -"${1:-40}" "$out/diff-summary.txt"; }
  return 0
}
