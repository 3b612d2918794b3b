"""Running `aicf_gpu.library_call` ops: cuBLAS through CuPy's bindings, and CuPy's
reductions (CUB).

`prepare(op)` reads a call's parameters once and returns a `LibraryCall`, which the
program runs in order with its launches, on the program's stream:
`call(inputs, outputs, stream)` with CuPy arrays of the operands' memref types.

cublas.gemm: one `cublasGemmStridedBatchedEx` per outer batch loop iteration, on
the current stream (the call runs inside `with stream`), through cublas_api: CuPy's
binding refuses to run while a stream captures a CUDA graph. The parameters are in
row-major terms (see `gpu.LibraryCallOp`); cuBLAS is column-major, so the call
computes C^T = B^T A^T: a row-major operand is an untransposed column-major one.
Not `cupy.matmul`: it allocates its own result (the output here is a given buffer,
maybe a view with a leading dimension), copies non-contiguous operands, and follows
CuPy's global TF32 switch instead of the call's `compute` parameter.

Operands whose memref type has dynamic strides were planned as dense row-major: a
non-contiguous array there is copied to a contiguous one first (an output is
computed into a fresh buffer and copied back), which costs a copy per call.
"""

from __future__ import annotations

import itertools

import numpy as np
from xdsl.dialects.builtin import MemRefType

from aicf.dialects import gpu
from aicf.errors import LaunchError

# cuBLAS / CUDA enum values (cublas_api.h, library_types.h)
_OP_N, _OP_T = 0, 1
_CUDA_TYPE = {"f32": 0, "f16": 2, "bf16": 14}  # CUDA_R_32F, CUDA_R_16F, CUDA_R_16BF
_COMPUTE = {"f32": 68, "tf32": 77}  # CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_32F_FAST_TF32
_GEMM_DEFAULT = -1
_ONE, _ZERO = np.array(1.0, np.float32), np.array(0.0, np.float32)  # f32 scale type
# their addresses, taken once (`ndarray.ctypes` builds an object per access)
_ONE_PTR, _ZERO_PTR = _ONE.ctypes.data, _ZERO.ctypes.data


def _dynamic(t) -> bool:
    st = t.get_strides() if isinstance(t, MemRefType) else None
    return st is None or any(s is None for s in st)


class LibraryCall:
    """A prepared call: `name`, `flops` and `nbytes` for the profiler, and
    `__call__` that runs it; the routine's class says how (`_run`)."""

    dense_only: list[bool]
    # whether a CUDA graph may hold the call: it allocates nothing and synchronises
    # with nothing when its operands are dense (a graph replays the captured
    # pointers, and memory taken from the pool while capturing would be handed out
    # again after it)
    capturable = False

    def __init__(self, op: gpu.LibraryCallOp):
        self.routine = op.routine
        self.p = {k: op.param(k) for k in op.params.data}
        self.dense_only = [False] * (len(op.inputs) + len(op.outputs))
        self.name, self.flops, self.nbytes = self.routine, 0, 0

    def __call__(self, inputs, outputs, stream, sync: bool = False) -> None:
        """Run on `stream`; `sync`: wait for it, so a failure names this call."""
        import cupy as cp

        with stream:
            ins = [
                cp.ascontiguousarray(a) if dense and not a.flags.c_contiguous else a
                for a, dense in zip(inputs, self.dense_only)
            ]
            outs = [
                cp.empty(a.shape, a.dtype) if dense and not a.flags.c_contiguous else a
                for a, dense in zip(outputs, self.dense_only[len(inputs):])
            ]
            try:
                self._run(ins, outs)
                if sync:
                    stream.synchronize()
            except (LaunchError, cp.cuda.runtime.CUDARuntimeError, cp.cuda.driver.CUDADriverError) as e:
                raise LaunchError(f"library call {self.name} failed ({self.p}): {e}") from None
            for given, used in zip(outputs, outs):
                if given is not used:
                    given[...] = used

    def _run(self, ins, outs) -> None:
        raise NotImplementedError


