"""Integer division, remainder and power have defined results, never a trap: x / 0
and x % 0 give 0 (NumPy's x // 0 and x % 0), INT_MIN / -1 wraps to INT_MIN and
INT_MIN % -1 is 0 (NumPy's, with its overflow warning), on the cpu target and in the
CUDA C it emits; integer pow (which reached the C emitter unsupported) works."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pytest

os.environ.setdefault("AICF_CACHE_DIR", tempfile.mkdtemp(prefix="aicf-test-cache-"))

import aicf  # noqa: E402

DIV = """
func.func @div(%x: tensor<8xi32>, %y: tensor<8xi32>) -> tensor<*xi32> {
  %0 = aicf_tensor.div %x, %y : (tensor<8xi32>, tensor<8xi32>) -> tensor<*xi32>
  func.return %0 : tensor<*xi32>
}
"""

# Hand-written loop level: remsi has no tensor-level op.
REM = """
func.func @rem(%x: memref<8x{t}>, %y: memref<8x{t}>, %z: memref<8x{t}>) attributes {{aicf.num_outputs = 1 : i64}} {{
  aicf_loop.nest domain = [8] iterators = [parallel]
      ins(%x, %y : memref<8x{t}>, memref<8x{t}>) outs(%z : memref<8x{t}>)
      maps = [(d0) -> (d0), (d0) -> (d0), (d0) -> (d0)] {{
  ^bb0(%a: {t}, %b: {t}):
    %q = arith.{op} %a, %b : {t}
    aicf_loop.yield %q : {t}
  }}
  func.return
}}
"""


def reference(x: np.ndarray, y: np.ndarray, op: str) -> np.ndarray:
    """C's truncating division/remainder with the defined results, in Python integers
    (exact), wrapped to the dtype."""
    info = np.iinfo(x.dtype)
    out = []
    for a, b in zip(x.tolist(), y.tolist()):
        if b == 0:
            r = 0
        else:
            q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
            r = q if op == "divsi" else a - q * b
        out.append((r - info.min) % 2**info.bits + info.min)  # wrap: MIN / -1 == MIN
    return np.array(out, x.dtype)


def hostile_operands(dtype) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = np.iinfo(dtype).min, np.iinfo(dtype).max
    x = np.array([7, -7, 5, lo, lo, hi, 0, lo], dtype)
    y = np.array([2, 2, 0, -1, 0, -1, 0, 3], dtype)
    return x, y


def test_tensor_division_by_zero_and_overflow_is_defined():
    x, y = hostile_operands(np.int32)
    out = aicf.compile(DIV)(x, y)
    np.testing.assert_array_equal(out, reference(x, y, "divsi"))


@pytest.mark.parametrize("op", ["divsi", "remsi"])
@pytest.mark.parametrize("t", ["i32", "i64", "i16"])
def test_loop_level_division_and_remainder_are_defined(op, t):
    dtype = {"i16": np.int16, "i32": np.int32, "i64": np.int64}[t]
    x, y = hostile_operands(dtype)
    out = aicf.compile(REM.format(t=t, op=op))(x, y)
    np.testing.assert_array_equal(out, reference(x, y, op))


def test_aicf_run_on_integer_division_does_not_die(tmp_path):
    f = tmp_path / "div.mlir"
    f.write_text(DIV)
    aicf_run = os.path.join(os.path.dirname(sys.executable), "aicf-run")
    proc = subprocess.run([aicf_run, str(f), "--target", "cpu", "--repeat", "1"],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr  # the reference divides as the targets do
    assert "@div on cpu" in proc.stdout and " ok" in proc.stdout


def test_the_reference_divides_and_powers_integers_as_the_targets_do():
    """aicf.reference (aicf-run's check, the constant folder) runs integer div and pow
    with the compiled semantics, not NumPy's true division or its error on n < 0."""
    from aicf.context import make_context
    from aicf.diagnostics import parse_module
    from aicf.reference import evaluate

    x, y = hostile_operands(np.int32)
    (got,) = evaluate(parse_module(make_context(), DIV), "div", x, y)
    np.testing.assert_array_equal(got, reference(x, y, "divsi"))
    b = np.array([2, -1, 1, 0, 3, 2, -1, 5, 7, -2], np.int32)
    n = np.array([-1, -3, -5, -2, 3, 31, -4, 0, 40, 3], np.int32)
    (got,) = evaluate(parse_module(make_context(), POW.format(t="i32")), "pow", b, n)
    np.testing.assert_array_equal(got, aicf.compile(POW.format(t="i32"))(b, n))


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_cuda_division_uses_the_defined_helpers():
    from aicf.backend.cstyle import int_helpers
    from aicf.backend.cuda.emit import emit_cuda
    from aicf.compiler import run_pipeline
    from aicf.context import make_context
    from aicf.diagnostics import parse_module

    module = parse_module(make_context(), DIV, "div.mlir")
    run_pipeline(module, ["aicf-infer-shapes", "aicf-lower-to-loops", "aicf-plan{target=h100}", "aicf-lower-to-gpu"])
    src = emit_cuda(module)
    assert "aicf_divsi32(" in src
    helpers = int_helpers("__device__ __forceinline__")
    assert helpers in src
    # ... and the helpers compute the defined results (compiled for the host by nvcc)
    x, y = hostile_operands(np.int32)
    calls = "".join(f"  printf(\"%d\\n\", aicf_divsi32({a}, {b}));\n" for a, b in zip(x.tolist(), y.tolist()))
    main = "#include <cstdio>\nint main() {\n" + calls.replace("-2147483648", "(-2147483647 - 1)") + "}\n"
    d = tempfile.mkdtemp()
    cu = os.path.join(d, "t.cu")
    with open(cu, "w") as fh:
        fh.write(helpers.replace("__device__", "__host__ __device__") + main)
    subprocess.run(["nvcc", "-std=c++17", cu, "-o", os.path.join(d, "t")], check=True,
                   capture_output=True)  # fmt: skip
    got = subprocess.run([os.path.join(d, "t")], capture_output=True, text=True, check=True)
    np.testing.assert_array_equal(np.array(got.stdout.split(), np.int32), reference(x, y, "divsi"))


POW = """
func.func @pow(%x: tensor<10x{t}>, %y: tensor<10x{t}>) -> tensor<*x{t}> {{
  %0 = aicf_tensor.pow %x, %y : (tensor<10x{t}>, tensor<10x{t}>) -> tensor<*x{t}>
  func.return %0 : tensor<*x{t}>
}}
"""


def test_integer_pow():
    """x ** n wraps like NumPy's; a negative n (an error in NumPy) gives the integer
    part of 1 / x ** |n|: 1 for x = 1, +-1 for x = -1, else 0 (0 for x = 0 too)."""
    dtype = np.int32
    x = np.array([2, 3, -3, 7, 0, 0, 1, -1, -1, 5], dtype)
    n = np.array([10, 0, 5, 40, 0, -1, -7, -3, -4, -2], dtype)
    bits = np.iinfo(dtype).bits
    expected = []
    for a, b in zip(x.tolist(), n.tolist()):
        r = a**b if b >= 0 else (1 if a == 1 else (-1) ** b if a == -1 else 0)
        expected.append((int(r) + 2 ** (bits - 1)) % 2**bits - 2 ** (bits - 1))
    out = aicf.compile(POW.format(t="i32"))(x, n)
    np.testing.assert_array_equal(out, np.array(expected, dtype))


I64 = """
func.func @f(%x: tensor<8xi64>, %y: tensor<8xi64>) -> (tensor<*xi64>, tensor<*xi64>, tensor<8xi32>) {
  %q = aicf_tensor.div %x, %y : (tensor<8xi64>, tensor<8xi64>) -> tensor<*xi64>
  %p = aicf_tensor.pow %x, %y : (tensor<8xi64>, tensor<8xi64>) -> tensor<*xi64>
  %c = aicf_tensor.cast %x : (tensor<8xi64>) -> tensor<8xi32>
  func.return %q, %p, %c : tensor<*xi64>, tensor<*xi64>, tensor<8xi32>
}
"""


def test_the_reference_on_int64_extremes():
    """aicf.reference at i64's MIN: 1 / MIN is 0 and MIN / 2 is -2^62 (np.abs(MIN) is
    MIN, so they came out 1 and +2^62); an exponent of MIN gives 0, not NumPy's
    "Integers to negative integer powers" (a traceback from aicf-run); a cast to i32
    wraps (it stayed exact in int64). The compiled code agrees."""
    from aicf.context import make_context
    from aicf.diagnostics import parse_module
    from aicf.reference import evaluate

    lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    x = np.array([1, -7, lo, lo, hi, 2, 4294967297, lo], np.int64)
    y = np.array([lo, lo, 2, -3, lo, lo, 3, 1], np.int64)
    q, p, c = evaluate(parse_module(make_context(), I64), "f", x, y)
    np.testing.assert_array_equal(q, reference(x, y, "divsi"))
    np.testing.assert_array_equal(p, [1, 0, 0, 0, 0, 0, (4294967297**3) % 2**64 - 2**64 * ((4294967297**3) % 2**64 >= 2**63), lo])
    np.testing.assert_array_equal(c, [1, -7, 0, 0, -1, 2, 1, 0])
    out = aicf.compile(I64)(x, y)
    for got, ref in zip(out, (q, p, c)):
        np.testing.assert_array_equal(got, ref)
