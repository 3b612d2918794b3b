"""The tiled matmul schedule: correctness over random shapes, dtypes and layouts.

Three ways to run the generated kernels:
- on the GPU (`@pytest.mark.gpu`, skipped without one): through the CUDA runtime,
  outputs poisoned (NaN / 0xFFFF) before each run;
- in CI without a GPU, on the CPU: the emitted CUDA C is compiled with g++ against a
  small emulation header (a block's threads are OS threads, `__syncthreads` is a
  barrier, `__shared__` arrays are shared by the block's threads), so the schedule's
  indexing, guards, staging and barriers are checked against NumPy on odd shapes;
- `nvcc -cubin -arch=sm_90` + `ptxas -v`: the kernels (the 4096^3 one included)
  compile with no spills and no local memory.
References are float64 NumPy; f32 must be within 1e-4 relative error.
"""

from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from aicf.backend.cuda.emit import PRELUDE, emit_kernel, kernels_of
from aicf.context import make_context
from aicf.diagnostics import parse_module
from aicf.dialects import gpu as gpu_d
from aicf.compiler import run_pipeline, target_pipeline
from xdsl.dialects.builtin import StridedLayoutAttr

from gpu_support import cp, gpu
GXX = shutil.which("g++")
NVCC = shutil.which("nvcc")
NP_T = {"f32": np.float32, "f16": np.float16, "bf16": np.uint16}


# --- bf16 travels as its uint16 bits ---------------------------------------------------
def to_bf16(x: np.ndarray) -> np.ndarray:
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def from_bf16(b: np.ndarray) -> np.ndarray:
    return (np.ascontiguousarray(b).astype(np.uint32) << 16).view(np.float32)


def to_dtype(x: np.ndarray, dt: str) -> np.ndarray:
    return to_bf16(x) if dt == "bf16" else x.astype(NP_T[dt])


def as_f64(x: np.ndarray, dt: str) -> np.ndarray:
    return (from_bf16(x) if dt == "bf16" else np.asarray(x)).astype(np.float64)


# --- programs --------------------------------------------------------------------------
def memref(shape, dt, strided=False) -> str:
    body = "x".join([*map(str, shape), dt])
    if strided:
        return f"memref<{body}, strided<[{', '.join('?' for _ in shape)}], offset: ?>>"
    return f"memref<{body}>"


def mm_program(m, n, k, dt="f32", a_batch=(), b_batch=(), a_t=False, b_t=False, strided=(False, False), attrs="") -> tuple[str, dict]:
    """A loop-level matmul C[batch.., m, n] = A[.., m, k] @ B[.., k, n] with NumPy
    broadcasting of the batch dims; `a_t`: A is stored K x M (read transposed)."""
    nb = max(len(a_batch), len(b_batch))
    out_batch = []
    for i in range(nb):
        ea = a_batch[i - (nb - len(a_batch))] if i >= nb - len(a_batch) else 1
        eb = b_batch[i - (nb - len(b_batch))] if i >= nb - len(b_batch) else 1
        out_batch.append(max(ea, eb))
    M, N, K = nb, nb + 1, nb + 2
    d = [f"d{i}" for i in range(nb + 3)]

    def bmap(batch):
        res = []
        for j, e in enumerate(batch):
            i = nb - len(batch) + j
            res.append("0" if e == 1 and out_batch[i] != 1 else d[i])
        return res

    a_shape = [*a_batch, *([k, m] if a_t else [m, k])]
    b_shape = [*b_batch, *([n, k] if b_t else [k, n])]
    c_shape = [*out_batch, m, n]
    a_map = bmap(a_batch) + ([d[K], d[M]] if a_t else [d[M], d[K]])
    b_map = bmap(b_batch) + ([d[N], d[K]] if b_t else [d[K], d[N]])
    c_map = d[:nb] + [d[M], d[N]]
    dims = ", ".join(d)
    at, bt, ct = memref(a_shape, dt, strided[0]), memref(b_shape, dt, strided[1]), memref(c_shape, dt)
    if dt == "f32":
        body = "%p = arith.mulf %x, %w : f32\n      aicf_loop.yield %p : f32"
    else:
        body = (f"%xf = arith.extf %x : {dt} to f32\n      %wf = arith.extf %w : {dt} to f32\n"
                f"      %p = arith.mulf %xf, %wf : f32\n      aicf_loop.yield %p : f32")
    extra = f" attrs = {{{attrs}}}" if attrs else ""
    text = f"""
func.func @main(%a: {at}, %b: {bt}, %c: {ct}) attributes {{aicf.num_outputs = 1 : i64}} {{
  aicf_loop.nest domain = [{', '.join(map(str, [*out_batch, m, n, k]))}] iterators = [{', '.join(['parallel'] * (nb + 2) + ['reduction'])}]
      ins(%a, %b : {at}, {bt}) outs(%c : {ct})
      maps = [({dims}) -> ({', '.join(a_map)}), ({dims}) -> ({', '.join(b_map)}), ({dims}) -> ({', '.join(c_map)})]
      combiners = [add]{extra} {{
    ^bb0(%x: {dt}, %w: {dt}):
      {body}
  }}
  func.return
}}"""
    return text, {"a": a_shape, "b": b_shape, "c": c_shape, "a_t": a_t, "b_t": b_t, "dt": dt}


