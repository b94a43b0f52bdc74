"""Times the same operations with PyTorch eager and torch.compile (and
FlashAttention with scaled_dot_product_attention), and the device-to-device
copy bandwidth, on the same GPU in the same run. Prints JSON lines
(median of device events via triton.testing.do_bench)."""
import json
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
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


# FlashAttention: torch's scaled_dot_product_attention on the harness's
# shapes, with the backend torch picks by default, plus each backend forced
# (None where it rejects the shape). Q, K, V are stored (batch, seq, heads,
# dim) like tilec's kernel and passed as (batch, heads, seq, dim) views of
# that memory (transpose(1, 2), no copy), so both read the same layout.
attention = [  # harness name, batch, heads, seq_len, dim, causal
    ("flash_attention_512", 1, 4, 512, 128, False),
    ("flash_attention_512_causal", 1, 4, 512, 128, True),
    ("flash_attention_odd", 2, 3, 1000, 128, False),
    ("flash_attention_odd_causal", 2, 3, 1000, 128, True),
    ("flash_attention_d64", 2, 3, 512, 64, False),
    ("flash_attention_d64_causal", 2, 3, 512, 64, True),
    ("flash_attention_4096", 8, 32, 4096, 128, False),
    ("flash_attention_4096_causal", 8, 32, 4096, 128, True),
]
backends = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION}
for name, b, h, s, d, causal in attention:
    q, k, v = (torch.randn(b, s, h, d, dtype=torch.float16, device=dev).transpose(1, 2)
               for _ in range(3))
    flops = 4 * b * h * s * s * d / (2 if causal else 1)

    def sdpa():
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

    ms = bench(sdpa)
    forced = {}
    for label, backend in backends.items():
        try:
            with sdpa_kernel(backend):
                sdpa()
                forced[label] = bench(sdpa)
        except RuntimeError:
            forced[label] = None
    emit(kind="sdpa", kernel=name, size=f"{b}x{h}x{s}x{d} fp16", causal=causal,
         sdpa_ms=ms, sdpa_TFLOPs=flops / ms / 1e9,
         **{f"{label}_ms": t for label, t in forced.items()})
    del q, k, v
