#!/usr/bin/env python3
"""Renders the differential test's JSON lines (../shared/sxs/diff_run.py's
output) as a bench/RESULTS.md section: the counts, then one row per kernel
that differs or has no verdict, differing kernels first.

    python3 bench/diff_report.py DIFF.txt "TITLE" "COMMAND" >> bench/RESULTS.md
"""
import json
import sys


def main():
    path, title, command = sys.argv[1], sys.argv[2], sys.argv[3]
    rows = [json.loads(line) for line in open(path) if line.startswith("{")]
    agree = [r for r in rows if r.get("agree") is True]
    differ = [r for r in rows if r.get("agree") is False]
    rest = [r for r in rows if "agree" not in r]
    print(f"## {title}\n")
    print(f"Command: {command}\n")
    print(f"{len(rows)} accepted kernels: {len(agree)} agree, "
          f"{len(differ)} differ, {len(rest)} without a verdict "
          "(autotune factories the harness skips, kernels one side could "
          "not be fed, TileLang-side errors).\n")
    print("| kernel | verdict | worst rel. error | detail |")
    print("|---|---|---|---|")
    for r in differ:
        detail = "; ".join(r.get("detail", []))
        print(f"| {r['stem']} | differs | {r.get('worst_rel')} | {detail} |")
    for r in rest:
        why = r.get("skip") or r.get("tilelang_error") or r.get("tilec_error")
        side = ("tilec: " if "tilec_error" in r else "")
        why = (side + str(why)).splitlines()[0][:120].replace("|", "\\|")
        print(f"| {r['stem']} | no verdict | - | {why} |")
    print()


if __name__ == "__main__":
    main()
