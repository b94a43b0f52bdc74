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
            values = []
            for arg in kernel["args"]:
                value = args[arg["param"]]
                if isinstance(value, torch.Tensor):
                    values.append(ctypes.c_void_p(value.data_ptr()))
                else:
                    values.append(ctypes.c_int32(int(value)))
            pointers = (ctypes.c_void_p * len(values))(
                *[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in values])
            grid = [int(g) for g in kernel["grid"]]
            block = kernel["block"]
            _check(_cuda.cuLaunchKernel(handle, *grid, *block, shared, None, pointers, None),
                   "cuLaunchKernel")
        torch.cuda.synchronize()
