"""Launches tilec-compiled kernels from Python on torch tensors.

Reads a PTX image and the metadata JSON that `tilec --json` writes (the
parameter order, grid, block and dynamic shared memory of every kernel of
every function), loads the PTX through the CUDA driver API (ctypes on
libcuda) in torch's primary context, and launches with tensors' device
pointers. For checking pieces of kernels against torch on the GPU machine
without writing C++ (bench/debug/); the C++ launch headers stay the
product. Static instances only (grid entries must be integers).
"""
import ctypes
import json

import torch

_cuda = ctypes.CDLL("libcuda.so.1")
_MAX_DYNAMIC_SHARED = 8  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES


def _check(status, what):
    if status != 0:
        name = ctypes.c_char_p()
        _cuda.cuGetErrorName(status, ctypes.byref(name))
        raise RuntimeError(f"{what}: {name.value.decode() if name.value else status}")


# CUtensorMapDataType, CUtensorMapSwizzle, CUtensorMapL2promotion (cuda.h).
_TMA_DTYPE = {torch.float16: 6, torch.float32: 7, torch.float64: 8,
              torch.bfloat16: 9, torch.int32: 3, torch.int64: 5, torch.uint8: 0,
              torch.int8: 0, torch.float8_e4m3fn: 0, torch.float8_e5m2: 0}
_TMA_SWIZZLE = {"none": 0, "32b": 1, "64b": 2, "128b": 3}
_TMA_L2 = {"none": 0, "64b": 1, "128b": 2, "256b": 3}


class TensorMap:
    """A CUtensorMap (128 bytes, 64-byte aligned) for `tensor` as the
    metadata's `tensor_map` entry describes it (dims and strides default to
    the tensor's own, innermost first)."""

    def __init__(self, tensor, desc):
        self._raw = ctypes.create_string_buffer(128 + 64)
        base = ctypes.addressof(self._raw)
        self.address = (base + 63) // 64 * 64
        rank = tensor.dim()
        dims = [tensor.shape[d] for d in reversed(range(rank))]
        strides = [tensor.stride(d) * tensor.element_size() for d in reversed(range(rank))][1:]
        box = desc["box_dims"]
        elem = desc.get("element_strides") or [1] * rank
        u64, u32 = ctypes.c_uint64, ctypes.c_uint32
        status = _cuda.cuTensorMapEncodeTiled(
            ctypes.c_void_p(self.address), ctypes.c_int(_TMA_DTYPE[tensor.dtype]), u32(rank),
            ctypes.c_void_p(tensor.data_ptr()), (u64 * rank)(*dims),
            (u64 * max(1, rank - 1))(*strides) if rank > 1 else None,
            (u32 * rank)(*box), (u32 * rank)(*elem), ctypes.c_int(0),
            ctypes.c_int(_TMA_SWIZZLE[desc.get("swizzle", "none")]),
            ctypes.c_int(_TMA_L2[desc.get("l2_promotion", "128b")]),
            ctypes.c_int(1 if desc.get("oob_fill") == "nan" else 0))
        _check(status, "cuTensorMapEncodeTiled")

    def pointer(self):
        return ctypes.c_void_p(self.address)


_SCALAR_CTYPES = {"int8": ctypes.c_int8, "int16": ctypes.c_int16, "int32": ctypes.c_int32,
                  "int64": ctypes.c_int64, "uint8": ctypes.c_uint8, "uint16": ctypes.c_uint16,
                  "uint32": ctypes.c_uint32, "uint64": ctypes.c_uint64, "float32": ctypes.c_float,
                  "float64": ctypes.c_double}


def scalar_arg(value, dtype):
    """A scalar kernel argument of the metadata's dtype (a T.dynamic symbol
    is int32 unless declared T.dynamic(name, "int64"))."""
    ctype = _SCALAR_CTYPES.get(dtype or "int32")
    if ctype is None:
        raise TypeError(f"scalar argument of dtype {dtype}: not supported by this launcher")
    return ctype(float(value) if dtype in ("float32", "float64") else int(value))


