"""Merges the harness's and torch_baselines.py's JSON lines into one table."""
import json
import sys

rows, torch_rows, sdpa_rows, copy = [], {}, {}, None
for path in sys.argv[1:]:
    for line in open(path):
        line = line.strip()
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        if r.get("kind") == "copy":
            copy = r
        elif r.get("kind") == "torch":
            torch_rows[r["kernel"]] = r
        elif r.get("kind") == "sdpa":
            sdpa_rows[r["kernel"]] = r
        elif "kernel" in r:
            rows.append(r)

bw = copy["GBps"] if copy else None
print(f"device-to-device copy: {bw:.0f} GB/s" if bw else "copy: not measured")
hdr = "| kernel | size | correct (rel err) | tilec ms | tilec GB/s | % of copy | torch eager ms | torch.compile ms | speedup vs compile |"
print(hdr)
print("|" + "---|" * hdr.count("|")[:-1] if False else "|---|---|---|---|---|---|---|---|---|")
for r in rows:
    if "TFLOPs" in r:
        continue
    t = torch_rows.get(r["kernel"])
    pct = f"{100 * r['GBps'] / bw:.0f}%" if bw and r["ms"] else "-"
    eager = f"{t['eager_ms']:.4f}" if t else "-"
    comp = f"{t['compile_ms']:.4f}" if t else "-"
    speed = f"{t['compile_ms'] / r['ms']:.2f}x" if t and r["ms"] else "-"
    ok = ("yes" if r["ok"] else "NO") + f" ({r['rel_err']:.1e})"
    ms = f"{r['ms']:.4f}" if r["ms"] else "-"
    gb = f"{r['GBps']:.0f}" if r["ms"] else "-"
    print(f"| {r['kernel']} | {r['size']} | {ok} | {ms} | {gb} | {pct} | {eager} | {comp} | {speed} |")

gemm = [r for r in rows if "TFLOPs" in r and r.get("op") != "attention"]
if gemm:
    print()
    print("| GEMM | size | correct (rel err, reference) | tilec ms | tilec TFLOP/s | cuBLAS ms | cuBLAS TFLOP/s | tilec / cuBLAS |")
    print("|---|---|---|---|---|---|---|---|")
    for r in gemm:
        ok = ("yes" if r["ok"] else "NO") + f" ({r['rel_err']:.1e}, {r['ref']})"
        ratio = f"{r['TFLOPs'] / r['cublas_TFLOPs']:.2f}x" if r["ms"] and r["cublas_ms"] else "-"
        ms = f"{r['ms']:.4f}" if r["ms"] else "-"
        print(f"| {r['kernel']} | {r['size']} | {ok} | {ms} | {r['TFLOPs']:.0f} | "
              f"{r['cublas_ms']:.4f} | {r['cublas_TFLOPs']:.0f} | {ratio} |")

# FlashAttention rows, joined by instance name with torch SDPA's default
# backend (and the fastest backend torch could be forced to).
attn = [r for r in rows if r.get("op") == "attention"]
if attn:
    print()
    print("| attention | size (b x h x s x d) | causal | correct (rel err, reference) | tilec ms | tilec TFLOP/s | "
          "SDPA ms | SDPA TFLOP/s | best SDPA backend ms | tilec / SDPA |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in attn:
        t = sdpa_rows.get(r["kernel"])
        nans = f", {r['nans']} NaN" if r.get("nans") else ""
        ok = ("yes" if r["ok"] else "NO") + f" ({r['rel_err']:.1e}, {r['ref']}{nans})"
        ms = f"{r['ms']:.4f}" if r["ms"] else "-"
        tf = f"{r['TFLOPs']:.0f}" if r["ms"] else "-"
        sdpa = f"{t['sdpa_ms']:.4f}" if t else "-"
        sdpa_tf = f"{t['sdpa_TFLOPs']:.0f}" if t else "-"
        forced = {k[:-3]: v for k, v in (t or {}).items()
                  if k.endswith("_ms") and k != "sdpa_ms" and v is not None}
        best = min(forced, key=forced.get) if forced else None
        best = f"{forced[best]:.4f} ({best})" if best else "-"
        ratio = f"{t['sdpa_ms'] / r['ms']:.2f}x" if t and r["ms"] else "-"
        causal = "yes" if r["causal"] else "no"
        print(f"| {r['kernel']} | {r['size']} | {causal} | {ok} | {ms} | {tf} | {sdpa} | {sdpa_tf} | {best} | {ratio} |")
