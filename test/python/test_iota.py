"""iota on the cpu target against NumPy: any extent (past the old 2^22 limit), fused
with its consumers, in f16/bf16/i32/f32; the small index table it reads at any size;
a located error for an integer type that cannot hold the indices; the CUDA kernel of
a fused iota compiles with nvcc where nvcc is on PATH (no GPU needed), and on a GPU
(`python3 -m pytest -m gpu test/python/test_iota.py`) computes what NumPy does."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

import numpy as np
import pytest

os.environ.setdefault("AICF_CACHE_DIR", tempfile.mkdtemp(prefix="aicf-test-cache-"))

import aicf  # noqa: E402
from aicf.context import make_context  # noqa: E402
from aicf.diagnostics import parse_module  # noqa: E402
from aicf.dialects.loop import NestOp  # noqa: E402

from gpu_support import cp, gpu  # noqa: E402
from test_cpu_numerics import ttype  # noqa: E402

NVCC = shutil.which("nvcc")


def nests(exe) -> list[NestOp]:
    return [op for op in exe.module.walk() if isinstance(op, NestOp)]


def globals_of(module) -> list:
    return [op for op in module.walk() if op.name == "memref.global"]


def global_elements(op) -> int:
    return int(np.prod(op.properties["type"].get_shape()))


def scaled_index_program(n: int) -> str:
    t = ttype((n,), "f32")
    return f"""func.func @f(%x: {t}) -> {t} {{
      %i = aicf_tensor.iota dim = 0 : {t}
      %m = aicf_tensor.mul %i, %x : ({t}, {t}) -> {t}
      %c = aicf_tensor.constant dense<1.0> : {t}
      %a = aicf_tensor.add %m, %c : ({t}, {t}) -> {t}
      func.return %a : {t}
    }}"""


def test_iota_past_2_22_fused_with_its_consumer():
    """iota * x + 1 over 2^22 + 3 elements (refused before): one nest, reading x and a
    table of 4096 indices (2048^2 < 2^22 + 3), and exact (integer-valued f32 products
    below 2^24)."""
    n = 2**22 + 3
    exe = aicf.compile(scaled_index_program(n), target="cpu")
    assert len(nests(exe)) == 1
    (table,) = globals_of(exe.module)
    assert global_elements(table) == 4096
    x = np.random.default_rng(0).integers(-3, 4, n).astype(np.float32)
    np.testing.assert_array_equal(exe(x), np.arange(n, dtype=np.float64) * x + 1)


def bf16_round(v: np.ndarray) -> np.ndarray:
    """Non-negative integers rounded to 8 significant bits, ties to even (bf16)."""
    v = np.asarray(v, np.float64)
    ulp = np.exp2(np.maximum(np.floor(np.log2(np.maximum(v, 1))) - 7, 0))
    return np.round(v / ulp) * ulp


def from_bf16_bits(bits: np.ndarray) -> np.ndarray:
    return (np.asarray(bits).astype(np.uint32) << 16).view(np.float32).astype(np.float64)


@pytest.mark.parametrize("fuse", [True, False])
@pytest.mark.parametrize("dt", ["f16", "bf16", "i32", "f32"])
def test_iota_element_types(dt, fuse):
    """Short dims (a table of the values) and long ones (indices computed in the body),
    converted as NumPy's astype rounds: past 2048 (f16) and 256 (bf16) to even."""
    long, short = (2, 3000), (5, 7)
    text = f"""func.func @f(%x: {ttype(long, dt)}) -> ({ttype(long, dt)}, {ttype(short, dt)}, {ttype(long, dt)}) {{
      %0 = aicf_tensor.iota dim = 1 : {ttype(long, dt)}
      %1 = aicf_tensor.iota dim = 0 : {ttype(short, dt)}
      %2 = aicf_tensor.add %0, %x : ({ttype(long, dt)}, {ttype(long, dt)}) -> {ttype(long, dt)}
      func.return %0, %1, %2 : {ttype(long, dt)}, {ttype(short, dt)}, {ttype(long, dt)}
    }}"""
    exe = aicf.compile(text, target="cpu", fuse=fuse)
    zero = np.zeros(long, np.uint16 if dt == "bf16" else {"f16": np.float16, "i32": np.int32, "f32": np.float32}[dt])
    a, b, c = exe(zero)
    want_a, want_b = np.indices(long)[1], np.indices(short)[0]
    if dt == "bf16":
        for got, want in ((a, want_a), (b, want_b), (c, want_a)):
            np.testing.assert_array_equal(from_bf16_bits(got), bf16_round(want))
        return
    np_dt = zero.dtype
    for got, want in ((a, want_a), (b, want_b), (c, want_a)):
        assert got.dtype == np_dt
        np.testing.assert_array_equal(got, want.astype(np_dt))


