#!/usr/bin/env python3
"""Spills of every accepted conformance kernel, all of its kernels counted.

    python3 bench/debug/spill_census.py RESULTS.tsv TILEC [--target sm_90a] [--jobs 2] [--ptxas ptxas]

RESULTS.tsv is a ../shared/conformance/run.py --out table. Each accepted
kernel is compiled with its cases.tsv -D values and assembled by ptxas -v;
the spill stores of all kernels in the file are summed (run.py's note reads
one kernel's line only, so a file whose second kernel spills looked clean).
Prints a Markdown table of the kernels that spill (registers: the most any
kernel of the file uses) and the count of those that do not.
"""
import argparse
import concurrent.futures as cf
import os
import subprocess
import tempfile

from ptx_ab import CONF, case_defines, compile_ptx
from spills_report import ptxas_numbers


def ptxas_spills(ptxas, ptx, target):
    r = subprocess.run([ptxas, "-arch=" + target, "-v", ptx, "-o", os.devnull],
                       capture_output=True, text=True, timeout=300)
    regs, spills = ptxas_numbers(r.stdout + r.stderr)
    return regs or 0, spills, r.returncode


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("tilec")
    ap.add_argument("--target", default="sm_90a")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--ptxas", default="ptxas")
    a = ap.parse_args()
    defines = case_defines()
    rows = [l.rstrip("\n").split("\t") for l in open(a.results)][1:]
    stems = [r[0] for r in rows if len(r) > 1 and r[1] == "accepted"]
    tmp = tempfile.mkdtemp()

    def one(stem):
        ptx = os.path.join(tmp, stem + ".ptx")
        if not compile_ptx(a.tilec, os.path.join(CONF, "kernels", stem),
                           defines.get(stem, []), a.target, ptx):
            return stem, None
        return stem, ptxas_spills(a.ptxas, ptx, a.target)

    with cf.ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(one, stems))
    spilling = [(s, r) for s, r in results if r and r[1]]
    failed = [s for s, r in results if r is None or r[2]]
    print("| kernel | registers | spill stores B |")
    print("|---|---|---|")
    for s, (regs, spills, _) in sorted(spilling, key=lambda x: -x[1][1]):
        print(f"| {s[:-5]} | {regs} | {spills} |")
    print(f"\n{len(spilling)} of {len(results)} accepted kernels spill; "
          f"{len(results) - len(spilling) - len(failed)} do not"
          + (f"; {len(failed)} did not compile or assemble: {', '.join(failed)}"
             if failed else ""))


if __name__ == "__main__":
    main()
