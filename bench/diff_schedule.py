#!/usr/bin/env python3
"""The differential test's scheduler (bench/diff_tma.py runs the shared
runner's cases through it instead of its plain thread pool).

What the plain pool got wrong in session 6's run (bench/RESULTS.md, "session
6's first runs"): 12 cases at a time whatever their size, so 7 of 84 died of
memory (rc -9, the host's OOM killer, and CUDA allocations of 4-16 GiB on a
GPU the neighbours had filled), and results printed in case order, so the
280 s limit lost every finished case queued behind a slow one. Here:

  memory    each case's GPU bytes are estimated from its metadata (every
            tensor's shape at the runner's symbol values: tilec's copy and
            TileLang's, the float32 temporary of torch.randn, one CUDA
            context); a case starts only while the running cases' sum stays
            within --gpu-gib and the host's within --host-gib (a case
            bigger than the budget runs alone). Cases start smallest first,
            strictly in that order (none overtakes a waiting one), so the
            big ones end the run with fewer neighbours and are never
            starved.
  time      --time-budget S: no case starts after S seconds, and a running
            case is stopped at S (an `error: time budget` line, which
            --skip-done reruns). Lines print as cases finish.
  resume    --skip-done A.jsonl[,B.jsonl]: the stems with a row there are
            skipped, except runner errors (rc, timeout, time budget, out
            of memory), which run again. diff_summary.py takes several
            files, a stem's last row counting.

    python3 bench/diff_schedule.py selftest      # the parts that need no GPU
"""
import json
import os
import re
import subprocess
import sys
import threading
import time

GIB = 1 << 30
DTYPE_BYTES = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "int32": 4, "int64": 8,
               "int8": 1, "uint8": 1, "int16": 2, "bool": 1, "float8_e4m3": 1, "float8_e5m2": 1}
CONTEXT_GPU = 1 * GIB   # CUDA context, TileLang's and tilec's modules
PROCESS_HOST = 5 * GIB  # torch + TileLang + nvcc in one case's process
RERUN = re.compile(r"^rc -?\d+|timeout|time budget|out of memory|OutOfMemoryError|CUDA error: out", re.I)


def tensor_sizes(fn, sym):
    """(bytes, elements) of every tensor parameter at the symbol values."""
    out = []
    for p in fn["params"]:
        if p["kind"] != "tensor":
            continue
        n = 1
        for s in p.get("shape", []):
            n *= int(eval(str(s), {}, dict(sym)))
        out.append((n * DTYPE_BYTES.get(p["dtype"], 4), n))
    return out


def estimate(fn, sym):
    """(GPU bytes, host bytes) one case needs: tilec's tensors and
    TileLang's copies (inputs cloned, outputs allocated again), the float32
    temporary torch.randn makes of the largest tensor, a context; on the
    the comparison's float64 chunks (diff_tilelang.compare takes at most
    CHUNK elements of a tensor at a time); on the host the process and
    the comparison of the tensors small enough to go there whole."""
    sizes = tensor_sizes(fn, sym)
    total = sum(b for b, _ in sizes)
    largest = max((n for _, n in sizes), default=0)
    # While the inputs are made, `(torch.randn(shape) * s).to(dt)` holds two
    # float32 temporaries of the largest; afterwards both sides' tensors and
    # TileLang's own outputs (diff_tilelang.poison fills in place: no
    # temporary).
    gpu = max(total + 8 * largest, 2 * total + 4 * largest) + CONTEXT_GPU
    return gpu + 12 * 8 * min(largest, 1 << 25), PROCESS_HOST + 6 * 8 * min(largest, 1 << 25)


def done_stems(paths):
    """Stems with a row in the JSON-lines files `paths` (comma-separated)
    that need no rerun: anything but a runner error or a memory failure."""
    done = set()
    for path in [p for p in paths.split(",") if p]:
        for line in open(path):
            line = line.strip()
            if not line.startswith("{"):
                continue
            row = json.loads(line)
            why = " ".join(str(row.get(k, "")) for k in ("error", "tilelang_error", "tilec_error"))
            if "error" in row or RERUN.search(why):
                done.discard(row["stem"])
            else:
                done.add(row["stem"])
    return done


def timed_out_in(e, started):
    """" (in PHASE, from N s)" for a case stopped at its limit, from the
    phase lines its stderr had so far (bench/diff_tma.py prints them), or ""."""
    import diff_tilelang
    err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else e.stderr
    where = diff_tilelang.last_phase(err, started)
    return f" (in {where})" if where else ""