def test_iota_past_2_31_lowers_with_a_small_table_and_64_bit_indices():
    """An f32 iota of 2^33 elements is lowered (not run): a table of 2^17 i32 and the
    index computed in i64, where i32 would wrap."""
    from aicf.lowering.tensor_to_loop import LowerToLoopsPass

    t = ttype((2**33,), "f32")
    mod = parse_module(make_context(), f"""func.func @f() -> {t} {{
      %0 = aicf_tensor.iota dim = 0 : {t}
      func.return %0 : {t}
    }}""", "<huge>")
    LowerToLoopsPass().apply(make_context(), mod)
    (table,) = globals_of(mod)
    assert global_elements(table) == 2**17
    (nest,) = [op for op in mod.walk() if isinstance(op, NestOp)]
    ops = list(nest.body.block.ops)
    assert [op.name for op in ops] == [
        "arith.extsi", "arith.extsi", "arith.constant", "arith.muli", "arith.addi", "arith.sitofp", "aicf_loop.yield",
    ]
    assert str(ops[3].results[0].type) == "i64"


def test_integer_iota_that_cannot_hold_its_indices_is_a_located_error():
    def f(x):
        return aicf.ops.iota([2, 2**31 + 1], 1, "int32")  # IOTA-I32

    with pytest.raises(aicf.CompileError) as err:
        aicf.trace(f, aicf.TensorSpec((2,), "f32"))
    msg = str(err.value)
    line = next(i for i, s in enumerate(open(__file__), 1) if "# IOTA-I32" in s and "next(" not in s)
    assert msg.startswith(f"{__file__}:{line}: error: "), msg
    assert "indices up to 2147483648 do not fit i32" in msg, msg


@pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")
def test_cuda_kernel_of_a_fused_long_iota_compiles(tmp_path):
    from aicf.backend.cuda.emit import PRELUDE, emit_kernel, kernels_of
    from aicf.backend.cuda.program import lower_to_gpu

    from aicf.compiler import pipeline_for, run_pipeline

    mod = parse_module(make_context(), scaled_index_program(5000), "<iota>")
    run_pipeline(mod, pipeline_for("cuda"))
    mod = lower_to_gpu(mod)
    kernels = list(kernels_of(mod))
    assert len(kernels) == 1
    src = emit_kernel(kernels[0])
    assert [global_elements(g) for g in globals_of(mod)] == [128]  # 128 * 128 >= 5000
    cu = tmp_path / "iota.cu"
    cu.write_text(PRELUDE + "\n" + src)
    r = subprocess.run([NVCC, "-cubin", "-arch=sm_90", "-std=c++17", str(cu), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-4000:]


@gpu
@pytest.mark.gpu
def test_iota_on_cuda_past_2_22_fused_and_in_each_element_type():
    n = 2**22 + 3
    exe = aicf.compile(scaled_index_program(n), target="cuda")
    x = np.random.default_rng(0).integers(-3, 4, n).astype(np.float32)
    np.testing.assert_array_equal(cp.asnumpy(exe(cp.asarray(x))), np.arange(n, dtype=np.float64) * x + 1)
    long = (2, 3000)
    for dt in ("f16", "bf16", "i32", "f32"):
        t = ttype(long, dt)
        exe = aicf.compile(f"""func.func @f() -> {t} {{
          %0 = aicf_tensor.iota dim = 1 : {t}
          func.return %0 : {t}
        }}""", target="cuda")
        got = cp.asnumpy(exe())
        want = np.indices(long)[1]
        if dt == "bf16":
            np.testing.assert_array_equal(from_bf16_bits(got), bf16_round(want))
        else:
            np.testing.assert_array_equal(got, want.astype(got.dtype))
            assert got.dtype == {"f16": np.float16, "i32": np.int32, "f32": np.float32}[dt]
