#!/usr/bin/env bash
# Appends one GPU run to bench/RESULTS.md, from the files the device run
# brought back (table.md, harness.jsonl, torch.jsonl, sanitizer.txt):
#   bench/record.sh DIR "exact command" "device"
# Numbers are copied by this script, never typed by hand.
set -euo pipefail
dir=$1 cmd=$2 device=$3
res="$(dirname "${BASH_SOURCE[0]}")/RESULTS.md"
[[ -f $res ]] || printf '# GPU results\n\nEach section is one run of the GPU suite, appended by bench/record.sh\nfrom what the run printed. Newest last.\n' >"$res"
{
  printf '\n## %s UTC, %s, tilec %s\n\n' "$(date -u '+%Y-%m-%d %H:%M')" "$device" "$(git rev-parse --short HEAD)"
  printf 'Command: `%s`\n\n' "$cmd"
  cat "$dir/table.md"
  if [[ -f $dir/mla.txt ]]; then
    printf '\nmla_decode (bench/debug/mla_check.py, float64 torch reference):\n\n```\n'
    cat "$dir/mla.txt"
    printf '```\n'
  fi
  printf '\ncompute-sanitizer memcheck on the small instances: `%s`\n' \
    "$(grep -m1 'ERROR SUMMARY' "$dir/sanitizer.txt" | sed 's/=* *//')"
  printf '\n<details><summary>raw JSON lines</summary>\n\n```\n'
  for f in harness.jsonl torch.jsonl; do
    [[ -f $dir/$f ]] && cat "$dir/$f"
  done
  printf '```\n</details>\n'
  # Side-by-side runs against TileLang (bench/sxs_tma.py), if any.
  for f in "$dir"/sxs*.jsonl; do
    [[ -f $f ]] || continue
    printf '\nSide by side with TileLang (`%s`):\n\n' "$(basename "$f")"
    python3 "$(dirname "${BASH_SOURCE[0]}")/sxs_report.py" "$f"
  done
} >>"$res"
echo "record: appended to $res"
