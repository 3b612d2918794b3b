"""The cuBLAS runtime (backend/cuda/library.py) without a GPU: CuPy's few calls it
makes are replaced by NumPy stand-ins (test_cub_reduce.py uses them too), and the
stand-in of
`cublasGemmStridedBatchedEx` computes what cuBLAS documents (column-major
op(A) @ op(B), leading dimensions checked against cuBLAS's rules, host-pointer
alpha/beta) from raw pointers. So the row-major to column-major swap, the pointers,
offsets, leading dimensions, batch strides and loops the runtime passes are checked
against NumPy float64 in CI; test_gpu_cublas.py runs the same cases on the GPU.
"""

from __future__ import annotations

import contextlib
import ctypes
import types

import numpy as np
import pytest

from aicf.backend.cuda.library import prepare
from aicf.backend.cuda.program import lower_to_gpu
from aicf.dialects import gpu

from test_cublas_guard import CASES as GUARD_CASES
from test_cublas_guard import module_of, nest_in
from test_cublas_guard import reference as nest_reference
from test_gpu_cublas import CASES, _id, scheduled
from test_gpu_matmul import as_f64, check, make_operand, mm_program, reference

_NP = {0: np.float32, 2: np.float16, 14: np.uint16}  # CUDA_R_32F, CUDA_R_16F, CUDA_R_16BF


class _Array(np.ndarray):
    """A NumPy array that answers `.data.ptr` as a CuPy array does."""

    @property
    def data(self):  # type: ignore[override]
        return types.SimpleNamespace(ptr=self.__array_interface__["data"][0])


def _dev(x: np.ndarray) -> _Array:
    return (x.copy() if x.flags.c_contiguous else x).view(_Array)


def _matrices(ptr: int, t: int, rows: int, cols: int, ld: int, trans: int, stride: int, batch: int):
    """`batch` column-major rows x cols operands op(X) at `ptr` as float64 views."""
    dt = np.dtype(_NP[t])
    st = (stride, ld, 1) if trans else (stride, 1, ld)  # elements, for op(X)[b, r, c]
    span = stride * (batch - 1) + (rows - 1) * st[1] + (cols - 1) * st[2] + 1
    buf = np.ctypeslib.as_array((ctypes.c_byte * (span * dt.itemsize)).from_address(ptr)).view(dt)
    view = np.lib.stride_tricks.as_strided(buf, (batch, rows, cols), tuple(s * dt.itemsize for s in st))
    return view


