"""Random valid TileLang kernels for fuzzing tilec's whole pipeline.

    kernelgen.py SEED [--target sm_90a]   prints one kernel (.tile) to stdout
    kernelgen.py SEED --spec              prints its spec (JSON) instead

`generate(seed)` returns a spec: the .tile source, the tensors (name, shape,
dtype, whether the kernel writes it) and a float64 reference as Python
source (`def reference(inputs)` over float64 / int64 numpy arrays, returning the outputs by
name) with tolerances. The same seed always gives the same kernel. Every
kernel is meant to be valid: tilec must compile it, ptxas must assemble it
(tools/tilec-fuzz/pipeline.py), and on a GPU it must compute the reference
(bench/debug/fuzz_gpu_check.py).

Families: elementwise expression trees (on global memory, or through
shared / fragment tiles with T.copy, partial edge tiles included), tile
transposes, reductions along either dimension (sum / max / min / absmax,
one tile or accumulated over a T.serial / T.Pipelined loop with
clear=False), GEMM tiles (f16 / bf16 into f32, transpose_A / transpose_B,
T.Pipelined with 0-3 stages, an elementwise epilogue) and per-thread
T.serial / T.unroll loops.
"""
import json
import random
import sys
import zlib

FLOAT_DTYPES = ["float16", "bfloat16", "float32"]
EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23,
       "float64": 2.0 ** -52}


class Expr:
    """A random expression tree, rendered as .tile source and as numpy."""

    def __init__(self, rng, leaves, depth, exp2=True):
        self.rng = rng
        self.leaves = leaves
        self.ops = ["+", "-", "*", "max", "min", "abs", "neg"] + (["exp2"] if exp2 else [])
        self.tile, self.numpy = self._gen(depth)

    def _gen(self, depth):
        rng = self.rng
        if depth == 0 or rng.random() < 0.25:
            r = rng.random()
            if r < 0.8:
                name = rng.choice(self.leaves)
                return name, name
            c = rng.choice([0.5, 2.0, -1.5, 0.25, 3.0])
            return repr(c), repr(c)
        op = rng.choice(self.ops)
        if op in ("+", "-", "*"):
            (la, lt), (ra, rt) = self._gen(depth - 1), self._gen(depth - 1)
            return f"({la} {op} {ra})", f"({lt} {op} {rt})"
        if op in ("max", "min"):
            (la, lt), (ra, rt) = self._gen(depth - 1), self._gen(depth - 1)
            return f"T.{op}({la}, {ra})", f"np.{op}imum({lt}, {rt})"
        if op == "abs":
            a, t = self._gen(depth - 1)
            return f"T.abs({a})", f"np.abs({t})"
        if op == "neg":
            a, t = self._gen(depth - 1)
            return f"(-{a})", f"(-{t})"
        # exp2 of a leaf only, so values stay small.
        name = rng.choice(self.leaves)
        return f"T.exp2({name})", f"np.exp2({name})"


def _blocks(rng, extent_choices):
    return rng.choice(extent_choices)


def _dims(rng, block, partial):
    """A tensor extent for tiles of `block`: whole tiles, or a partial last
    one when `partial`."""
    n = block * rng.randint(1, 4)
    if partial:
        n -= rng.randint(1, block - 1) if block > 1 else 0
    return max(n, 1)


HEADER = "import tilelang\nimport tilelang.language as T\n\n\n"


def _dynamic_m(name):
    """The T.dynamic declaration of M: every other kernel (by its name, so
    that no random draw shifts the kernels of later seeds) makes it a 64-bit
    size, whose kernel is 64-bit (docs/language.md 5.3)."""
    wide = zlib.crc32(name.encode()) % 2 == 0
    return '    M = T.dynamic("m", "int64")\n' if wide else '    M = T.dynamic("m")\n'


