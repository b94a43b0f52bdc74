"""Times the same operations with PyTorch eager and torch.compile, and the
device-to-device copy bandwidth, on the same GPU in the same run. Prints
JSON lines (median of device events via triton.testing.do_bench)."""
import json
import torch
import torch.nn.functional as F
from triton.testing import do_bench

dev = "cuda"
torch.manual_seed(0)


def bench(fn):
    return do_bench(fn, warmup=50, rep=300, return_mode="median")


def emit(**kw):
    print(json.dumps(kw), flush=True)


n = 1 << 30
x = torch.empty(n, dtype=torch.uint8, device=dev).random_(0, 255)
y = torch.empty_like(x)
emit(kind="copy", ms=bench(lambda: y.copy_(x)), GBps=2 * n / bench(lambda: y.copy_(x)) / 1e6)
del x, y


def vadd(a, b):
    return a + b


def softmax(x):
    return torch.softmax(x, dim=-1)


def rmsnorm_silu(x, w):
    return F.silu(F.rms_norm(x, (x.shape[-1],), w, 1e-6))


cases = [
    ("vector_add", vadd, lambda: (torch.randn(1 << 28, dtype=torch.float16, device=dev),
                                  torch.randn(1 << 28, dtype=torch.float16, device=dev)),
     3 * (1 << 28) * 2),
    ("softmax", softmax, lambda: (torch.randn(32768, 4096, dtype=torch.float16, device=dev),),
     2 * 32768 * 4096 * 2),
    ("rmsnorm_silu", rmsnorm_silu,
     lambda: (torch.randn(32768, 4096, dtype=torch.float16, device=dev),
              torch.rand(4096, dtype=torch.float16, device=dev) + 0.5),
     (2 * 32768 * 4096 + 4096) * 2),
]
for name, fn, make, nbytes in cases:
    args = make()
    eager = bench(lambda: fn(*args))
    compiled_fn = torch.compile(fn)
    compiled_fn(*args)
    compiled = bench(lambda: compiled_fn(*args))
    emit(kind="torch", kernel=name, eager_ms=eager, compile_ms=compiled,
         eager_GBps=nbytes / eager / 1e6, compile_GBps=nbytes / compiled / 1e6)