class Gemm(LibraryCall):
    # cuBLAS supports stream capture on a handle with its own workspace (cublas_api);
    # alpha and beta are host scalars, so their values (1 and 0) are captured
    capturable = True

    def __init__(self, op: gpu.LibraryCallOp):
        super().__init__(op)
        from aicf.lowering.gpu_schedules.library_calls import gemm_bytes, gemm_flops

        p = self.p
        self.dense_only = [_dynamic(v.type) for v in (*op.inputs, *op.outputs)]
        self.flops, self.nbytes = gemm_flops(p), gemm_bytes(p)
        loops = "".join(f"{e}x" for e in p.get("loops") or [])
        batch = f"{p['batch']}x" if p["batch"] != 1 else ""
        self.name = f"{self.routine}[{loops}{batch}{p['m']}x{p['n']}x{p['k']} {p['dtype']}]"

    def _run(self, ins, outs) -> None:
        import cupy as cp

        from aicf.backend.cuda import cublas_api

        C = outs[0]
        p = self.p
        m, n, k, batch = p["m"], p["n"], p["k"], p["batch"]
        loops = p.get("loops") or []
        if 0 in (m, n, batch, *loops):
            return
        if k == 0:  # an empty sum: cuBLAS would not touch C
            C.fill(0)
            return
        A, B = ins[p["a"]], ins[p["b"]]
        stream = cp.cuda.get_current_stream()
        h = cublas_api.on_stream(stream.ptr)
        # with pad_c (one call, no loops): C's rows go to the scratch's aligned rows first
        pad = p.get("pad_c") or 0
        c_base = outs[1].data.ptr if pad else C.data.ptr
        args = self._args
        if args is None:
            args = self._args = self._static_args(A.itemsize, C.itemsize)
        gemm = cublas_api.gemm_strided_batched
        a_ptr, b_ptr = A.data.ptr, B.data.ptr
        for off_a, off_b, off_c in args[0]:
            gemm(h, *args[1], b_ptr + off_b, *args[2], a_ptr + off_a, *args[3], c_base + off_c, *args[4])
        if pad:  # the scratch's m x n corner into place: a 2D copy of rows (one graph node)
            ec = C.itemsize
            cp.cuda.runtime.memcpy2DAsync(C.data.ptr + p["offset_c"] * ec, p["ldc"] * ec, c_base, pad * ec,
                                          n * ec, m, cp.cuda.runtime.memcpyDeviceToDevice, stream.ptr)

    _args = None

    def _static_args(self, ea: int, ec: int) -> tuple:
        """What every call passes cuBLAS but the pointers: byte offsets of A, B and C per
        outer loop iteration, and the arguments around the pointers (computed at the
        first call: a call costs ~25 us of host time, bench/library_call.py)."""
        p = self.p
        pad = p.get("pad_c") or 0
        loops = p.get("loops") or []
        strides = [p.get(f"loop_stride_{x}") or [] for x in "abc"]
        offsets = []
        for idx in itertools.product(*(range(e) for e in loops)):
            off = [p[f"offset_{x}"] + sum(i * s for i, s in zip(idx, st)) for x, st in zip("abc", strides)]
            offsets.append((off[0] * ea, off[1] * ea, 0 if pad else off[2] * ec))
        head = (_OP_T if p["trans_b"] else _OP_N, _OP_T if p["trans_a"] else _OP_N, p["n"], p["m"], p["k"], _ONE_PTR)
        after_b = (_CUDA_TYPE[p["dtype"]], p["ldb"], p["stride_b"])
        after_a = (_CUDA_TYPE[p["dtype"]], p["lda"], p["stride_a"], _ZERO_PTR)
        tail = (_CUDA_TYPE[p["out_dtype"]], pad or p["ldc"], p["stride_c"], p["batch"], _COMPUTE[p["compute"]],
                _GEMM_DEFAULT)
        return tuple(offsets), head, after_b, after_a, tail


class Reduce(LibraryCall):
    """cupy.sum / cupy.max over the input's trailing axes, into the output (a view
    of it with the kept dims): CuPy's reduction, which runs CUB's segmented
    reduction where CuPy's accelerators include it (CUPY_ACCELERATORS)."""

    def __init__(self, op: gpu.LibraryCallOp):
        super().__init__(op)
        from aicf.lowering.gpu_schedules.library_calls import reduce_bytes

        p = self.p
        self.flops, self.nbytes = p["rows"] * p["cols"], reduce_bytes(p)
        self.name = f"{self.routine}[{p['op']} {p['rows']}x{p['cols']} {p['dtype']}]"

    def _run(self, ins, outs) -> None:
        import cupy as cp

        p = self.p
        x, y = ins[0], outs[0]
        if p["rows"] == 0:
            return
        if p["cols"] == 0:  # an empty fold: the combiner's identity
            y.fill(0 if p["op"] == "sum" else -np.inf)
            return
        rank = x.ndim
        axes = tuple(range(rank - p["reduce_dims"], rank))
        out = y.reshape(x.shape[: rank - p["reduce_dims"]])
        if p["op"] == "sum":
            # the nest accumulates in f32: CuPy's f16 sum into an f16 result does not
            # (measured: 13x100x100 summed to 8.5 against 7.15), so sum into f32
            if y.dtype == np.float32:
                cp.sum(x, axis=axes, dtype=np.float32, out=out)
            else:
                out[...] = cp.sum(x, axis=axes, dtype=np.float32)
        elif y.dtype == x.dtype:
            cp.amax(x, axis=axes, out=out)
        else:  # max is exact: the conversion to f32 after it loses nothing
            out[...] = cp.amax(x, axis=axes)


