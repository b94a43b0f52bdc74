#!/usr/bin/env python3
"""Summarizes the differential test's JSON lines (bench/diff_tma.py or
../shared/sxs/diff_run.py): how many conformance kernels agree with
TileLang, which differ (with the tensors and errors), and why the others got
no verdict. Exit 1 if any kernel differs.

usage: diff_summary.py diff.jsonl [more.jsonl ...]

Several files (a run resumed with diff_tma.py --skip-done): a stem's last
row counts, so a rerun's verdict replaces the first run's runner error.
"""
import collections
import json
import sys


def reason(key, text):
    """Why a case has no verdict, in the words of the report."""
    if key == "tilelang_error":
        return "TileLang fails running it" if text.startswith("run:") else "TileLang rejects it"
    if key == "tilec_error":
        return "tilec's kernel fails"
    if key == "error":
        return "timeout" if "timeout" in text else "runner error"
    return "skipped" if key == "skip" else key


def main():
    last = {}
    for path in sys.argv[1:]:
        for line in open(path):
            line = line.strip()
            if line.startswith("{"):
                row = json.loads(line)
                last.pop(row["stem"], None)
                last[row["stem"]] = row
    rows = list(last.values())
    agree = [r for r in rows if r.get("agree") is True]
    differ = [r for r in rows if r.get("agree") is False]
    other = collections.Counter()
    notes = collections.defaultdict(list)
    for r in rows:
        if "agree" in r:
            continue
        key = next((k for k in ("skip", "tilelang_error", "tilec_error", "error") if k in r), "?")
        kind = reason(key, str(r.get(key, "")))
        other[kind] += 1
        notes[kind].append(f"{r['stem']}: {str(r.get(key, ''))[:140]}")
    print(f"differential test: {len(rows)} kernels, {len(agree)} agree, {len(differ)} differ, "
          + ", ".join(f"{n} {k}" for k, n in sorted(other.items())))
    if differ:
        print("| kernel | worst rel. error | tensors |")
        print("|---|---|---|")
        for r in differ:
            print(f"| {r['stem']} | {r.get('worst_rel', 0):.3g} | {'; '.join(r.get('detail', []))} |")
    noted = [r for r in agree if r.get("detail") or r.get("unwritten")]
    if noted:
        print("agree, with notes:")
        for r in noted:
            print(f"  {r['stem']}: {'; '.join(r.get('detail', []) + r.get('unwritten', []))[:300]}")
    for kind in sorted(notes):
        print(f"{kind}:")
        for n in notes[kind]:
            print(f"  {n}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
