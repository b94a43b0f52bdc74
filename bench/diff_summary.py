#!/usr/bin/env python3
"""Summarizes the differential test's JSON lines (bench/diff_tma.py or
../shared/sxs/diff_run.py): how many conformance kernels agree with
TileLang, which differ (with the tensors and errors), and why the others got
no verdict. Exit 1 if any kernel differs.

usage: diff_summary.py diff.jsonl
"""
import collections
import json
import sys


def main():
    rows = []
    for line in open(sys.argv[1]):
        line = line.strip()
        if line.startswith("{"):
            rows.append(json.loads(line))
    agree = [r for r in rows if r.get("agree") is True]
    differ = [r for r in rows if r.get("agree") is False]
    other = collections.Counter()
    notes = collections.defaultdict(list)
    for r in rows:
        if "agree" in r:
            continue
        kind = next((k for k in ("skip", "tilelang_error", "tilec_error", "error") if k in r), "?")
        other[kind] += 1
        notes[kind].append(f"{r['stem']}: {str(r.get(kind, ''))[:140]}")
    print(f"differential test: {len(rows)} kernels, {len(agree)} agree, {len(differ)} differ, "
          + ", ".join(f"{n} {k}" for k, n in sorted(other.items())))
    if differ:
        print("| kernel | worst rel. error | tensors |")
        print("|---|---|---|")
        for r in differ:
            print(f"| {r['stem']} | {r.get('worst_rel', 0):.3g} | {'; '.join(r.get('detail', []))} |")
    for kind in sorted(notes):
        print(f"{kind}:")
        for n in notes[kind]:
            print(f"  {n}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
