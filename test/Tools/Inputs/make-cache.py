# Writes a hand-written tuning cache for small_autotune.tile: the key needs
# the source's SHA-256, which a test cannot spell by hand.
import hashlib
import json
import sys

source = sys.argv[1]
sha = hashlib.sha256(open(source, "rb").read()).hexdigest()
bindings = {"N": 1048576, "dtype": "float16"}
entry = {
    "source": "small_autotune.tile",
    "source_sha256": sha,
    "factory": "vadd",
    "bindings": bindings,
    "chip": "sm_90a",
    "device": "NVIDIA H200",
    "best": {"block_N": 2048, "threads": 256},
    "best_ms": 0.0071,
    "results": [
        {"id": "vadd_001", "config": {"block_N": 2048, "threads": 256}, "status": "ok", "median_ms": 0.0071},
        {"id": "vadd_000", "config": {"block_N": 1024, "threads": 128}, "status": "ok", "median_ms": 0.0093},
        {"id": "vadd_002", "config": {"block_N": 4096, "threads": 2048}, "status": "dropped"},
    ],
}
stale = dict(entry, source_sha256="0" * 64, bindings={"N": 4096, "dtype": "float16"})
json.dump({"format": "tilec-tuning-cache", "format_version": 1, "entries": [entry, stale]},
          sys.stdout, indent=2)