def host_gib_default():
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024 * 0.8 / GIB
    except OSError:
        pass
    return 64.0


class Scheduler:
    """Starts `run(case, timeout)` for each case in order, at most `jobs`
    at a time, while the running cases' (GPU, host) estimates fit the
    budgets; `emit(line)` gets each result as it finishes."""

    def __init__(self, jobs, gpu_budget, host_budget, time_budget=None, clock=time.monotonic):
        self.jobs, self.gpu_budget, self.host_budget = jobs, gpu_budget, host_budget
        self.time_budget, self.clock = time_budget, clock
        self.cv = threading.Condition()
        self.running, self.gpu, self.host, self.peak = 0, 0, 0, 0

    def _fits(self, need):
        if self.running == 0:
            return True  # a case bigger than the budget runs alone
        return (self.running < self.jobs and self.gpu + need[0] <= self.gpu_budget
                and self.host + need[1] <= self.host_budget)

    def left(self, start):
        return None if self.time_budget is None else self.time_budget - (self.clock() - start)

    def run_all(self, cases, need, run, emit):
        """cases: stems in start order; need[stem]: (GPU, host) bytes."""
        start = self.clock()
        threads = []

        def worker(stem, cost):
            try:
                left = self.left(start)
                line = run(stem, None if left is None else max(1.0, left))
            except Exception as e:  # noqa: BLE001
                line = json.dumps({"stem": stem, "error": f"scheduler: {type(e).__name__}: {e}"[:300]})
            with self.cv:
                emit(line)
                self.running -= 1
                self.gpu -= cost[0]
                self.host -= cost[1]
                self.cv.notify_all()

        for stem in cases:
            cost = need[stem]
            with self.cv:
                while not self._fits(cost):
                    left = self.left(start)
                    if left is not None and left <= 0:
                        break
                    self.cv.wait(timeout=None if left is None else max(0.05, left))
                left = self.left(start)
                if left is not None and left <= 0:
                    break  # not started: --skip-done runs it next time
                self.running += 1
                self.gpu += cost[0]
                self.host += cost[1]
                self.peak = max(self.peak, self.gpu)
            t = threading.Thread(target=worker, args=(stem, cost))
            t.start()
            threads.append(t)
        for t in threads:
            t.join()


def options(argv):
    """--jobs, --gpu-gib, --host-gib, --time-budget, --skip-done from argv."""
    def opt(name, default, conv):
        return conv(argv[argv.index(name) + 1]) if name in argv else default
    return dict(jobs=opt("--jobs", 4, int), gpu_gib=opt("--gpu-gib", 120.0, float),
                host_gib=opt("--host-gib", None, float), time_budget=opt("--time-budget", None, float),
                skip_done=opt("--skip-done", "", str))


def main(script, cases, argv):
    """The patched runner's main: every case of `cases` (cases.json rows)
    as `python3 script --one STEM`, scheduled as above."""
    here = os.path.dirname(os.path.abspath(script))
    sys.path.insert(0, here)
    import diff_inputs
    import diff_tilelang
    o = options(argv)
    skip = done_stems(o["skip_done"])
    need = {}
    for c in cases:
        if c["stem"] in skip:
            continue
        try:
            fn = json.load(open(os.path.join(here, "tilec", c["stem"] + ".json")))["functions"][0]
            need[c["stem"]] = estimate(fn, diff_inputs.symbol_values(fn))
        except Exception:  # noqa: BLE001
            need[c["stem"]] = (CONTEXT_GPU, PROCESS_HOST)
    order = sorted(need, key=lambda s: need[s][0])  # stable: cases.json order among equals
    host = o["host_gib"] if o["host_gib"] is not None else host_gib_default()
    print(f"# {len(order)} cases ({len(skip)} skipped as done), jobs {o['jobs']}, GPU budget "
          f"{o['gpu_gib']:g} GiB, host {host:.0f} GiB, time budget {o['time_budget']}", file=sys.stderr)

    def run(stem, timeout):
        limit = 240 if timeout is None else min(240, timeout)
        t0, wall0 = time.monotonic(), time.time()
        try:
            p = subprocess.run([sys.executable, script, "--one", stem], capture_output=True, text=True,
                               timeout=limit)
        except subprocess.TimeoutExpired as e:
            why = "timeout 240 s" if limit == 240 else f"time budget ({limit:.0f} s left)"
            return json.dumps({"stem": stem, "error": why + timed_out_in(e, wall0)})
        line = [x for x in p.stdout.splitlines() if x.startswith("{")]
        if not line:
            return json.dumps({"stem": stem, "error": f"rc {p.returncode}: {p.stderr.strip()[-300:]}"})
        rest = None if timeout is None else max(1.0, timeout - (time.monotonic() - t0))
        return diff_tilelang.rerun_if_overflow(line[-1], stem, script, timeout=rest)

    s = Scheduler(o["jobs"], o["gpu_gib"] * GIB, host * GIB, o["time_budget"])
    s.run_all(order, need, run, lambda line: print(line, flush=True))


