"""Access maps written by hand (`aicf_loop.nest` maps) are computed as the affine
semantics say, in the integer width the emitted code uses:

- the verifier proves every subexpression of a map fits int64 over the domain (the
  cpu target's int64_t), not only that the map's exact range is inside the buffer: a
  product that wraps and is divided back used to pass the check, then segfault or read
  the wrong element (dialects/affine_intervals.py, dialects/loop.py);
- the CUDA kernels take 64-bit index arithmetic when a map's constants or
  intermediate values leave int32, not only when a buffer is that large (a constant of
  2^32 was written as `const int v = 4294967296;`) (lowering/gpu_schedules/view.py);
- floordiv, ceildiv and mod of a dividend that can be negative (or by a negative
  divisor) round as the affine ops do (toward -inf; mod has the divisor's sign) on
  both targets: the GPU lowering used unsigned division for every map
  (lowering/gpu_schedules/builder.py).

The CUDA kernels are checked without a GPU through the CPU emulation of
test_gpu_matmul.py (g++), in a child process (a wrong index can crash it), and on a
GPU through the `target` fixture where there is one.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineExpr

import aicf
from aicf.backend.cuda.emit import PRELUDE, emit_kernel, kernels_of
from aicf.compiler import run_pipeline, target_pipeline
from aicf.context import make_context
from aicf.diagnostics import parse_module
from aicf.dialects.affine_intervals import (
    INT32,
    INT64,
    expr_range,
    first_outside,
    never_negative,
    subexpr_ranges,
)
from aicf.errors import CompileError

GXX = shutil.which("g++")
NVCC = shutil.which("nvcc")

d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)


def nest(in_map: str, out_map: str = "d0", n: int = 8, out_len: int | None = None, m: int = 8) -> str:
    """One elementwise nest over [n]: out[out_map(i)] = a[in_map(i)], a of m elements."""
    out_len = n if out_len is None else out_len
    return f"""func.func @f(%a: memref<{m}xf32>, %o: memref<{out_len}xf32>) attributes {{aicf.num_outputs = 1 : i64}} {{
  aicf_loop.nest domain = [{n}] iterators = [parallel]
    ins(%a : memref<{m}xf32>) outs(%o : memref<{out_len}xf32>)
    maps = [(d0) -> ({in_map}), (d0) -> ({out_map})] {{
  ^bb0(%0: f32):
    aicf_loop.yield %0 : f32
  }}
  func.return
}}
"""


# --- the interval analysis ------------------------------------------------------------


def test_every_subexpression_is_bounded():
    e = ((d0 * 4611686018427387904 + 5) // 4611686018427387904) * 10000000
    box = [(0, 7)]
    assert expr_range(e, box) == (0, 70000000)  # exact, inside an 80M buffer...
    ranges = dict((str(x), r) for x, r in subexpr_ranges(e, box))
    assert ranges["(d0 * 4611686018427387904)"] == (0, 7 * 2**62)  # ...through 7 * 2^62
    sub, value = first_outside(e, box, INT64)
    assert str(sub) == "(d0 * 4611686018427387904)" and value == 7 * 2**62
    assert first_outside(d0 * 4 + 3, box, INT32) is None
    assert first_outside(d0 * 2**29, box, INT32) == (d0 * 2**29, 7 * 2**29)
    e = (d0 + 2**40) // 2**40  # 1, through the constant 2^40
    assert expr_range(e, box) == (1, 1) and str(first_outside(e, box, INT32)[0]) == str(2**40)


def test_floor_semantics_of_negative_dividends_and_divisors():
    box = [(0, 7)]
    for e, f in [
        ((d0 - 5) // 2, lambda i: (i - 5) // 2),
        ((d0 - 5) % 3, lambda i: (i - 5) % 3),
        ((d0 - 5).ceil_div(2), lambda i: -(-(i - 5) // 2)),
        (d0 % -3, lambda i: i % -3),
        (d0 // -2, lambda i: i // -2),
        (d0.ceil_div(-2), lambda i: -(-i // -2)),
    ]:
        values = [f(i) for i in range(8)]
        lo, hi = expr_range(e, box)
        assert lo <= min(values) and max(values) <= hi, (e, (lo, hi), values)


def test_non_constant_divisors_are_bounded():
    """A division by a dim (semi-affine) was unbounded, so never checked; a divisor
    that can be 0 gives 0 (the C helpers)."""
    box = [(0, 9), (0, 3)]

    def op(kind, a, b):
        return AffineBinaryOpExpr(kind, a, b)

    fd, md, cd = AffineBinaryOpKind.FloorDiv, AffineBinaryOpKind.Mod, AffineBinaryOpKind.CeilDiv
    for e, f in [
        (op(fd, d0, d1 + 1), lambda i, j: i // (j + 1)),
        (op(fd, d0, d1), lambda i, j: i // j if j else 0),
        (op(md, d0, d1 + 1), lambda i, j: i % (j + 1)),
        (op(md, d0 - 9, d1 * -1), lambda i, j: (i - 9) % -j if j else 0),
        (op(fd, d0 - 9, d1 + 1), lambda i, j: (i - 9) // (j + 1)),
        (op(fd, d0, d1 * -1 - 1), lambda i, j: i // (-j - 1)),
        (op(cd, d0 - 4, d1 * -1 - 1), lambda i, j: -(-(i - 4) // (-j - 1))),
    ]:
        values = [f(i, j) for i in range(10) for j in range(4)]
        lo, hi = expr_range(e, box)
        assert lo <= min(values) and max(values) <= hi, (e, (lo, hi), values)


def test_never_negative():
    assert never_negative(d0 * 4 + d1 * 3 + 2)
    assert never_negative((d0 // 3) % 5)
    assert not never_negative(d0 - 5)
    assert not never_negative(d0 * -1 + 7)  # non-negative only on a bounded domain
    assert not never_negative(d0 % -3)


# --- the verifier ---------------------------------------------------------------------


@pytest.mark.parametrize("in_map,out_map,out_len", [
    ("d0", "((d0 * 4611686018427387904 + 5) floordiv 4611686018427387904) * 10000000", 80000000),
    ("(d0 * 4611686018427387904) mod 3", "d0", 8),
    ("(d0 * 4611686018427387904 + 5) floordiv 4611686018427387904", "d0", 8),
    ("(d0 * 9223372036854775807) mod 7", "d0", 8),
])
def test_maps_that_wrap_int64_are_rejected(in_map, out_map, out_len):
    """These compiled: the first wrote 7 elements up to 2^63 elements past the buffer
    (a segfault), the second read a[0, 1, 2, 0, 0, 1, 2, 0] for a[0, 2, 1, 0, 2, 1, 0, 2]."""
    with pytest.raises(CompileError, match=r"<string>:2:3: error: 'aicf_loop.nest' map #\d .* overflows "
                                           r"64-bit index arithmetic: .* reaches \d+ in result 0 over the domain \[8\]"):
        aicf.compile(nest(in_map, out_map, out_len=out_len), target="cpu")


CASES = [  # (map, its meaning, the domain's extent)
    ("(d0 - 5) floordiv 2 + 3", lambda i: (i - 5) // 2 + 3, 8),
    ("(d0 - 5) mod 3", lambda i: (i - 5) % 3, 8),
    ("(d0 - 5) ceildiv 2 + 2", lambda i: -(-(i - 5) // 2) + 2, 8),
    ("d0 mod -3 + 2", lambda i: i % -3 + 2, 8),
    ("d0 floordiv -2 + 4", lambda i: i // -2 + 4, 8),
    ("d0 ceildiv -2 + 4", lambda i: -(-i // -2) + 4, 8),
    ("(d0 * -1 + 7) mod 5", lambda i: (7 - i) % 5, 8),
    ("(d0 * 4294967296) floordiv 4294967296", lambda i: i, 8),
    ("(d0 * 2147483648 + 7) floordiv 2147483648", lambda i: i, 8),
    ("((d0 - 4) * 536870912) floordiv 536870912 + 4", lambda i: i, 8),
    # up to the edge of int64: 2^62 + 2^62 - 1 = 2^63 - 1
    ("(d0 * 4611686018427387904 + 4611686018427387903) floordiv 4611686018427387904", lambda i: i, 2),
    ("d0 + d0 * -9223372036854775808", lambda i: i, 1),  # INT64_MIN as a C constant
]


@pytest.mark.parametrize("k", range(len(CASES)))
def test_signed_division_numerics(k, target):
    """The affine semantics (Python's // and %) on both targets, against NumPy."""
    m, fn, n = CASES[k]
    a = np.arange(10, 18, dtype=np.float32)
    out = aicf.compile(nest(m, n=n), target=target)(a)
    out = out.get() if hasattr(out, "get") else out
    np.testing.assert_array_equal(out, a[[fn(i) for i in range(n)]])


# --- the CUDA kernels -----------------------------------------------------------------


def lower_cuda(text: str, tag: str = "prog"):
    mod = parse_module(make_context(), text, tag)
    run_pipeline(mod, target_pipeline("cuda", gpu="h100"))
    return mod


def test_map_constants_past_int32_take_64bit_index_arithmetic():
    """Buffers of 8 elements, but a map constant of 2^32: the kernel used 32-bit
    index arithmetic and wrote `const int v_4 = 4294967296;`."""
    mod = lower_cuda(nest("(d0 * 4294967296) floordiv 4294967296"))
    (k,) = kernels_of(mod)
    assert k.index_bits == 64
    src = emit_kernel(k)
    assert "4294967296ll" in src
    assert not re.search(r"\bint v_\d+ = 4294967296\b", src)
    # an intermediate past int32 (the constants fit): 7 * 2^29
    (k,) = kernels_of(lower_cuda(nest("(d0 * 536870912) floordiv 536870912")))
    assert k.index_bits == 64
    # a map inside int32 keeps 32-bit index arithmetic
    (k,) = kernels_of(lower_cuda(nest("(d0 * 65536) floordiv 65536")))
    assert k.index_bits == 32


def test_possibly_negative_dividends_use_signed_floor_division():
    (k,) = kernels_of(lower_cuda(nest("(d0 - 5) floordiv 2 + 3")))
    src = emit_kernel(k)
    assert "aicf_floordivsi32(" in src
    assert not re.search(r"\(unsigned\)v_\d+ / \(unsigned\)", src)
    (k,) = kernels_of(lower_cuda(nest("(d0 floordiv 2) mod 3")))  # never negative: unsigned
    src = emit_kernel(k)
    assert "aicf_floordivsi" not in src and "aicf_remsi" not in src
    assert re.search(r"\(unsigned\)v_\d+ / \(unsigned\)", src) and re.search(r"\(unsigned\)v_\d+ % \(unsigned\)", src)


def _emulate(tmp: str) -> None:
    """Run in a child process by the test below: each case's kernel built for the CPU
    and run, its output printed as a JSON line (a wrong index can crash the child)."""
    from pathlib import Path

    from test_gpu_matmul import Emulated

    emu = Emulated({f"c{i}": lower_cuda(nest(m, n=n), f"c{i}") for i, (m, _, n) in enumerate(CASES)}, Path(tmp))
    for i, (_, _, n) in enumerate(CASES):
        o = np.full(n, np.nan, np.float32)
        emu.run(f"c{i}", np.arange(10, 18, dtype=np.float32), o)
        print(json.dumps(o.tolist()), flush=True)


@pytest.mark.skipif(GXX is None, reason="g++ is not on PATH")
def test_cuda_kernels_emulated_on_the_cpu(tmp_path):
    """The emitted CUDA, built for the CPU (test_gpu_matmul's emulation), against
    NumPy: unsigned division of a negative index read far outside the buffer."""
    here = os.path.dirname(os.path.abspath(__file__))
    code = f"import sys; sys.path.insert(0, {here!r}); import {__name__} as t; t._emulate({str(tmp_path)!r})"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    outputs = [json.loads(line) for line in r.stdout.splitlines()]
    a = np.arange(10, 18, dtype=np.float32)
    for (m, fn, n), got in zip(CASES, outputs):
        np.testing.assert_array_equal(np.array(got, np.float32), a[[fn(j) for j in range(n)]], err_msg=m)
    assert r.returncode == 0 and len(outputs) == len(CASES), (
        f"the kernel of {CASES[len(outputs)][0]!r} crashed (rc {r.returncode}): {r.stderr[-2000:]}")


@pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")
def test_cuda_kernels_compile(tmp_path):
    parts = [PRELUDE]
    for i, (m, _, n) in enumerate(CASES):
        for k in kernels_of(lower_cuda(nest(m, n=n))):
            parts.append(emit_kernel(k).replace(f" {k.kernel_name}(", f" c{i}_{k.kernel_name}("))
    cu = tmp_path / "maps.cu"
    cu.write_text("\n\n".join(parts))
    r = subprocess.run([NVCC, "-cubin", "-arch=sm_90", "-std=c++17", str(cu), "-o", str(tmp_path / "maps.cubin")],
                       capture_output=True, text=True)  # fmt: skip
    assert r.returncode == 0, r.stderr[-4000:]
    assert "warning" not in r.stderr, r.stderr[-4000:]
