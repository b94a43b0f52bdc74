"""Merges the harness's and torch_baselines.py's JSON lines into one table."""
import json
import sys

rows, torch_rows, copy = [], {}, None
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

gemm = [r for r in rows if "TFLOPs" in r]
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