def lower(text: str):
    mod = parse_module(make_context(), text, "<matmul>")
    run_pipeline(mod, target_pipeline("cuda", gpu="h100", force=("gpu.matmul_tiled",)))
    return mod


def reference(a: np.ndarray, b: np.ndarray, info: dict) -> np.ndarray:
    a64, b64 = as_f64(a, info["dt"]), as_f64(b, info["dt"])
    if info["a_t"]:
        a64 = np.swapaxes(a64, -1, -2)
    if info["b_t"]:
        b64 = np.swapaxes(b64, -1, -2)
    return np.matmul(a64, b64)


def make_operand(rng, shape, dt, strided):
    """Random values; when strided, a non-contiguous view (offset, step 2 on the last
    dim) of a bigger buffer."""
    if not strided:
        return to_dtype(rng.uniform(-2, 2, size=shape).astype(np.float32), dt)
    big = to_dtype(rng.uniform(-2, 2, size=[e + 1 for e in shape[:-1]] + [2 * shape[-1] + 1]).astype(np.float32), dt)
    sl = tuple([slice(1, None)] * (len(shape) - 1) + [slice(1, 2 * shape[-1] + 1, 2)])
    return big[sl]


def rel_err(out, ref) -> float:
    return float(np.linalg.norm(out - ref) / max(np.linalg.norm(ref), 1e-30))


def check(out64: np.ndarray, ref: np.ndarray, dt: str) -> None:
    assert not np.isnan(out64).any(), "unwritten (poisoned) outputs"
    if dt == "f32":
        assert rel_err(out64, ref) < 1e-4, rel_err(out64, ref)
    else:  # the result is rounded to f16/bf16 once, from an f32 accumulator
        tol = 2.0**-10 if dt == "f16" else 2.0**-7
        scale = np.abs(ref).max() if ref.size else 1.0
        assert np.allclose(out64, ref, rtol=2 * tol, atol=2 * tol * scale), np.abs(out64 - ref).max()


# --- CPU emulation of the emitted CUDA ----------------------------------------------------
EMU_HEADER = r"""
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>
#include <algorithm>
#include <pthread.h>
using std::max; using std::min;
struct aicf_dim3 { unsigned x, y, z; };
static thread_local aicf_dim3 threadIdx, blockIdx;
static aicf_dim3 blockDim, gridDim;
static pthread_barrier_t aicf_bar;
#define __syncthreads() pthread_barrier_wait(&aicf_bar)
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(a, b)
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __shared__ static
static inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
static inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
static inline float __int_as_float(int u) { float f; memcpy(&f, &u, 4); return f; }
static inline double __longlong_as_double(long long u) { double f; memcpy(&f, &u, 8); return f; }
static inline float __double2float_rz(double d) {  // toward zero: truncate a rounded-to-nearest overshoot
  float f = (float)d;
  if (f == f && (double)f != d && ((double)f > d) == (d > 0)) f = nextafterf(f, 0.0f);
  return f; }
template <typename T> static inline T __shfl_xor_sync(unsigned, T v, int, int) { return v; }
template <typename F> static void aicf_launch(unsigned gx, unsigned gy, unsigned gz, unsigned nt, F f) {
  blockDim = {nt, 1, 1}; gridDim = {gx, gy, gz};
  pthread_barrier_init(&aicf_bar, nullptr, nt);
  for (unsigned z = 0; z < gz; ++z) for (unsigned y = 0; y < gy; ++y) for (unsigned x = 0; x < gx; ++x) {
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < nt; ++t)
      ts.emplace_back([=] { threadIdx = {t, 0, 0}; blockIdx = {x, y, z}; f(); });
    for (auto& th : ts) th.join();
  }
  pthread_barrier_destroy(&aicf_bar);
}
"""