class FlashAttention(LibraryCall):
    """aicf's flash kernels, built once per instantiation (NVRTC through the module
    cache), one launch per call: mma.sync (backend/cuda/flash_attention.py) or, with
    `mma = "wgmma"`, the Hopper one (backend/cuda/flash_attention_wgmma.py), which
    reads Q, K and V through tensor maps encoded per call (cached per pointer)."""

    capturable = True  # one launch, nothing allocated

    def __init__(self, op: gpu.LibraryCallOp):
        super().__init__(op)
        from aicf.backend.cuda import flash_attention as fa
        from aicf.backend.cuda import flash_attention_wgmma as fw

        p = self.p
        self.wgmma = p.get("mma", "mma_sync") == "wgmma"
        kernel = fw if self.wgmma else fa
        self.source = kernel.source(p["head_dim"], p["dtype"], p["block_m"], p["block_n"], bool(p["causal"]))
        self.grid, self.block = kernel.launch(p["sq"], p["b0"] * p["b1"], p["block_m"])
        self.smem = fw.smem_bytes(p["head_dim"], p["block_m"], p["block_n"]) if self.wgmma else 0
        self.scale_log2 = np.float32(float(p["scale"]) * np.log2(np.e))
        self.ints = [np.int32(p["sq"]), np.int32(p["sk"]), np.int32(max(p["b1"], 1))]
        self.strides = [np.int64(s) for x in "qkvo" for s in p[f"{x}_strides"]]
        self.offsets = [p[f"{x}_offset"] for x in "qkvo"]
        from aicf.dialects.loop import attention_key_steps

        batch, sq, sk, d = p["b0"] * p["b1"], p["sq"], p["sk"], p["head_dim"]
        pairs = batch * attention_key_steps(sq, sk, bool(p["causal"]))
        self.flops, self.nbytes = 4 * pairs * d, 2 * batch * d * (2 * sq + 2 * sk)
        self.name = f"{self.routine}[{batch}x{sq}x{sk}x{d} {p['dtype']}{' causal' if p['causal'] else ''}]"
        self._fn = None

    def _run(self, ins, outs) -> None:
        import cupy as cp

        from aicf.backend.cuda import flash_attention as fa
        from aicf.backend.cuda import runtime as rt

        if 0 in (self.p["sq"], self.p["b0"], self.p["b1"]):
            return
        if self.wgmma:
            self._run_wgmma(ins, outs)
            return
        if self._fn is None:
            self._fn = rt.load_module(self.source).get_function(fa.ENTRY)
        ptrs = [a.data.ptr + off * a.itemsize for a, off in zip((*ins, *outs), self.offsets)]
        self._fn(self.grid, self.block, (*ptrs, *self.ints, *self.strides, self.scale_log2),
                 stream=cp.cuda.get_current_stream())

    def _run_wgmma(self, ins, outs) -> None:
        import ctypes

        import cupy as cp

        from aicf.backend.cuda import flash_attention_wgmma as fw
        from aicf.backend.cuda import runtime as rt
        from aicf.backend.cuda import tensor_maps as tm

        p = self.p
        if p["sk"] == 0:  # no key: every row is 0 (and a tensor map cannot have an empty dim)
            outs[0][...] = 0
            return
        if self._fn is None:
            self._fn = rt.load_module(self.source, fw.ARCH).get_function(fw.ENTRY)
        code = tm._BF16 if p["dtype"] == "bf16" else tm._FLOAT16
        params: list = []
        maps = []
        batch = (p["b0"], p["b1"])
        for a, x, rows, box in zip(ins, "qkv", (p["sq"], p["sk"], p["sk"]), (p["block_m"], p["block_n"], p["block_n"])):
            st = p[f"{x}_strides"]  # b0, b1, S, in elements
            # a batch dim the operand broadcasts (stride 0) is a map dim of extent 1
            ext = [b if s else 1 for b, s in zip(batch, st[:2])]
            ptr = a.data.ptr + p[f"{x}_offset"] * a.itemsize
            maps.append(tm.encode_raw(ptr, [p["head_dim"], rows, ext[1], ext[0]],
                                      [st[2] * a.itemsize, st[1] * a.itemsize, st[0] * a.itemsize],
                                      (64, box, 1, 1), code))
            params += [ctypes.c_int32(ext[0]), ctypes.c_int32(ext[1])]
        o = outs[0]
        c32, c64 = ctypes.c_int32, ctypes.c_int64
        params = [ctypes.c_void_p(o.data.ptr + p["o_offset"] * o.itemsize), c32(p["sq"]), c32(p["sk"]),
                  c32(max(p["b1"], 1)), *params, *(c64(s) for s in p["o_strides"]),
                  ctypes.c_float(self.scale_log2), *maps]  # fmt: skip
        tm.launch_params(self._fn, self.name, self.grid, self.block, self.smem, params, cp.cuda.get_current_stream())


_ROUTINES = {"cublas.gemm": Gemm, "cub.reduce": Reduce, "aicf.flash_attention": FlashAttention}


def prepare(op: gpu.LibraryCallOp) -> LibraryCall:
    if op.routine == "external":  # an admitted external kernel (backend/cuda/external.py)
        from aicf.backend.cuda.external import ExternalCall

        return ExternalCall(op)
    cls = _ROUTINES.get(op.routine)
    if cls is None:
        raise NotImplementedError(f"the cuda runtime cannot run library routine '{op.routine}'")
    return cls(op)
