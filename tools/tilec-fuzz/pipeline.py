#!/usr/bin/env python3
"""A fuzz campaign over tilec's whole pipeline (docs/fuzzing.md).

    tools/tilec-fuzz/pipeline.py [--tilec build-asan/bin/tilec] [--seconds 600]
        [--start SEED] [--count N] [--jobs 1] [--targets sm_80,sm_90a]
        [--out build-asan/fuzz] [--tilec-arg=-findex-bits=64 ...]

Generates random valid kernels (kernelgen.py, one per seed), compiles each
to PTX for every target with tilec (an ASan + UBSan build: a sanitizer
report ends the process with an error) and assembles the PTX with ptxas.
Each outcome is one of
  ok        tilec compiled it and ptxas assembled it
  crash     tilec died: a signal, a sanitizer report, LLVM ERROR, an exit
            status other than 0/1, an error without a location, an internal
            error, or a timeout
  rejected  tilec gave a located error for a kernel the generator meant to
            be valid (a bug of tilec or of the generator: look at it)
  ptxas     ptxas refused tilec's PTX
Every failure is kept under OUT/failures/ (the .tile, the command and its
output); the counts are printed and written to OUT/stats.json. The exit
status is 1 if anything but `ok` happened.
"""
import argparse
import concurrent.futures as futures
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernelgen  # noqa: E402

LOCATED = re.compile(r"^[^\s:][^:]*\.tile:\d+:\d+: error: ", re.M)
SANITIZER = re.compile(r"(ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer|"
                       r"LLVM ERROR|Assertion .* failed|PLEASE submit a bug report|"
                       r"internal:|Stack dump)")


def find_ptxas():
    for candidate in (os.environ.get("PTXAS"), shutil.which("ptxas"),
                      "/usr/local/cuda/bin/ptxas"):
        if candidate and os.path.exists(candidate):
            return candidate
    sys.exit("pipeline.py: no ptxas (set PTXAS=...)")


def run_limited(cmd, env, cpu_seconds):
    """(output, exit status) of `cmd` under a limit of `cpu_seconds` of CPU
    time (and 20 times that of wall-clock time); status -999 for a run
    past either. A wall-clock limit alone called a starved compile a hang:
    the 2026-12-01 sanitizer campaign under `nice -n 19` at load 11 timed
    out at 120 s on a GEMM kernel that compiles in 1.1 s of CPU (4 s
    unniced). The limit is set by the shell (`ulimit -S -t`: SIGXCPU), not a
    preexec_fn, which is unsafe beside the campaign's threads."""
    n = max(1, int(cpu_seconds))
    wrapped = ["/bin/sh", "-c", f'ulimit -S -t {n} && exec "$@"', "sh", *cmd]
    try:
        r = subprocess.run(wrapped, capture_output=True, text=True, timeout=20 * n, env=env)
    except subprocess.TimeoutExpired as e:
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        return f"timeout after {20 * n} s of wall-clock time\n{err}", -999
    if r.returncode == -signal.SIGXCPU:
        return f"timeout after {n} s of CPU time\n{r.stderr}{r.stdout}", -999
    if r.returncode == -signal.SIGKILL:
        return f"killed: past {n} s of CPU time, or out of memory\n{r.stderr}{r.stdout}", -999
    return r.stderr + r.stdout, r.returncode