CPU_HALF = r"""
__device__ __forceinline__ float aicf_h2f(unsigned short h) { _Float16 x; memcpy(&x, &h, 2); return (float)x; }
__device__ __forceinline__ unsigned short aicf_f2h(float f) { _Float16 x = (_Float16)f; unsigned short h; memcpy(&h, &x, 2); return h; }
"""


def cpu_prelude() -> str:
    """The emitter's prelude with its PTX-asm f16 conversions swapped for C++ ones."""
    lines = PRELUDE.splitlines()
    out, skip = [], 0
    for ln in lines:
        if skip:
            skip -= 1
            continue
        if "aicf_h2f(unsigned short h)" in ln or "aicf_f2h(float f)" in ln:
            skip = 1  # the asm line that follows
            continue
        out.append(ln)
    return "\n".join(out) + CPU_HALF


def _params(src: str, name: str) -> list[tuple[str, str]]:
    m = re.search(r"\b" + re.escape(name) + r"\(([^)]*)\)\s*\{", src)
    assert m, f"no signature for {name}"
    out = []
    for decl in m.group(1).split(","):
        decl = decl.strip()
        pname = decl.split()[-1]
        out.append((decl, pname))
    return out


class Emulated:
    """The host plans of several lowered modules, their kernels built for the CPU in
    one shared library (one g++ run); `run(tag, *arrays)` executes module `tag`'s
    launches, in order, over its function's arguments."""

    def __init__(self, mods: dict[str, object], tmp: Path):
        parts = [EMU_HEADER, cpu_prelude()]
        self.plans = {}
        for tag, mod in mods.items():
            fn = next(op for op in mod.ops if op.name == "func.func" and op.body.blocks)  # type: ignore[attr-defined]
            args = list(fn.body.block.args)
            launches = [op for op in fn.walk() if isinstance(op, gpu_d.LaunchOp)]
            assert all(a in args for l in launches for a in l.args), "host plan allocates: not emulated"
            kernels = {k.kernel_name: k for k in kernels_of(mod)}
            for k in kernels.values():
                src = emit_kernel(k)
                cname = f"{tag}_{k.kernel_name}"
                src = src.replace(f" {k.kernel_name}(", f" {cname}(")
                parts.append(src)
                ps = _params(src, cname)
                parts.append(
                    f'extern "C" void run_{cname}(unsigned gx, unsigned gy, unsigned gz, unsigned nt, '
                    + ", ".join(d for d, _ in ps)
                    + f") {{ aicf_launch(gx, gy, gz, nt, [=] {{ {cname}({', '.join(p for _, p in ps)}); }}); }}"
                )
            self.plans[tag] = (args, launches, kernels)
        cpp = tmp / "emulated.cpp"
        cpp.write_text("\n".join(parts))
        so = tmp / "emulated.so"
        r = subprocess.run([GXX, "-O0", "-std=c++17", "-shared", "-fPIC", "-pthread", str(cpp), "-o", str(so)],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr[-3000:]
        self.lib = ctypes.CDLL(str(so))

    def run(self, tag: str, *arrays: np.ndarray) -> None:
        args, launches, kernels = self.plans[tag]
        by_value = dict(zip(args, arrays))
        for l in launches:
            k = kernels[l.kernel_name]
            cargs = []
            for a, t in zip(l.args, k.function_type.inputs.data):
                arr = by_value[a]
                cargs.append(ctypes.c_void_p(arr.ctypes.data))
                if isinstance(getattr(t, "layout", None), StridedLayoutAttr):
                    for dim, st in enumerate(t.layout.get_strides()):
                        if st is None:
                            e = arr.strides[dim] // arr.itemsize
                            cargs.append(ctypes.c_longlong(e) if k.index_bits == 64 else ctypes.c_int(e))
            gx, gy, gz = k.grid_dims
            getattr(self.lib, f"run_{tag}_{k.kernel_name}")(
                ctypes.c_uint(gx), ctypes.c_uint(gy), ctypes.c_uint(gz), ctypes.c_uint(k.block_dims[0]), *cargs
            )


# Shapes that hit every guard: odd M/N/K, 1-size dims, K < BK, batch broadcasts on
# either side, transposed (K-major) A and B, strided views, f16 and bf16.
EMU_CASES = [
    dict(m=33, n=17, k=5),
    dict(m=1, n=1, k=1),
    dict(m=7, n=130, k=67),
    dict(m=64, n=64, k=64),
    dict(m=45, n=9, k=33, a_batch=(3,), b_batch=()),
    dict(m=5, n=12, k=20, a_batch=(2, 1), b_batch=(3, 1, 1)),
    dict(m=16, n=24, k=13, a_batch=(1,), b_batch=(2,)),
    dict(m=20, n=36, k=28, a_t=True),
    dict(m=12, n=40, k=24, b_t=True, a_t=True),
    dict(m=19, n=21, k=23, strided=(True, True)),
    dict(m=40, n=24, k=16, dt="f16"),
    dict(m=17, n=33, k=40, dt="bf16", a_batch=(2,), b_batch=(2,)),
    dict(m=9, n=8, k=7, dt="f16", strided=(True, False)),
]


FORCED = [
    "bm = 32, bn = 64, bk = 8, tm = 4, tn = 8",
    "bm = 64, bn = 64, bk = 8, tm = 8, tn = 4, swizzle = false",
    "bm = 32, bn = 32, bk = 16, tm = 4, tn = 4",
]


@pytest.fixture(scope="module")
def emulated(tmp_path_factory):
    """Every case lowered (the cost model choosing, or forced tiles: several k-tiles
    and partial tiles on every side), built once for the CPU."""
    if GXX is None:
        pytest.skip("g++ is not on PATH")
    cases, mods = {}, {}
    for i, case in enumerate(EMU_CASES):
        text, info = mm_program(**case)
        cases[f"c{i}"] = (info, case.get("strided", (False, False)))
        mods[f"c{i}"] = lower(text)
    for i, params in enumerate(FORCED):
        text, info = mm_program(37, 70, 45, attrs=f'aicf.schedule = {{kind = "gpu.matmul_tiled", {params}}}')
        cases[f"f{i}"] = (info, (False, False))
        mods[f"f{i}"] = lower(text)
    for mod in mods.values():
        ks = kernels_of(mod)
        assert len(ks) == 1 and "gpu.matmul_tiled" in ks[0].attributes["aicf.schedule"].data  # type: ignore[union-attr]
    return Emulated(mods, tmp_path_factory.mktemp("emu")), cases


@pytest.mark.parametrize("tag", [f"c{i}" for i in range(len(EMU_CASES))] + [f"f{i}" for i in range(len(FORCED))])
def test_matmul_emulated(tag, emulated):
    emu, cases = emulated
    info, strided = cases[tag]
    rng = np.random.default_rng(abs(hash(tag)) % 1000)
    a = make_operand(rng, info["a"], info["dt"], strided[0])
    b = make_operand(rng, info["b"], info["dt"], strided[1])
    if info["dt"] == "f32":
        c = np.full(info["c"], np.nan, dtype=np.float32)
    else:
        c = np.full(info["c"], 0xFFFF, dtype=np.uint16).view(NP_T[info["dt"]])
    emu.run(tag, a, b, c)
    check(as_f64(c, info["dt"]), reference(a, b, info), info["dt"])


# --- nvcc / ptxas: no spills, no local memory ---------------------------------------------
NVCC_PROGRAMS = [
    mm_program(4096, 4096, 4096)[0],
    mm_program(1024, 1024, 1024)[0],
    mm_program(33, 17, 5)[0],
    mm_program(17, 33, 40, dt="bf16", a_batch=(2,), b_batch=(2,))[0],
    mm_program(40, 24, 16, dt="f16", a_t=True)[0],
    mm_program(19, 21, 23, strided=(True, True))[0],
    mm_program(512, 512, 512, a_batch=(8,), b_batch=(1,))[0],
]


@pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")
def test_matmul_kernels_compile_without_spills(tmp_path):
    parts, names = [PRELUDE], []
    for i, text in enumerate(NVCC_PROGRAMS):
        for k in kernels_of(lower(text)):
            assert "gpu.matmul_tiled" in k.attributes["aicf.schedule"].data  # type: ignore[union-attr]
            parts.append(emit_kernel(k).replace(f" {k.kernel_name}(", f" mm{i}_{k.kernel_name}("))
            names.append(f"mm{i}_{k.kernel_name}")
    cu = tmp_path / "mm.cu"
    cu.write_text("\n\n".join(parts))
    r = subprocess.run([NVCC, "-cubin", "-arch=sm_90", "-std=c++17", "-Xptxas", "-v", str(cu), "-o", str(tmp_path / "mm.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-4000:]
    entries = re.findall(r"Compiling entry function '(\w+)'", r.stderr)
    assert sorted(entries) == sorted(names)
    props = re.findall(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", r.stderr)
    assert props and all(p == ("0", "0", "0") for p in props), r.stderr
    assert "lmem" not in r.stderr


# --- on the GPU -------------------------------------------------------------------------------
def gpu_cases(count=24, seed=11):
    rng = np.random.default_rng(seed)
    pool = [1, 2, 3, 7, 16, 31, 33, 64, 100, 127, 128, 129, 255, 300]
    cases = []
    for i in range(count):
        m, n, k = (int(rng.choice(pool)) for _ in range(3))
        dt = ["f32", "f32", "f16", "bf16"][i % 4]
        nb = int(rng.integers(0, 3))
        out_b = [int(rng.integers(1, 4)) for _ in range(nb)]
        a_b = tuple(e if rng.random() < 0.6 else 1 for e in out_b)[int(rng.integers(0, nb + 1)) :] if nb else ()
        b_b = tuple(e if rng.random() < 0.6 else 1 for e in out_b)
        cases.append(dict(m=m, n=n, k=k, dt=dt, a_batch=a_b, b_batch=b_b, a_t=bool(rng.random() < 0.2),
                          b_t=bool(rng.random() < 0.2), strided=(bool(rng.random() < 0.25), bool(rng.random() < 0.25))))
    return cases


def compile_gpu(text: str):
    from aicf.backend.cuda.program import compile_cuda

    return compile_cuda(parse_module(make_context(), text, "<matmul>"), "main", sync="full-sync")


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("i", range(24))
def test_matmul_gpu_random(i):
    case = gpu_cases()[i]
    text, info = mm_program(**case)
    prog = compile_gpu(text)
    rng = np.random.default_rng(1000 + i)
    a = make_operand(rng, info["a"], info["dt"], case["strided"][0])
    b = make_operand(rng, info["b"], info["dt"], case["strided"][1])
    if info["dt"] == "f32":
        c = cp.full(info["c"], np.nan, dtype=np.float32)
    else:
        c = cp.full(info["c"], 0xFFFF, dtype=np.uint16)
        if info["dt"] == "f16":
            c = c.view(np.float16)
    dt = info["dt"]
    prog(cp.asarray(a) if not case["strided"][0] else _device_view(a, dt),
         cp.asarray(b) if not case["strided"][1] else _device_view(b, dt), c)
    cp.cuda.Device().synchronize()
    check(as_f64(cp.asnumpy(c), info["dt"]), reference(a, b, info), info["dt"])


def _device_view(host_view: np.ndarray, dt: str):
    """The same non-contiguous view on the device (copy the base, slice alike)."""
    base = host_view.base if host_view.base is not None else host_view
    dev = cp.asarray(base)
    off = (host_view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // host_view.itemsize
    return cp.lib.stride_tricks.as_strided(dev.ravel()[off:], shape=host_view.shape, strides=host_view.strides)


@gpu
@pytest.mark.gpu
def test_matmul_gpu_4096_matches_cublas_closely():
    text, info = mm_program(2048, 2048, 2048)
    prog = compile_gpu(text)
    rng = np.random.default_rng(3)
    a = cp.asarray(rng.standard_normal((2048, 2048), dtype=np.float32))
    b = cp.asarray(rng.standard_normal((2048, 2048), dtype=np.float32))
    c = cp.full((2048, 2048), np.nan, dtype=np.float32)
    prog(a, b, c)
    ref = cp.matmul(a.astype(cp.float64), b.astype(cp.float64))
    assert float(cp.linalg.norm(c - ref) / cp.linalg.norm(ref)) < 1e-4
