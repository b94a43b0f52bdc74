"""TileLang's own result for its convolution example against torch (the
differential test said tilec's conv differs from TileLang's; this says which
one matches torch.nn.functional.conv2d). On the GPU machine with TileLang on
PYTHONPATH:
    python3 bench/debug/conv_tl.py ../shared/conformance/kernels/convolution__example_convolution__convolution.tile
"""
import sys

import torch
import torch.nn.functional as F
import tilelang  # noqa: F401

src = "import torch\n" + open(sys.argv[1]).read()
ns = {}
exec(compile(src, sys.argv[1], "exec"), ns)
conv = ns["convolution"]
gen = torch.Generator(device="cuda")
gen.seed()
for n, c, h, w, f, k, s, d, p in [(8, 64, 32, 32, 128, 3, 1, 1, 1), (3, 40, 17, 13, 200, 3, 1, 1, 1),
                                  (8, 64, 32, 32, 128, 3, 2, 2, 2)]:
    data = torch.randn(n, h, w, c, generator=gen, device="cuda").half()
    kernel = torch.randn(k, k, c, f, generator=gen, device="cuda").half()
    try:
        out = conv(data, kernel, s, d, p, 64, 128, 32, 3, 256)
    except Exception as e:  # noqa: BLE001
        print(f"tilelang conv N{n} C{c} H{h} W{w} F{f} K{k} S{s} D{d} P{p}: {type(e).__name__}: {str(e)[:300]}", flush=True)
        continue
    torch.cuda.synchronize()
    ref = F.conv2d(data.double().permute(0, 3, 1, 2), kernel.double().permute(3, 2, 0, 1),
                   stride=s, padding=p, dilation=d).permute(0, 2, 3, 1)
    err = (out.double() - ref).abs()
    bad = int((~(err <= 2e-2 + 1e-2 * ref.abs())).sum())
    print(f"tilelang conv N{n} C{c} H{h} W{w} F{f} K{k} S{s} D{d} P{p}: shape {tuple(out.shape)} "
          f"mismatches {bad}/{out.numel()} max err {float(err.max()):.3g}", flush=True)
