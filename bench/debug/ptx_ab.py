#!/usr/bin/env python3
"""Which accepted conformance kernels get different PTX from two tilecs.

    python3 bench/debug/ptx_ab.py RESULTS.tsv TILEC_A TILEC_B [--target sm_90a] [--out X.tsv]

RESULTS.tsv is a ../shared/conformance/run.py --out table; every kernel
accepted there is compiled by both binaries with its cases.tsv -D values.
Prints `same` / `changed` / `A only` / `B only` per kernel and a count; with
--out, writes the changed kernels as a run.py-style table (header + rows),
the input diff_prepare.py takes (--results) to run only those on the GPU.
"""
import argparse
import concurrent.futures as cf
import os
import shlex
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CONF = os.path.normpath(os.path.join(HERE, "../../../shared/conformance"))


def compile_ptx(tilec, kernel, defines, target, out):
    cmd = [tilec, kernel, "--target", target, "-o", out]
    for d in defines:
        cmd += ["-D", d]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return r.returncode == 0


def case_defines():
    """-D values of each conformance kernel (cases.tsv's third column)."""
    defines = {}
    for line in open(os.path.join(CONF, "cases.tsv")):
        f = line.rstrip("\n").split("\t")
        if len(f) >= 3 and f[0].endswith(".tile"):
            defines[f[0]] = shlex.split(f[2])
    return defines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--target", default="sm_90a")
    ap.add_argument("--out", default="")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    defines = case_defines()
    rows = [l.rstrip("\n").split("\t") for l in open(args.results)]
    header, rows = rows[0], [r for r in rows[1:] if len(r) > 1 and r[1] == "accepted"]
    tmp = tempfile.mkdtemp()

    def one(r):
        k = os.path.join(CONF, "kernels", r[0])
        pa, pb = os.path.join(tmp, r[0] + ".a.ptx"), os.path.join(tmp, r[0] + ".b.ptx")
        oka = compile_ptx(args.a, k, defines.get(r[0], []), args.target, pa)
        okb = compile_ptx(args.b, k, defines.get(r[0], []), args.target, pb)
        if oka and okb:
            return r, "same" if open(pa).read() == open(pb).read() else "changed"
        return r, "A only" if oka else "B only" if okb else "neither"

    changed = []
    counts = {}
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        for r, verdict in ex.map(one, rows):
            counts[verdict] = counts.get(verdict, 0) + 1
            print(f"{verdict:8} {r[0]}", flush=True)
            if verdict != "same":
                changed.append(r)
    print("counts:", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if args.out:
        with open(args.out, "w") as f:
            f.write("\t".join(header) + "\n")
            for r in changed:
                f.write("\t".join(r) + "\n")


if __name__ == "__main__":
    main()