def _to_f64(x: np.ndarray, t: int) -> np.ndarray:
    if t == 14:
        return (x.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return x.astype(np.float64)


def _from_f32(v: np.ndarray, t: int) -> np.ndarray:
    v = v.astype(np.float32)
    return (np.ascontiguousarray(v).view(np.uint32) >> 16).astype(np.uint16) if t == 14 else v.astype(_NP[t])


def _fake_cupy(calls: list):
    def gemm(h, ta, tb, m, n, k, alpha, A, At, lda, sA, B, Bt, ldb, sB, beta, C, Ct, ldc, sC, batch, compute,
             algo):  # fmt: skip
        # aicf's own handle (cublas_api) keeps cuBLAS's defaults: host pointers for
        # alpha/beta, the compute type alone decides TF32
        assert h == ("bound to", STREAM), "a handle bound to the current stream"
        assert compute in (68, 77) and algo == -1
        assert ctypes.c_float.from_address(alpha).value == 1 and ctypes.c_float.from_address(beta).value == 0
        assert lda >= max(1, k if ta else m) and ldb >= max(1, n if tb else k) and ldc >= max(1, m), "cuBLAS's ld rules"
        calls.append(dict(m=m, n=n, k=k, batch=batch))
        a = _to_f64(_matrices(A, At, m, k, lda, ta, sA, batch), At)
        b = _to_f64(_matrices(B, Bt, k, n, ldb, tb, sB, batch), Bt)
        c = _matrices(C, Ct, m, n, ldc, 0, sC, batch)
        c[...] = _from_f32(a @ b, Ct)

    # CuPy's cuBLAS binding has no gemm here: the runtime must not use it (it refuses
    # to run while a stream captures a graph)
    cublas = types.SimpleNamespace(CUBLASError=type("CUBLASError", (Exception,), {}))
    cuda = types.ModuleType("cupy.cuda")
    cuda.cublas = cublas  # type: ignore[attr-defined]
    cuda.get_current_stream = lambda: types.SimpleNamespace(ptr=STREAM)  # type: ignore[attr-defined]
    cuda.runtime = types.SimpleNamespace(CUDARuntimeError=RuntimeError)  # type: ignore[attr-defined]
    cuda.driver = types.SimpleNamespace(CUDADriverError=RuntimeError)  # type: ignore[attr-defined]
    cp = types.ModuleType("cupy")
    cp.cuda = cuda  # type: ignore[attr-defined]
    cp.ascontiguousarray = lambda a: np.ascontiguousarray(a).view(_Array)  # type: ignore[attr-defined]
    cp.empty = lambda shape, dtype: np.empty(shape, dtype).view(_Array)  # type: ignore[attr-defined]

    def reduce(fold, x, axis, out, dtype=None):
        calls.append(dict(fold=fold.__name__, axis=axis))
        r = fold(np.asarray(x, np.float64), axis=axis)
        if out is None:
            return r
        out[...] = r.astype(dtype or out.dtype)

    cp.float32 = np.float32  # type: ignore[attr-defined]  (the runtime sums f16 into f32)
    cp.sum = lambda x, axis, dtype=None, out=None: reduce(np.sum, x, axis, out, dtype)  # type: ignore[attr-defined]
    cp.amax = lambda x, axis, out=None: reduce(np.max, x, axis, out)  # type: ignore[attr-defined]
    return cp, cuda, gemm


STREAM = 0x5EA


@pytest.fixture
def cublas_calls(monkeypatch):
    from aicf.backend.cuda import cublas_api

    calls: list = []
    cp, cuda, gemm = _fake_cupy(calls)
    monkeypatch.setattr(cublas_api, "on_stream", lambda stream: ("bound to", stream))
    monkeypatch.setattr(cublas_api, "gemm_strided_batched", gemm)
    monkeypatch.setitem(__import__("sys").modules, "cupy", cp)
    monkeypatch.setitem(__import__("sys").modules, "cupy.cuda", cuda)
    return calls


def _poisoned(shape, dt):
    if dt == "f32":
        return np.full(shape, np.nan, np.float32).view(_Array)
    bits = np.full(shape, 0xFFFF, np.uint16)
    return (bits.view(np.float16) if dt == "f16" else bits).view(_Array)


SMALL = [c for c in CASES if c[0] * c[1] * c[2] <= 2**20]


@pytest.mark.parametrize("case", SMALL, ids=_id)
def test_runtime_call(case, cublas_calls):
    m, n, k, dt, a_batch, b_batch, a_t, b_t, strided = case
    text, info = mm_program(m, n, k, dt, a_batch, b_batch, a_t, b_t, strided)
    mod = lower_to_gpu(scheduled(text))
    call = prepare(next(o for o in mod.walk() if isinstance(o, gpu.LibraryCallOp)))
    rng = np.random.default_rng(m * 7 + n * 5 + k)
    a = make_operand(rng, info["a"], dt, strided[0])
    b = make_operand(rng, info["b"], dt, strided[1])
    out = _poisoned(info["c"], dt)
    call([_dev(a), _dev(b)], [out], contextlib.nullcontext())
    check(as_f64(np.asarray(out), dt), reference(a, b, info), dt)
    empty = 0 in (m, n, k, *a_batch, *b_batch)
    assert bool(cublas_calls) != empty  # k = 0 fills zeros without cuBLAS
    assert call.flops == 2 * m * n * k * int(np.prod(info["c"][:-2], dtype=np.int64))


@pytest.mark.parametrize("name", sorted(GUARD_CASES))
def test_runtime_call_hand_written_maps(name, cublas_calls):
    """The guard tests' nests (constant indices, B as the first input, ...)."""
    domain, ins, out, maps = GUARD_CASES[name]
    mod = module_of(domain, ins, out, maps)
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in ins]
    ref = nest_reference(nest_in(mod), arrays)
    text = str(mod).replace("func.func @f(", "func.func @main(")
    gpu_mod = lower_to_gpu(scheduled(text))
    call = prepare(next(o for o in gpu_mod.walk() if isinstance(o, gpu.LibraryCallOp)))
    y = _poisoned(out, "f32")
    call([_dev(a) for a in arrays], [y], contextlib.nullcontext())
    check(np.asarray(y).astype(np.float64), ref, "f32")