def _spec(name, source, tensors, reference, tol):
    # `dynamic`: M is a T.dynamic size (the GPU check launches static
    # kernels only; the shapes give the M the reference uses).
    return {"name": name, "source": source, "tensors": tensors,
            "reference": reference, "tol": tol, "dynamic": False}


def gen_elementwise(rng, name):
    path = rng.choice(["global", "shared", "fragment"])
    dt = rng.choice(FLOAT_DTYPES)
    odt = rng.choice([dt, "float32"])
    if path == "global":
        bm = rng.choice([1, 2, 3, 4, 8, 16, 32, 64])
        bn = rng.choice([1, 5, 8, 16, 24, 32, 48, 64, 96, 128])
    else:
        # Fragments need power-of-two extents (a located error otherwise:
        # "the SIMT lowering needs power-of-two extents").
        bm = rng.choice([1, 2, 4, 8, 16, 32, 64])
        bn = rng.choice([1, 8, 16, 32, 64, 128])
    threads = rng.choice([32, 64, 128, 256])
    partial = path != "global" and rng.random() < 0.4
    M, N = _dims(rng, bm, partial), _dims(rng, bn, partial)
    expr = Expr(rng, ["a", "b"], rng.randint(1, 3))
    tile_expr = expr.tile
    if path == "global":
        a, b = "A[by * block_M + i, bx * block_N + j]", "B[by * block_M + i, bx * block_N + j]"
        body = (f"            for i, j in T.Parallel(block_M, block_N):\n"
                f"                a = {a}\n                b = {b}\n"
                f"                C[by * block_M + i, bx * block_N + j] = {tile_expr}\n")
    else:
        alloc = "T.alloc_shared" if path == "shared" else "T.alloc_fragment"
        body = (f"            A_t = {alloc}((block_M, block_N), \"{dt}\")\n"
                f"            B_t = {alloc}((block_M, block_N), \"{dt}\")\n"
                f"            C_t = T.alloc_fragment((block_M, block_N), \"{odt}\")\n"
                f"            T.copy(A[by * block_M:(by + 1) * block_M, bx * block_N:(bx + 1) * block_N], A_t)\n"
                f"            T.copy(B[by * block_M:(by + 1) * block_M, bx * block_N:(bx + 1) * block_N], B_t)\n"
                f"            for i, j in T.Parallel(block_M, block_N):\n"
                f"                a = A_t[i, j]\n                b = B_t[i, j]\n"
                f"                C_t[i, j] = {tile_expr}\n"
                f"            T.copy(C_t, C[by * block_M:(by + 1) * block_M, bx * block_N:(bx + 1) * block_N])\n")
    dynamic = path != "global" and rng.random() < 0.2
    src = HEADER + (
        f"@tilelang.jit\n"
        + (f"def {name}(N={N}, block_M={bm}, block_N={bn}, threads={threads}):\n"
           + _dynamic_m(name) if dynamic else
           f"def {name}(M={M}, N={N}, block_M={bm}, block_N={bn}, threads={threads}):\n") +
        f"    @T.prim_func\n"
        f"    def main(A: T.Tensor((M, N), \"{dt}\"), B: T.Tensor((M, N), \"{dt}\"),\n"
        f"             C: T.Tensor((M, N), \"{odt}\")):\n"
        f"        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):\n"
        + body + "\n    return main\n")
    ref = ("def reference(inputs):\n"
           "    a, b = inputs['A'], inputs['B']\n"
           f"    return {{'C': np.broadcast_to(np.asarray({expr.numpy}, dtype=np.float64), a.shape)}}\n")
    # Each op may round to the input dtype; values stay within ~10.
    worst = dt if EPS[dt] > EPS[odt] else odt
    tol = {"atol": 32 * EPS[worst], "rtol": 16 * EPS[worst]}
    spec = _spec(name, src, [
        {"name": "A", "shape": [M, N], "dtype": dt, "output": False},
        {"name": "B", "shape": [M, N], "dtype": dt, "output": False},
        {"name": "C", "shape": [M, N], "dtype": odt, "output": True},
    ], ref, tol)
    spec["dynamic"] = dynamic
    return spec


