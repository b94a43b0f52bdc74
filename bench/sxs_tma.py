"""../shared/sxs/sxs.py with tensor-map (TMA) kernel arguments.

tilec's sm_90a GEMM kernels take CUtensorMap arguments that the launch
header encodes (docs/lowering.md, "Tensor-core GEMM on sm_90a"); the shared
side-by-side runner launches from the metadata JSON and knows plain
parameters only. This runs it unchanged except for its launcher, which
encodes the maps the metadata lists (bench/tilec_launch.py). Copy this file
and bench/tilec_launch.py next to sxs.py (into .dev/sxs) and run it with
the same arguments:  python3 sxs_tma.py gemm
"""
import ctypes
import importlib.util
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tilec_launch  # noqa: E402

spec = importlib.util.spec_from_file_location("sxs", os.path.join(HERE, "sxs.py"))
sxs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sxs)


def bind(self, values):
    env = {p["name"]: (v if not isinstance(v, torch.Tensor) else None)
           for p, v in zip(self.fn["params"], values)}
    launches = []
    for h, k, shared in self.kernels:
        ptrs, keep = tilec_launch.kernel_arg_values(k, values)
        grid = [int(eval(str(g).replace("/", "//"), {}, dict(env))) for g in k["grid"]]
        # The kernel walks its grid itself (SXS_FULL_GRID=1: one tile per block).
        if not os.environ.get("SXS_FULL_GRID"):
            grid = tilec_launch.launch_grid(k, grid)
        launches.append((h, grid, k["block"], shared, ptrs, keep))
    self._launches = launches

    def run():
        s = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        for h, grid, block, shared, ptrs, _ in launches:
            sxs.check(sxs._cuda.cuLaunchKernel(h, *grid, *block, shared, s, ptrs, None),
                      "cuLaunchKernel")
    return run


sxs.TilecFunction.bind = bind
# The 8-bit floats (examples/gemm_fp8.tile), as tilec's metadata and
# TileLang spell them.
sxs.DT.update({"float8_e4m3": torch.float8_e4m3fn, "float8_e4m3fn": torch.float8_e4m3fn,
               "float8_e5m2": torch.float8_e5m2})
if __name__ == "__main__":
    sxs.main()
