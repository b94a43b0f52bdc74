"""Renders the JSON lines of ../shared/sxs/sxs.py (or bench/sxs_tma.py) as a
markdown table: per case tilec's and TileLang's rate, correctness, the
library baseline and the ratios. Lines that are not case rows (TileLang's
log, the environment) are skipped; the copy bandwidth is printed."""
import json
import sys


def main(path):
    rows, env = [], {}
    for line in open(path):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            continue
        if r.get("kind") == "env":
            env = r
        elif "name" in r:
            rows.append(r)
    if env:
        print(f"GPU {env.get('gpu')}, torch {env.get('torch')}, copy {env.get('copy_GBps', 0):.0f} GB/s\n")
    print("| case | unit | tilec | ok | TileLang | ok | library | tilec / TileLang | tilec / library |")
    print("|---|---|---|---|---|---|---|---|---|")

    def cell(d):
        if not d:
            return "-", "-"
        if "error" in d:
            return "error: " + d["error"][:80].replace("|", "/"), "-"
        return f"{d['rate']:.1f}", "yes" if d.get("ok") else f"NO ({d.get('rel_err')})"

    for r in rows:
        t, tl, b = r.get("tilec", {}), r.get("tilelang", {}), r.get("baseline", {})
        tr, tok = cell(t)
        lr, lok = cell(tl)
        br = f"{b['rate']:.1f} ({b.get('what')})" if b.get("rate") else "-"
        rt = f"{t['rate'] / tl['rate']:.2f}x" if t.get("rate") and tl.get("rate") else "-"
        rb = f"{t['rate'] / b['rate']:.2f}x" if t.get("rate") and b.get("rate") else "-"
        print(f"| {r['name']} | {r.get('unit')} | {tr} | {tok} | {lr} | {lok} | {br} | {rt} | {rb} |")


if __name__ == "__main__":
    main(sys.argv[1])