def gen_transpose(rng, name):
    dt = rng.choice(FLOAT_DTYPES + ["int32"])
    bm, bn = rng.choice([16, 32, 64]), rng.choice([16, 32, 64])
    threads = rng.choice([64, 128, 256])
    partial = rng.random() < 0.4
    M, N = _dims(rng, bm, partial), _dims(rng, bn, partial)
    src = HEADER + (
        f"@tilelang.jit\n"
        f"def {name}(M={M}, N={N}, block_M={bm}, block_N={bn}, threads={threads}):\n"
        f"    @T.prim_func\n"
        f"    def main(A: T.Tensor((M, N), \"{dt}\"), C: T.Tensor((N, M), \"{dt}\")):\n"
        f"        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):\n"
        f"            A_s = T.alloc_shared((block_M, block_N), \"{dt}\")\n"
        f"            C_s = T.alloc_shared((block_N, block_M), \"{dt}\")\n"
        f"            T.copy(A[by * block_M:(by + 1) * block_M, bx * block_N:(bx + 1) * block_N], A_s)\n"
        f"            for j, i in T.Parallel(block_N, block_M):\n"
        f"                C_s[j, i] = A_s[i, j]\n"
        f"            T.copy(C_s, C[bx * block_N:(bx + 1) * block_N, by * block_M:(by + 1) * block_M])\n"
        "\n    return main\n")
    ref = "def reference(inputs):\n    return {'C': inputs['A'].T}\n"
    return _spec(name, src, [
        {"name": "A", "shape": [M, N], "dtype": dt, "output": False},
        {"name": "C", "shape": [N, M], "dtype": dt, "output": True},
    ], ref, {"atol": 0.0, "rtol": 0.0})


def gen_reduce(rng, name):
    dt = rng.choice(FLOAT_DTYPES)
    op = rng.choice(["sum", "max", "min", "absmax"])
    dim = rng.choice([0, 1])
    threads = rng.choice([64, 128, 256])
    bm, bn = rng.choice([16, 32, 64]), rng.choice([16, 32, 64, 128])
    loop = rng.choice(["none", "serial", "pipelined"])
    # The reduced dimension: one tile (none) or several accumulated.
    chunks = 1 if loop == "none" else rng.randint(2, 4)
    if dim == 1:
        M, N = bm * rng.randint(1, 3), bn * chunks
        grid, out_shape = "T.ceildiv(M, block_M)", [M]
        tile = ("by * block_M:(by + 1) * block_M", "ko * block_N:(ko + 1) * block_N")
        out_len, out_slice = "block_M", "by * block_M:(by + 1) * block_M"
    else:
        M, N = bm * chunks, bn * rng.randint(1, 3)
        grid, out_shape = "T.ceildiv(N, block_N)", [N]
        tile = ("ko * block_M:(ko + 1) * block_M", "by * block_N:(by + 1) * block_N")
        out_len, out_slice = "block_N", "by * block_N:(by + 1) * block_N"
    init = {"sum": "0", "max": "-T.infinity(\"float32\")", "min": "T.infinity(\"float32\")",
            "absmax": "0"}[op]
    if loop == "none":
        head = "            ko = 0\n"
        indent = "            "
    elif loop == "serial":
        head = f"            for ko in T.serial({chunks}):\n"
        indent = "                "
    else:
        head = f"            for ko in T.Pipelined({chunks}, num_stages={rng.randint(0, 2)}):\n"
        indent = "                "
    # Reduce the fragment copy, or the shared tile itself.
    # (Input and output dtypes must agree: the shared tile only for f32.)
    source = rng.choice(["A_f", "A_s"]) if dt == "float32" else "A_f"
    body = (f"{indent}T.copy(A[{tile[0]}, {tile[1]}], A_s)\n"
            + (f"{indent}T.copy(A_s, A_f)\n" if source == "A_f" else "")
            + f"{indent}T.reduce_{op}({source}, R_f, dim={dim}, clear=False)\n")
    src = HEADER + (
        f"@tilelang.jit\n"
        f"def {name}(M={M}, N={N}, block_M={bm}, block_N={bn}, threads={threads}):\n"
        f"    @T.prim_func\n"
        f"    def main(A: T.Tensor((M, N), \"{dt}\"), R: T.Tensor(({out_shape[0]},), \"float32\")):\n"
        f"        with T.Kernel({grid}, threads=threads) as by:\n"
        f"            A_s = T.alloc_shared((block_M, block_N), \"{dt}\")\n"
        f"            A_f = T.alloc_fragment((block_M, block_N), \"float32\")\n"
        f"            R_f = T.alloc_fragment(({out_len},), \"float32\")\n"
        f"            T.fill(R_f, {init})\n"
        + head + body +
        f"            T.copy(R_f, R[{out_slice}])\n"
        "\n    return main\n")
    numpy_op = {"sum": "a.sum(axis={d})", "max": "a.max(axis={d})", "min": "a.min(axis={d})",
                "absmax": "np.abs(a).max(axis={d})"}[op].format(d=dim)
    ref = f"def reference(inputs):\n    a = inputs['A']\n    return {{'R': {numpy_op}}}\n"
    extent = N if dim == 1 else M
    tol = {"atol": 4 * extent * EPS["float32"], "rtol": 1e-5} if op == "sum" else {"atol": 0.0, "rtol": 0.0}
    return _spec(name, src, [
        {"name": "A", "shape": [M, N], "dtype": dt, "output": False},
        {"name": "R", "shape": out_shape, "dtype": "float32", "output": True},
    ], ref, tol)