def pointer_table(value, param):
    """The device table a `T.Tensor([n], T.ptr)` parameter (metadata dtype
    "ptr") takes: an int64 (or uint64) CUDA tensor of n data_ptr()s, as
    TileLang's callers pass it, or a list of n CUDA tensors, whose
    addresses are gathered into such a tensor here."""
    shape = param.get("shape") or [None]
    n = int(shape[0]) if str(shape[0]).isdigit() else None  # a T.dynamic size: unchecked
    if isinstance(value, (list, tuple)):
        if not all(isinstance(t, torch.Tensor) and t.is_cuda for t in value):
            raise TypeError(f"`{param['name']}`: a list of CUDA tensors expected")
        value = torch.tensor([t.data_ptr() for t in value], dtype=torch.int64, device="cuda")
    if not isinstance(value, torch.Tensor) or not value.is_cuda or \
            value.dtype not in (torch.int64, torch.uint64) or value.dim() != 1 or \
            not value.is_contiguous():
        raise TypeError(f"`{param['name']}` is a T.ptr table: pass a contiguous 1-d int64 "
                        "CUDA tensor of data_ptr()s (or a list of CUDA tensors)")
    if n is not None and value.numel() != n:
        raise TypeError(f"`{param['name']}` holds {n} pointers, got {value.numel()}")
    return value


def kernel_arg_values(kernel, args, params=None):
    """The argument pointers cuLaunchKernel takes for `kernel` called with
    `args` (in the function's parameter order), and the objects they point
    into, which must outlive the launch. `params` (the function's metadata
    parameters) gives scalars their dtype; without it they are int32. A
    T.ptr table parameter takes an int64 CUDA tensor of data_ptr()s or a
    list of CUDA tensors (pointer_table)."""
    keep, ptrs = [], []
    for arg in kernel["args"]:
        if arg.get("kind") == "tensor_map":
            tmap = TensorMap(args[arg["tensor_map"]["tensor"]], arg["tensor_map"])
            keep.append(tmap)
            ptrs.append(tmap.address)
            continue
        value = args[arg["param"]]
        if params and params[arg["param"]].get("dtype") == "ptr":
            value = pointer_table(value, params[arg["param"]])
            keep.append(value)
        if isinstance(value, torch.Tensor):
            v = ctypes.c_void_p(value.data_ptr())
        else:
            v = scalar_arg(value, params[arg["param"]].get("dtype") if params else None)
        keep.append(v)
        ptrs.append(ctypes.cast(ctypes.byref(v), ctypes.c_void_p).value)
    return (ctypes.c_void_p * len(ptrs))(*ptrs), keep


def launch_grid(kernel, grid):
    """The grid to launch `kernel` with: its own, or for a persistent kernel
    (metadata `persistent_blocks_per_sm`; it walks its grid's blocks itself)
    min(blocks, that many per multiprocessor) along x, as the header does."""
    per_sm = kernel.get("persistent_blocks_per_sm")
    if not per_sm:
        return grid
    sms = ctypes.c_int()
    _check(_cuda.cuDeviceGetAttribute(ctypes.byref(sms), 16, 0),  # MULTIPROCESSOR_COUNT
           "cuDeviceGetAttribute")
    return [min(grid[0] * grid[1] * grid[2], sms.value * per_sm), 1, 1]


class Module:
    def __init__(self, ptx_path, json_path):
        torch.cuda.init()
        torch.zeros(1, device="cuda")  # make the primary context current
        self.meta = json.load(open(json_path))
        image = open(ptx_path, "rb").read() + b"\0"
        self.module = ctypes.c_void_p()
        _check(_cuda.cuModuleLoadData(ctypes.byref(self.module), image), "cuModuleLoadData")
        self.functions = {f["name"]: f for f in self.meta["functions"]}

    def __call__(self, name, *args):
        fn = self.functions[name]
        if len(args) != len(fn["params"]):
            raise TypeError(f"{name} takes {len(fn['params'])} arguments")
        for kernel in fn["kernels"]:
            handle = ctypes.c_void_p()
            _check(_cuda.cuModuleGetFunction(ctypes.byref(handle), self.module,
                                             kernel["entry"].encode()), "cuModuleGetFunction")
            shared = int(kernel["dynamic_shared_bytes"])
            # Raised whenever used: static shared memory counts against the
            # same 48 KiB default limit.
            if shared > 0:
                _check(_cuda.cuFuncSetAttribute(handle, _MAX_DYNAMIC_SHARED, shared),
                       "cuFuncSetAttribute")
            pointers, keep = kernel_arg_values(kernel, args, fn["params"])
            grid = launch_grid(kernel, [int(g) for g in kernel["grid"]])
            block = kernel["block"]
            if kernel.get("cooperative"):
                # T.sync_grid: its grid barrier lives in the workspace the
                # driver sets up for a cooperative launch only.
                _check(_cuda.cuLaunchCooperativeKernel(handle, *grid, *block, shared, None,
                                                       pointers),
                       "cuLaunchCooperativeKernel")
            else:
                _check(_cuda.cuLaunchKernel(handle, *grid, *block, shared, None, pointers,
                                            None),
                       "cuLaunchKernel")
        torch.cuda.synchronize()