def run_one(seed, args, ptxas):
    spec = kernelgen.generate(seed)
    work = os.path.join(args.out, "work", str(seed))
    os.makedirs(work, exist_ok=True)
    src = os.path.join(work, spec["name"] + ".tile")
    with open(src, "w") as f:
        f.write(spec["source"])
    results = []
    # allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its slabs in
    # tilec's instrumented code but not in the uninstrumented libMLIR, which
    # allocates from the same slabs (MLIR's StorageUniquer): without it a
    # memmove over such an allocation reads as use-after-poison, at random
    # (the first ASan campaign's 4 "crashes", all in Allocator.h:217).
    env = dict(os.environ,
               ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:exitcode=99:allow_user_poisoning=0",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=98")
    for target in args.targets.split(","):
        ptx = os.path.join(work, f"{target}.ptx")
        cmd = [args.tilec, src, "--target", target, "--emit=ptx", "-o", ptx, *args.tilec_arg]
        start = time.time()
        out, rc = run_limited(cmd, env, args.timeout)
        elapsed = time.time() - start
        if rc == 0 and not SANITIZER.search(out):
            p = subprocess.run([ptxas, f"-arch={target}", ptx, "-o", os.devnull],
                               capture_output=True, text=True)
            kind = "ok" if p.returncode == 0 else "ptxas"
            if kind == "ptxas":
                out = p.stderr + p.stdout
                cmd = [ptxas, f"-arch={target}", ptx]
        elif rc == 1 and LOCATED.search(out) and not SANITIZER.search(out):
            kind = "rejected"
        else:
            kind = "crash"
        results.append({"seed": seed, "target": target, "kind": kind, "seconds": elapsed,
                        "name": spec["name"], "cmd": " ".join(cmd),
                        "output": out if len(out) < 12000 else out[:6000] + "\n...\n" + out[-6000:]})
    if all(r["kind"] == "ok" for r in results) and not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tilec", default="build-asan/bin/tilec")
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--count", type=int, default=0, help="stop after N kernels (0: time only)")
    ap.add_argument("--start", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--targets", default="sm_80,sm_90a")
    ap.add_argument("--timeout", type=float, default=120,
                    help="CPU seconds a tilec run may take (20 times that of wall-clock time)")
    ap.add_argument("--out", default="build-asan/fuzz")
    ap.add_argument("--keep", action="store_true", help="keep the files of passing kernels")
    ap.add_argument("--tilec-arg", action="append", default=[],
                    help="an extra tilec argument (e.g. -findex-bits=64), repeatable")
    args = ap.parse_args()
    ptxas = find_ptxas()
    os.makedirs(os.path.join(args.out, "failures"), exist_ok=True)
    counts = {"ok": 0, "crash": 0, "rejected": 0, "ptxas": 0}
    families = {}
    started = time.time()
    seed = args.start
    kernels = 0
    with futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        pending = set()

        def more():
            return (args.count == 0 or kernels + len(pending) < args.count) and \
                time.time() - started < args.seconds

        while True:
            while len(pending) < args.jobs and more():
                pending.add(pool.submit(run_one, seed, args, ptxas))
                seed += 1
            if not pending:
                break
            done, pending = futures.wait(pending, return_when=futures.FIRST_COMPLETED)
            for f in done:
                kernels += 1
                for r in f.result():
                    counts[r["kind"]] += 1
                    fam = r["name"].split("_", 1)[1]
                    families.setdefault(fam, {"ok": 0, "crash": 0, "rejected": 0, "ptxas": 0})
                    families[fam][r["kind"]] += 1
                    if r["kind"] != "ok":
                        base = os.path.join(args.out, "failures", f"{r['kind']}-{r['seed']}-{r['target']}")
                        shutil.copy(os.path.join(args.out, "work", str(r["seed"]), r["name"] + ".tile"),
                                    base + ".tile")
                        with open(base + ".txt", "w") as log:
                            log.write(r["cmd"] + "\n\n" + r["output"])
                        first = r["output"].strip().splitlines()[:1]
                        print(f"{r['kind']}: seed {r['seed']} {r['target']} {r['name']}: "
                              f"{first[0] if first else ''}", flush=True)
    elapsed = time.time() - started
    executions = sum(counts.values())
    stats = {"kernels": kernels, "executions": executions, "seconds": round(elapsed, 1),
             "first_seed": args.start, "last_seed": seed - 1, "targets": args.targets,
             "tilec": args.tilec, "tilec_args": args.tilec_arg, "counts": counts,
             "families": families}
    with open(os.path.join(args.out, "stats.json"), "w") as f:
        json.dump(stats, f, indent=1)
    print(f"pipeline fuzz: {kernels} kernels, {executions} tilec+ptxas executions in "
          f"{elapsed:.0f} s: {counts['ok']} ok, {counts['crash']} crashes, "
          f"{counts['rejected']} rejected, {counts['ptxas']} ptxas rejections")
    for fam, c in sorted(families.items()):
        print(f"  {fam:12s} " + " ".join(f"{k}={v}" for k, v in c.items()))
    return 0 if executions == counts["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
