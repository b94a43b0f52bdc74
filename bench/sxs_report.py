"""Renders the JSON lines of ../shared/sxs/sxs.py (or bench/sxs_tma.py) as a
markdown table: per case tilec's and TileLang's rate, correctness, the
library baseline and the ratios. Lines that are not case rows (TileLang's
log, the environment) are skipped; the copy bandwidth is printed.

    python3 bench/sxs_report.py RUN.jsonl              # one run
    python3 bench/sxs_report.py RUN1.jsonl RUN2.jsonl ...

With several runs of the same cases (small kernels move by 10-20% from one
call to the next on the same PTX) each case's row is the median over the
runs that have it: the rates' medians, and the median of each run's own
ratio (tilec and TileLang timed in the same process), with the smallest and
largest ratio and the number of runs beside it. A case is `yes` only if
every run checked it right."""
import json
import statistics
import sys


def read(path):
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
    return rows, env


def cell(d):
    if not d:
        return "-", "-"
    if "error" in d:
        return "error: " + d["error"][:80].replace("|", "/"), "-"
    return f"{d['rate']:.1f}", "yes" if d.get("ok") else f"NO ({d.get('rel_err')})"


def ratio(x, y):
    return x["rate"] / y["rate"] if x.get("rate") and y.get("rate") else None


def single(rows, env):
    if env:
        print(f"GPU {env.get('gpu')}, torch {env.get('torch')}, copy {env.get('copy_GBps', 0):.0f} GB/s\n")
    print("| case | unit | tilec | ok | TileLang | ok | library | tilec / TileLang | tilec / library |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        t, tl, b = r.get("tilec", {}), r.get("tilelang", {}), r.get("baseline", {})
        tr, tok = cell(t)
        lr, lok = cell(tl)
        br = f"{b['rate']:.1f} ({b.get('what')})" if b.get("rate") else "-"
        rt, rb = ratio(t, tl), ratio(t, b)
        rt = f"{rt:.2f}x" if rt else "-"
        rb = f"{rb:.2f}x" if rb else "-"
        print(f"| {r['name']} | {r.get('unit')} | {tr} | {tok} | {lr} | {lok} | {br} | {rt} | {rb} |")


def median_of(runs):
    """One row per case name (in first-seen order) over `runs`, a list of
    (rows, env): medians of the rates and of each run's ratios."""
    envs = [env for _, env in runs if env]
    if envs:
        copies = [e.get("copy_GBps", 0) for e in envs]
        print(f"GPU {envs[0].get('gpu')}, torch {envs[0].get('torch')}, {len(runs)} runs, copy "
              f"{statistics.median(copies):.0f} GB/s (median; {min(copies):.0f}-{max(copies):.0f})\n")
    order, by = [], {}
    for rows, _ in runs:
        for r in rows:
            if r["name"] not in by:
                order.append(r["name"])
            by.setdefault(r["name"], []).append(r)
    print("| case | unit | runs | tilec | ok | TileLang | ok | library | tilec / TileLang "
          "(median, min-max) | tilec / library (median, min-max) |")
    print("|---|---|---|---|---|---|---|---|---|---|")

    def rate(rs, key):
        # Runs that skipped the system (SXS_NO_TILELANG) do not count.
        ds = [r[key] for r in rs if r.get(key)] or [{}]
        good = [d for d in ds if d.get("rate")]
        if not good:
            return cell(next((d for d in ds if d), {}))
        ok = all(d.get("ok") for d in good) and len(good) == len(ds)
        bad = [d.get("rel_err") for d in good if not d.get("ok")]
        return (f"{statistics.median(d['rate'] for d in good):.1f}",
                "yes" if ok else f"NO ({len(good) - len(bad)}/{len(ds)} right{', ' + str(bad[0]) if bad else ''})")

    def ratios(rs, key):
        xs = [x for x in (ratio(r.get("tilec", {}), r.get(key, {})) for r in rs) if x]
        if not xs:
            return "-"
        return f"{statistics.median(xs):.2f}x ({min(xs):.2f}-{max(xs):.2f})"

    for name in order:
        rs = by[name]
        tr, tok = rate(rs, "tilec")
        lr, lok = rate(rs, "tilelang")
        bs = [r["baseline"] for r in rs if r.get("baseline", {}).get("rate")]
        br = (f"{statistics.median(b['rate'] for b in bs):.1f} ({bs[0].get('what')})" if bs else "-")
        print(f"| {name} | {rs[0].get('unit')} | {len(rs)} | {tr} | {tok} | {lr} | {lok} | {br} | "
              f"{ratios(rs, 'tilelang')} | {ratios(rs, 'baseline')} |")


def main(paths):
    runs = [read(p) for p in paths]
    if len(runs) == 1:
        single(*runs[0])
    else:
        median_of(runs)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    main(sys.argv[1:])