def selftest():
    """The scheduler on made-up cases with a fake clock-free runner."""
    fn = {"params": [{"name": "A", "kind": "tensor", "dtype": "float32", "shape": ["M", "1024"]},
                     {"name": "n", "kind": "scalar"},
                     {"name": "B", "kind": "tensor", "dtype": "bfloat16", "shape": ["2", "M", "8"]}]}
    gpu, host = estimate(fn, {"M": 1 << 20})
    print(f"estimate: gpu {gpu / GIB:.3f} GiB host {host / GIB:.3f} GiB")
    # Budget 10 units, jobs 3: sizes 1,1,1,4,4,9,12 (12 alone).
    sizes = {"a": 1, "b": 1, "c": 1, "d": 4, "e": 4, "f": 9, "g": 12}
    s = Scheduler(jobs=3, gpu_budget=10, host_budget=100)
    live, worst, log = set(), [0, 0], []
    lock = threading.Lock()

    def run(stem, timeout):
        with lock:
            live.add(stem)
            worst[0] = max(worst[0], len(live))
            if len(live) > 1:
                worst[1] = max(worst[1], sum(sizes[x] for x in live))
            if stem == "g":
                log.append(f"g with {sorted(live - {'g'})}")
        time.sleep(0.05)
        with lock:
            live.discard(stem)
        return json.dumps({"stem": stem, "agree": True})
    out = []
    s.run_all(list(sizes), {k: (v, 1) for k, v in sizes.items()}, run, out.append)
    print(f"ran {len(out)}, most at once {worst[0]}, cases run together within the budget: {0 < worst[1] <= 10}, {log[0]}")
    # A time budget: nothing starts after it, a running case gets what is left.
    t = [0.0]
    s = Scheduler(jobs=1, gpu_budget=10, host_budget=100, time_budget=5, clock=lambda: t[0])
    seen = []

    def slow(stem, timeout):
        seen.append((stem, timeout))
        t[0] += 3
        return json.dumps({"stem": stem, "error": "time budget"} if t[0] > 5 else {"stem": stem})
    out = []
    s.run_all(["x", "y", "z"], {k: (1, 1) for k in "xyz"}, slow, out.append)
    print("time budget:", seen, "printed", len(out))
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        for row in ({"stem": "ok", "agree": True}, {"stem": "bad", "agree": False},
                    {"stem": "oom", "error": "rc -9: "}, {"stem": "late", "error": "time budget (3 s left)"},
                    {"stem": "cuda", "error": "OutOfMemoryError: CUDA out of memory."},
                    {"stem": "rej", "tilelang_error": "ValueError: x"},
                    {"stem": "again", "error": "rc -9: "}, {"stem": "again", "agree": True}):
            f.write(json.dumps(row) + "\n")
    print("skip-done:", sorted(done_stems(f.name)))
    os.unlink(f.name)
    # A case stopped at its limit names the phase it was in (the patched
    # runner's phase lines on stderr, bench/diff_tma.py).
    here = os.path.dirname(os.path.abspath(__file__))
    code = ("import sys, time; sys.path.insert(0, %r); import diff_tilelang as d; d.phase('inputs'); "
            "time.sleep(0.5); d.phase('TileLang run'); time.sleep(30)" % here)
    started = time.time()
    try:
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=6)
        print("timeout: not reached")
    except subprocess.TimeoutExpired as e:
        print("timeout: timeout 240 s" + re.sub(r"from \d+ s", "from N s", timed_out_in(e, started)))


if __name__ == "__main__":
    if sys.argv[1:] == ["selftest"]:
        selftest()
    else:
        sys.exit(__doc__)
