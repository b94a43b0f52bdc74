#!/usr/bin/env python3
"""Spills of TileLang's and tilec's builds of the same kernels, side by side.

    python3 bench/debug/spills_report.py OUTDIR [--site /tmp/site] [--nvcc nvcc]

OUTDIR is what bench/debug/spills_tl.sh left (on the GPU machine): STEM.ptxas
(ptxas -v of tilec's PTX), STEM.tilelang.cu (TileLang's CUDA source, from its
cache) and STEM.jsonl (the differential test's verdict). TileLang's source is
compiled here with nvcc -Xptxas -v for sm_90a against TileLang's templates
and CUTLASS from the unpacked TileLang site (bench/debug/spills_tl.sh's
tarball: ../shared/sxs/pack-tilelang.sh); no GPU is needed for that. Prints a
Markdown table: registers (the largest over a case's kernels) and spill
stores (their sum) for both.
"""
import argparse
import concurrent.futures as cf
import glob
import json
import os
import re
import subprocess


def ptxas_numbers(text):
    regs = [int(x) for x in re.findall(r"Used (\d+) registers", text)]
    spills = [int(x) for x in re.findall(r"(\d+) bytes spill stores", text)]
    return (max(regs) if regs else None), sum(spills)


def tilelang_ptxas(src, site, nvcc):
    tl = os.path.join(site, "tilelang")
    cmd = [nvcc, "-std=c++20", "-w", "-cubin", "-gencode",
           "arch=compute_90a,code=sm_90a", "-Xptxas", "-v",
           "-I" + os.path.join(tl, "src"),
           "-I" + os.path.join(tl, "3rdparty", "cutlass", "include"),
           src, "-o", os.devnull]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        return None, None
    return ptxas_numbers(r.stdout + r.stderr)


def verdict(path):
    try:
        for line in open(path):
            r = json.loads(line)
            return "agree" if r.get("agree") else str(
                r.get("skip") or r.get("error") or "differ")[:40]
    except (OSError, ValueError):
        pass
    return "none"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--site", default="/tmp/site")
    ap.add_argument("--nvcc", default="nvcc")
    a = ap.parse_args()
    stems = sorted(os.path.basename(p)[:-len(".ptxas")]
                   for p in glob.glob(os.path.join(a.outdir, "*.ptxas")))
    with cf.ThreadPoolExecutor(2) as ex:
        tl = dict(zip(stems, ex.map(
            lambda s: tilelang_ptxas(os.path.join(a.outdir, s + ".tilelang.cu"),
                                     a.site, a.nvcc)
            if os.path.exists(os.path.join(a.outdir, s + ".tilelang.cu"))
            else (None, None), stems)))
    print("| kernel | TileLang regs | TileLang spill stores B | tilec regs | "
          "tilec spill stores B | differential |")
    print("|---|---|---|---|---|---|")
    fmt = lambda v: "-" if v is None else str(v)
    for s in stems:
        regs, spills = ptxas_numbers(open(os.path.join(a.outdir, s + ".ptxas")).read())
        tr, ts = tl[s]
        print(f"| {s} | {fmt(tr)} | {fmt(ts)} | {fmt(regs)} | {spills} | "
              f"{verdict(os.path.join(a.outdir, s + '.jsonl'))} |")


if __name__ == "__main__":
    main()
