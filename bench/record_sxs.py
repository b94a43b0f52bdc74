#!/usr/bin/env python3
"""Appends side-by-side runs (bench/sxs_tma.py JSON lines) to bench/RESULTS.md.

    python3 bench/record_sxs.py "SECTION TITLE" "exact command" \
        "SUBTITLE" a.jsonl [b.jsonl ...] [-- "SUBTITLE" c.jsonl ...]

Each subtitle's files go through bench/sxs_report.py (several files: the
median per case over the runs). A file that is not JSON lines (a harness's
text table) is copied in a code block. Numbers are copied by this script,
never typed by hand.
"""
import datetime
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    title, command, rest = argv[0], argv[1], argv[2:]
    groups, cur = [], None
    for a in rest:
        if a == "--":
            cur = None
        elif cur is None:
            cur = [a, []]
            groups.append(cur)
        else:
            cur[1].append(a)
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE,
                         capture_output=True, text=True).stdout.strip()
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")
    out = [f"\n## {now} UTC, {title}, tilec {rev}\n", f"Command: `{command}`\n"]
    for sub, files in groups:
        out.append(f"### {sub}\n")
        jsonl = [f for f in files if f.endswith(".jsonl")]
        if jsonl:
            rep = subprocess.run([sys.executable, os.path.join(HERE, "sxs_report.py"), *jsonl],
                                 capture_output=True, text=True, check=True).stdout
            out.append(rep.rstrip() + "\n")
        for f in files:
            if not f.endswith(".jsonl"):
                out.append("```\n" + open(f).read().rstrip() + "\n```\n")
    with open(os.path.join(HERE, "RESULTS.md"), "a") as res:
        res.write("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1:])