def gen_gemm(rng, name, target):
    dt = rng.choice(["float16", "bfloat16"])
    odt = rng.choice(["float32", dt])
    bm, bn = rng.choice([16, 32, 64, 128]), rng.choice([16, 32, 64, 128])
    bk = rng.choice([16, 32, 64])
    # Each warp needs at least one m16n8 tile of the block.
    threads = rng.choice([t for t in (32, 64, 128, 256)
                          if t // 32 <= (bm // 16) * (bn // 8)])
    ta, tb = rng.random() < 0.25, rng.random() < 0.5
    stages = rng.randint(0, 3)
    policy = rng.choice(["", "", ", policy=T.GemmWarpPolicy.FullRow",
                         ", policy=T.GemmWarpPolicy.FullCol", ", policy=T.GemmWarpPolicy.Square"])
    partial = rng.random() < 0.3
    M, N = _dims(rng, bm, partial), _dims(rng, bn, partial)
    K = bk * rng.randint(1, 4)
    a_shape, a_tile, a_s = (("K", "M"), "ko * block_K:(ko + 1) * block_K, by * block_M:(by + 1) * block_M",
                            "(block_K, block_M)") if ta else \
        (("M", "K"), "by * block_M:(by + 1) * block_M, ko * block_K:(ko + 1) * block_K", "(block_M, block_K)")
    b_shape, b_tile, b_s = (("N", "K"), "bx * block_N:(bx + 1) * block_N, ko * block_K:(ko + 1) * block_K",
                            "(block_N, block_K)") if tb else \
        (("K", "N"), "ko * block_K:(ko + 1) * block_K, bx * block_N:(bx + 1) * block_N", "(block_K, block_N)")
    epilogue = ""
    eref = "c"
    if rng.random() < 0.5:
        # No exp2: of a K-long sum it could pass the f16 range.
        e = Expr(rng, ["c"], rng.randint(1, 2), exp2=False)
        # Keep to ops that do not grow the K-sized sums much.
        epilogue = (f"            for i, j in T.Parallel(block_M, block_N):\n"
                    f"                c = C_f[i, j]\n"
                    f"                C_f[i, j] = {e.tile}\n")
        eref = e.numpy
    dynamic = rng.random() < 0.2
    src = HEADER + (
        f"@tilelang.jit\n"
        + (f"def {name}(N={N}, K={K}, block_M={bm}, block_N={bn}, block_K={bk}, threads={threads}):\n"
           + _dynamic_m(name) if dynamic else
           f"def {name}(M={M}, N={N}, K={K}, block_M={bm}, block_N={bn}, block_K={bk}, threads={threads}):\n") +
        f"    @T.prim_func\n"
        f"    def main(A: T.Tensor(({a_shape[0]}, {a_shape[1]}), \"{dt}\"),\n"
        f"             B: T.Tensor(({b_shape[0]}, {b_shape[1]}), \"{dt}\"),\n"
        f"             C: T.Tensor((M, N), \"{odt}\")):\n"
        f"        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):\n"
        f"            A_s = T.alloc_shared({a_s}, \"{dt}\")\n"
        f"            B_s = T.alloc_shared({b_s}, \"{dt}\")\n"
        f"            C_f = T.alloc_fragment((block_M, block_N), \"float32\")\n"
        f"            T.clear(C_f)\n"
        f"            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages={stages}):\n"
        f"                T.copy(A[{a_tile}], A_s)\n"
        f"                T.copy(B[{b_tile}], B_s)\n"
        f"                T.gemm(A_s, B_s, C_f, transpose_A={ta}, transpose_B={tb}{policy})\n"
        + epilogue +
        f"            T.copy(C_f, C[by * block_M:(by + 1) * block_M, bx * block_N:(bx + 1) * block_N])\n"
        "\n    return main\n")
    ref = ("def reference(inputs):\n"
           f"    a = inputs['A']{'.T' if ta else ''}\n"
           f"    b = inputs['B']{'.T' if tb else ''}\n"
           "    c = a @ b\n"
           f"    return {{'C': np.broadcast_to(np.asarray({eref}, dtype=np.float64), c.shape)}}\n")
    # f32 accumulation of K products of |x| <= 1 (the final rounding to a
    # narrow output is added by the checker, relative to the value).
    tol = {"atol": 2e-4, "rtol": 1e-4}
    spec = _spec(name, src, [
        {"name": "A", "shape": [K, M] if ta else [M, K], "dtype": dt, "output": False},
        {"name": "B", "shape": [N, K] if tb else [K, N], "dtype": dt, "output": False},
        {"name": "C", "shape": [M, N], "dtype": odt, "output": True},
    ], ref, tol)
    spec["dynamic"] = dynamic
    return spec


def gen_thread_loop(rng, name):
    dt = rng.choice(FLOAT_DTYPES)
    threads = rng.choice([32, 64, 128])
    M = threads * rng.randint(1, 3) - (rng.randint(0, threads - 1) if rng.random() < 0.5 else 0)
    N = rng.choice([1, 3, 8, 17, 64])
    kind = rng.choice(["serial", "unroll", "vectorized"])
    w = rng.choice([0.5, 1.0, -2.0])
    src = HEADER + (
        f"@tilelang.jit\n"
        f"def {name}(M={M}, N={N}, threads={threads}):\n"
        f"    @T.prim_func\n"
        f"    def main(A: T.Tensor((M, N), \"{dt}\"), O: T.Tensor((M,), \"float32\")):\n"
        f"        with T.Kernel(T.ceildiv(M, threads), threads=threads) as bx:\n"
        f"            tx = T.get_thread_binding()\n"
        f"            row = bx * threads + tx\n"
        f"            acc = T.alloc_local((1,), \"float32\")\n"
        f"            acc[0] = 0\n"
        f"            if row < M:\n"
        f"                for j in T.{kind}(N):\n"
        f"                    acc[0] += T.cast(A[row, j], \"float32\") * {w}\n"
        f"                O[row] = acc[0]\n"
        "\n    return main\n")
    ref = f"def reference(inputs):\n    return {{'O': inputs['A'].sum(axis=1) * {w}}}\n"
    return _spec(name, src, [
        {"name": "A", "shape": [M, N], "dtype": dt, "output": False},
        {"name": "O", "shape": [M], "dtype": "float32", "output": True},
    ], ref, {"atol": 128 * N * EPS["float32"], "rtol": 1e-5})


class IntExpr:
    """A random int32 expression (values stay far from overflow)."""

    def __init__(self, rng, leaves, depth):
        self.rng, self.leaves = rng, leaves
        self.tile, self.numpy = self._gen(depth)

    def _gen(self, depth):
        rng = self.rng
        if depth == 0 or rng.random() < 0.25:
            if rng.random() < 0.8:
                name = rng.choice(self.leaves)
                return name, name
            c = rng.choice([1, 2, 3, 7, -5])
            return str(c), str(c)
        op = rng.choice(["+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>", "max", "min"])
        (la, lt) = self._gen(depth - 1)
        if op in ("//", "%"):
            c = rng.choice([1, 3, 4, 16])
            fn = "np.floor_divide({}, {})" if op == "//" else "np.remainder({}, {})"
            return f"({la} {op} {c})", fn.format(lt, c)
        if op in ("<<", ">>"):
            c = rng.randint(0, 4)
            fn = "np.left_shift" if op == "<<" else "np.right_shift"
            return f"({la} {op} {c})", f"{fn}({lt}, {c})"
        if op == "*":
            # Products of products could overflow int32: one side a constant.
            c = rng.choice([2, 3, -1])
            return f"({la} * {c})", f"({lt} * {c})"
        (ra, rt) = self._gen(depth - 1)
        if op in ("max", "min"):
            return f"T.{op}({la}, {ra})", f"np.{op}imum({lt}, {rt})"
        if op in ("&", "|", "^"):
            # Parenthesized: numpy's operators keep Python's precedence, in
            # which `x + y & z` is `(x + y) & z`.
            return f"({la} {op} {ra})", f"(np.asarray({lt}) {op} np.asarray({rt}))"
        return f"({la} {op} {ra})", f"({lt} {op} {rt})"


def gen_int_elementwise(rng, name):
    bm, bn = rng.choice([1, 4, 16, 32]), rng.choice([8, 32, 64, 128])
    threads = rng.choice([32, 128, 256])
    M, N = bm * rng.randint(1, 3), bn * rng.randint(1, 3)
    expr = IntExpr(rng, ["a", "b"], rng.randint(1, 3))
    src = HEADER + (
        f"@tilelang.jit\n"
        f"def {name}(M={M}, N={N}, block_M={bm}, block_N={bn}, threads={threads}):\n"
        f"    @T.prim_func\n"
        f"    def main(A: T.Tensor((M, N), \"int32\"), B: T.Tensor((M, N), \"int32\"),\n"
        f"             C: T.Tensor((M, N), \"int32\")):\n"
        f"        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):\n"
        f"            for i, j in T.Parallel(block_M, block_N):\n"
        f"                a = A[by * block_M + i, bx * block_N + j]\n"
        f"                b = B[by * block_M + i, bx * block_N + j]\n"
        f"                C[by * block_M + i, bx * block_N + j] = {expr.tile}\n"
        "\n    return main\n")
    ref = ("def reference(inputs):\n"
           "    a, b = inputs['A'], inputs['B']\n"
           f"    return {{'C': np.broadcast_to(np.asarray({expr.numpy}, dtype=np.int64), a.shape)}}\n")
    return _spec(name, src, [
        {"name": "A", "shape": [M, N], "dtype": "int32", "output": False},
        {"name": "B", "shape": [M, N], "dtype": "int32", "output": False},
        {"name": "C", "shape": [M, N], "dtype": "int32", "output": True},
    ], ref, {"atol": 0.0, "rtol": 0.0})


def gen_scan(rng, name):
    dt = "float32"
    op = rng.choice(["cumsum", "cummax"])
    scope = rng.choice(["shared", "fragment"])
    dim = rng.choice([0, 1])
    reverse = rng.random() < 0.3
    bm, bn = rng.choice([16, 32, 64]), rng.choice([16, 32, 64])
    threads = rng.choice([64, 128, 256])
    M, N = bm * rng.randint(1, 3), bn * rng.randint(1, 3)
    alloc = "T.alloc_shared" if scope == "shared" else "T.alloc_fragment"
    src = HEADER + (
        f"@tilelang.jit\n"
        f"def {name}(M={M}, N={N}, block_M={bm}, block_N={bn}, threads={threads}):\n"
        f"    @T.prim_func\n"
        f"    def main(A: T.Tensor((M, N), \"{dt}\"), B: T.Tensor((M, N), \"{dt}\")):\n"
        f"        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):\n"
        f"            A_t = {alloc}((block_M, block_N), \"{dt}\")\n"
        f"            T.copy(A[by * block_M:(by + 1) * block_M, bx * block_N:(bx + 1) * block_N], A_t)\n"
        f"            T.{op}(src=A_t, dim={dim}, reverse={reverse})\n"
        f"            T.copy(A_t, B[by * block_M:(by + 1) * block_M, bx * block_N:(bx + 1) * block_N])\n"
        "\n    return main\n")
    fn = "np.cumsum(t, axis={d})" if op == "cumsum" else "np.maximum.accumulate(t, axis={d})"
    ref = ("def reference(inputs):\n"
           "    a = inputs['A']\n"
           "    out = np.empty_like(a)\n"
           f"    for i in range(0, {M}, {bm}):\n"
           f"        for j in range(0, {N}, {bn}):\n"
           f"            t = a[i:i + {bm}, j:j + {bn}]\n"
           + (f"            t = np.flip(t, axis={dim})\n" if reverse else "")
           + f"            t = {fn.format(d=dim)}\n"
           + (f"            t = np.flip(t, axis={dim})\n" if reverse else "")
           + f"            out[i:i + {bm}, j:j + {bn}] = t\n"
           "    return {'B': out}\n")
    extent = bm if dim == 0 else bn
    tol = {"atol": 4 * extent * EPS["float32"], "rtol": 1e-5} if op == "cumsum" else {"atol": 0.0, "rtol": 0.0}
    return _spec(name, src, [
        {"name": "A", "shape": [M, N], "dtype": dt, "output": False},
        {"name": "B", "shape": [M, N], "dtype": dt, "output": True},
    ], ref, tol)


FAMILIES = [("elementwise", 3), ("int_elementwise", 1), ("transpose", 1), ("reduce", 2),
            ("scan", 1), ("gemm", 3), ("thread_loop", 1)]



def generate(seed, target="sm_90a"):
    rng = random.Random(seed)
    family = rng.choices([f for f, _ in FAMILIES], weights=[w for _, w in FAMILIES])[0]
    name = f"k{seed}_{family}"
    if family == "elementwise":
        return gen_elementwise(rng, name)
    if family == "transpose":
        return gen_transpose(rng, name)
    if family == "reduce":
        return gen_reduce(rng, name)
    if family == "gemm":
        return gen_gemm(rng, name, target)
    if family == "int_elementwise":
        return gen_int_elementwise(rng, name)
    if family == "scan":
        return gen_scan(rng, name)
    return gen_thread_loop(rng, name)


if __name__ == "__main__":
    seed = int(sys.argv[1])
    spec = generate(seed)
    if "--spec" in sys.argv:
        print(json.dumps(spec, indent=1))
    else:
        sys.stdout.write(spec["source"])
