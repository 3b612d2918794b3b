"""Malformed and extreme inputs to aicf-opt, aicf-run and aicf.compile get the
project's own located diagnostic and exit code 1: never a traceback, a crash or a
misleading message (issue 10 items 14 and 15)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("AICF_CACHE_DIR", tempfile.mkdtemp(prefix="aicf-test-cache-"))

import aicf  # noqa: E402
from aicf.errors import CompileError  # noqa: E402

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parents[2]

SIN = """func.func @f(%x: tensor<4xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.sin %x : (tensor<4xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
"""


def tool(name: str, path: Path, *args: str) -> subprocess.CompletedProcess:
    extra = ("--target", "cpu", "--repeat", "1") if name == "aicf-run" else ()
    return subprocess.run([str(BIN / name), str(path), *extra, *args],
                          capture_output=True, text=True, timeout=300)  # fmt: skip


def assert_diagnostic(proc: subprocess.CompletedProcess, *expected: str) -> None:
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    for text in expected:
        assert text in proc.stderr, proc.stderr[-2000:]


@pytest.mark.parametrize("name", ["aicf-opt", "aicf-run"])
def test_non_utf8_input(tmp_path, name):
    p = tmp_path / "latin1.mlir"
    p.write_bytes(SIN.replace("@f", "@f\xe9").encode("latin-1"))
    assert_diagnostic(tool(name, p), "latin1.mlir:1:13: error: the input is not UTF-8 text")


@pytest.mark.parametrize("name", ["aicf-opt", "aicf-run"])
def test_a_utf8_byte_order_mark_is_skipped(tmp_path, name):
    """Windows editors start UTF-8 files with U+FEFF: it read `error: Unexpected
    character`. Columns on the first line count from after it."""
    p = tmp_path / "bom.mlir"
    p.write_bytes(b"\xef\xbb\xbf" + SIN.encode())
    r = tool(name, p)
    assert r.returncode == 0, r.stderr[-2000:]
    if name == "aicf-opt":
        assert "func.func @f" in r.stdout
        r = subprocess.run([str(BIN / name), "-", "-p", "aicf-infer-shapes", "--split-input-file"],
                           input=p.read_bytes(), capture_output=True, timeout=300)  # fmt: skip
        assert r.returncode == 0 and b"-> tensor<4xf32>" in r.stdout, r.stderr[-2000:]
    p.write_bytes(b"\xef\xbb\xbf" + SIN.replace("@f(", "@f(%x: tensor<4xf32>, ").encode())
    assert_diagnostic(tool(name, p), "bom.mlir:1:")
    assert "Unexpected character" not in tool(name, p).stderr


def test_compile_skips_a_byte_order_mark(tmp_path):
    p = tmp_path / "bom.mlir"
    p.write_bytes(b"\xef\xbb\xbf" + SIN.encode())
    x = np.linspace(-1, 1, 4).astype(np.float32)
    for src in (p, str(p), "\ufeff" + SIN):
        np.testing.assert_allclose(aicf.compile(src, target="cpu")(x), np.sin(x), rtol=1e-6)


def test_non_utf8_input_to_compile(tmp_path):
    p = tmp_path / "latin1.mlir"
    p.write_bytes(b"// caf\xe9\n" + SIN.encode())
    with pytest.raises(CompileError, match=r"latin1.mlir:1:7: error: the input is not UTF-8"):
        aicf.compile(str(p))


def test_deep_nesting(tmp_path):
    p = tmp_path / "deep.mlir"
    n = 3000
    p.write_text("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                 + '  "test.op"() ({\n' * n + "  }) : () -> ()\n" * n
                 + "  func.return %x : tensor<4xf32>\n}\n")  # fmt: skip
    assert_diagnostic(tool("aicf-opt", p), "deep.mlir:", "error: the input is nested too deeply")


@pytest.mark.parametrize("name", ["aicf-opt", "aicf-run"])
def test_deeply_nested_literal(tmp_path, name):
    p = tmp_path / "deep.mlir"
    p.write_text("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                 "  %c = aicf_tensor.constant dense<" + "[" * 3000 + "1.0" + "]" * 3000
                 + "> : tensor<f32>\n  func.return %x : tensor<4xf32>\n}\n")  # fmt: skip
    assert_diagnostic(tool(name, p), "deep.mlir:2:", "error: the input is nested too deeply")


@pytest.mark.parametrize("name", ["aicf-opt", "aicf-run"])
@pytest.mark.parametrize("literal,t", [("1.0e39", "f32"), ("-7.0e4", "f16"), ("3.4e38", "bf16")])
def test_float_literal_out_of_range(tmp_path, name, literal, t):
    p = tmp_path / "big.mlir"
    p.write_text(f"""func.func @f(%x: tensor<4x{t}>) -> tensor<*x{t}> {{
  %c = aicf_tensor.constant dense<{literal}> : tensor<{t}>
  %0 = aicf_tensor.add %x, %c : (tensor<4x{t}>, tensor<{t}>) -> tensor<*x{t}>
  func.return %0 : tensor<*x{t}>
}}
""")
    assert_diagnostic(tool(name, p), f"big.mlir:2:35: error: {literal} is out of the range of {t}")


def test_float_literals_that_round_to_the_largest_finite_value_are_fine():
    m = aicf.compile("""func.func @f(%x: tensor<2xf32>) -> tensor<*xf32> {
  %c = aicf_tensor.constant dense<[3.4028235e38, 65504.0]> : tensor<2xf32>
  %0 = aicf_tensor.add %x, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}""")
    out = m(np.zeros(2, np.float32))
    np.testing.assert_array_equal(out, np.array([3.4028235e38, 65504.0], np.float32))


def test_aicf_run_on_dynamic_shapes(tmp_path):
    p = tmp_path / "dyn.mlir"
    p.write_text(SIN.replace("tensor<4xf32>", "tensor<?xf32>"))
    assert_diagnostic(tool("aicf-run", p), "dyn.mlir:1:1: error:", "static shapes",
                      "%x: tensor<?xf32>")  # fmt: skip


def test_aicf_run_on_loop_level_ir(tmp_path):
    p = tmp_path / "loop.mlir"
    p.write_text("""func.func @f(%x: memref<4xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
""")
    assert_diagnostic(tool("aicf-run", p), "loop.mlir:2:3: error:", "tensor-level")


def test_truncated_file(tmp_path):
    """Cut right after a function's signature, the function is a declaration."""
    text = (ROOT / "examples" / "chain.mlir").read_text()
    p = tmp_path / "cut.mlir"
    p.write_text(text[: text.index("{", text.index("func.func"))])
    assert_diagnostic(tool("aicf-run", p), "cut.mlir:3:1: error: 'func.func' @chain has no body")


def test_big_endian_arguments_are_accepted():
    exe = aicf.compile(SIN)
    x = np.linspace(-2, 2, 4).astype(">f4")
    np.testing.assert_allclose(exe(x), np.sin(x.astype(np.float64)), rtol=1e-6)


def test_ops_without_a_source_location_are_named_by_their_place():
    """A ModuleOp built without locations: the error says which function and which op,
    not `<unknown>`."""
    from xdsl.parser import Parser

    from aicf.context import make_context

    module = Parser(make_context(), """func.func @g(%x: tensor<4xf32>, %y: tensor<5xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.sin %x : (tensor<4xf32>) -> tensor<*xf32>
  %1 = aicf_tensor.add %0, %y : (tensor<*xf32>, tensor<5xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}""").parse_module()
    with pytest.raises(CompileError) as e:
        aicf.compile(module)
    assert "<unknown>" not in str(e.value)
    assert str(e.value).startswith("@g, op #1 (no source location): error: 'aicf_tensor.add'")


@pytest.mark.parametrize("args, words", [(("--seed", "-5"), "argument --seed: must be >= 0, got -5"),
                                         (("--repeat", "0"), "argument --repeat: must be >= 1, got 0")])
def test_aicf_run_checks_its_numbers(tmp_path, args, words):
    """A negative seed raised NumPy's ValueError from deep inside (a traceback);
    --repeat 0 ran once anyway."""
    p = tmp_path / "sin.mlir"
    p.write_text(SIN)
    proc = tool("aicf-run", p, *args)
    assert proc.returncode == 2, proc.stderr
    assert words in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_verify_diagnostics_output_that_cannot_be_written_fails(tmp_path):
    """The output was never flushed: a full disk lost it with exit code 0."""
    p = tmp_path / "sin.mlir"
    bad = SIN.replace("  %0 = aicf_tensor.sin %x", "  // expected-error @+1 {{use of undefined value %y}}\n  %0 = aicf_tensor.sin %y")
    p.write_text(bad + "// -----\n" + SIN)
    proc = tool("aicf-opt", p, "--verify-diagnostics", "--split-input-file", "-o", "/dev/full")
    assert_diagnostic(proc, "No space left on device")


def test_an_unclosed_string_does_not_hang_the_lexer(tmp_path):
    """xDSL's string-literal pattern backtracked exponentially: an unclosed quote before
    the ~70 characters of an ordinary line took longer than anyone waits."""
    p = tmp_path / "quote.mlir"
    p.write_text(SIN.replace("aicf_tensor.sin", 'aicf_tensor.s"in'))
    assert_diagnostic(tool("aicf-opt", p), "quote.mlir:2:21: error: End of file reached before closing string literal")


@pytest.mark.parametrize("layout", ["strided<[1, 8]>", "strided<[8, 1]>", "strided<[8, 1], offset: 4>",
                                    "strided<[?, ?], offset: ?>"])
def test_an_entry_argument_with_a_layout_is_refused(layout, tmp_path):
    """The runtimes pass arrays dense; a layout written on an entry argument (which the
    C code would read as run-time strides nobody passes) is a compile error, not a
    crash at the call; located at the argument (it had no file:line:col)."""
    t = f"memref<8x8xf32, {layout}>"
    src = f"""
func.func @f(%x: {t}, %out0: memref<8xf32>) attributes {{aicf.num_outputs = 1 : i64}} {{
  aicf_loop.nest domain = [8, 8] iterators = [parallel, reduction] ins(%x : {t}) outs(%out0 : memref<8xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add] {{
  ^bb0(%0: f32):
    aicf_loop.yield %0 : f32
  }}
  func.return
}}
"""
    with pytest.raises(CompileError, match=r"argument #0 has the layout strided.*dense row-major"):
        aicf.compile(src, target="cpu")
    # located at the argument (line 2 of the text, after its leading newline)
    with pytest.raises(CompileError, match=r"^<string>:2:14: error: @f: argument #0 has the layout"):
        aicf.compile(src, target="cpu")
    path = tmp_path / "strided.mlir"
    path.write_text(src)
    with pytest.raises(CompileError, match=r"strided\.mlir:2:14: error: @f: argument #0 has the layout"):
        aicf.compile(path, target="cpu")


DYN_SRC = """func.func @f(%x: tensor<?x?xf32>, %y: tensor<?xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.add %x, %y : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}"""


@pytest.mark.parametrize("shapes", [[(3, 4)], [(3.5, 4), (4,)], [(-1, 4), (4,)], "ab", [(3,), (4,)], 5])
def test_specialize_checks_its_shapes(shapes):
    exe = aicf.compile(DYN_SRC, target="cpu")
    with pytest.raises(aicf.ArgumentError, match="specialize takes|shape #0 must be"):
        exe.specialize(shapes)


def test_a_list_where_an_array_goes_is_named():
    exe = aicf.compile(DYN_SRC, target="cpu")
    with pytest.raises(aicf.ArgumentError, match="expected an array, got list"):
        exe([[1.0] * 4] * 3, np.ones(4, np.float32))


def test_a_device_or_a_pipe_is_no_program(tmp_path):
    with pytest.raises(CompileError, match="not a regular file"):
        aicf.compile(Path("/dev/zero"))  # read to the end, it would never end
    fifo = tmp_path / "p.mlir"
    os.mkfifo(fifo)
    with pytest.raises(CompileError, match="not a regular file"):
        aicf.compile(fifo)  # opened, it would wait for a writer


@pytest.mark.parametrize("cc, message", [
    ("true", "exited 0 but wrote no"),
    # CC=false: the error ended in "the C compiler failed on the generated code
    # (false):" and nothing after it
    ("false", "exited with status 1 and no message"),
])
def test_a_c_compiler_that_writes_nothing_is_a_compile_error(cc, message, tmp_path, monkeypatch):
    monkeypatch.setenv("CC", cc)
    monkeypatch.setenv("AICF_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("AICF_PROGRAM_CACHE", "0")
    from aicf import compiler

    compiler._CPU_MODULES.clear()
    with pytest.raises(CompileError, match=message):
        aicf.compile(DYN_SRC.replace("?x?", "3x4").replace("<?x", "<4x"), target="cpu")


def test_a_cache_key_cannot_reach_outside_the_cache(tmp_path, monkeypatch):
    """A hand-written schedule's external-kernel key that is a path (absolute or with
    ..) is no key: the lookup would have removed what it found there."""
    from aicf.backend import disk_cache

    monkeypatch.setenv("AICF_CACHE_DIR", str(tmp_path / "cache"))
    victim = tmp_path / "victim.kernel.json"
    victim.mkdir()
    (victim / "keep").write_text("x")
    for key in (str(tmp_path / "victim"), "../victim", "../../x", ".hidden", "a/b"):
        with pytest.raises(CompileError, match="is no cache key"):
            disk_cache.lookup("kernels", key, ".kernel.json")
        with pytest.raises(CompileError, match="is no cache key"):
            disk_cache.store("kernels", key, ".kernel.json", b"{}")
    assert (victim / "keep").exists()


@pytest.mark.parametrize("op", ["divui", "remui"])
@pytest.mark.parametrize("t", ["i32", "i64"])
def test_unsigned_division_by_zero_is_defined(op, t):
    src = f"""
func.func @f(%x: memref<4x{t}>, %y: memref<4x{t}>, %out0: memref<4x{t}>) attributes {{aicf.num_outputs = 1 : i64}} {{
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x, %y : memref<4x{t}>, memref<4x{t}>) outs(%out0 : memref<4x{t}>)
      maps = [(d0) -> (d0), (d0) -> (d0), (d0) -> (d0)] {{
  ^bb0(%a: {t}, %b: {t}):
    %q = arith.{op} %a, %b : {t}
    aicf_loop.yield %q : {t}
  }}
  func.return
}}
"""
    dt = np.int32 if t == "i32" else np.int64
    x, y = np.array([7, -1, 9, 0], dt), np.array([0, 2, 4, 0], dt)
    got = aicf.compile(src, target="cpu")(x, y)  # SIGFPE before
    ux, uy = x.view(np.uint32 if t == "i32" else np.uint64), y.view(np.uint32 if t == "i32" else np.uint64)
    with np.errstate(divide="ignore"):
        want = (np.floor_divide if op == "divui" else np.remainder)(ux, uy)
    np.testing.assert_array_equal(got.view(ux.dtype), np.where(uy == 0, 0, want))


def test_a_buffer_used_after_its_dealloc_is_refused():
    src = """
func.func @f(%x: memref<8xf32>, %out0: memref<8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  %t = memref.alloc() : memref<8xf32>
  aicf_loop.nest domain = [8] iterators = [parallel] ins(%x : memref<8xf32>) outs(%t : memref<8xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  memref.dealloc %t : memref<8xf32>
  aicf_loop.nest domain = [8] iterators = [parallel] ins(%t : memref<8xf32>) outs(%out0 : memref<8xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
"""
    with pytest.raises(CompileError, match=r"<string>:10:\d+: error: .*used after its memref.dealloc"):
        aicf.compile(src, target="cpu")


@pytest.mark.parametrize("expr", ["d0 mod (d0 + 1)", "d0 floordiv d0", "d0 ceildiv (d0 + 2)"])
def test_semi_affine_maps_are_a_located_error(expr):
    """xDSL's affine expressions raise NotImplementedError on a non-constant divisor:
    a located error, not an internal one (a hostile attack)."""
    from aicf.errors import CompileError

    text = f"""func.func @f(%a: memref<8xf32>, %o: memref<8xf32>) attributes {{aicf.num_outputs = 1 : i64}} {{
  aicf_loop.nest domain = [8] iterators = [parallel]
    ins(%a : memref<8xf32>) outs(%o : memref<8xf32>)
    maps = [(d0) -> ({expr}), (d0) -> (d0)] {{
  ^bb0(%0: f32):
    aicf_loop.yield %0 : f32
  }}
  func.return
}}"""
    with pytest.raises(CompileError, match=r":4:\d+: error: not supported"):
        aicf.compile(text, target="cpu")


def test_aicf_run_on_more_dims_than_numpy_takes_is_one_line(tmp_path):
    """aicf-run makes NumPy inputs: an entry of rank 65 is refused in one line, not a
    traceback from rng.standard_normal (a hostile attack)."""
    import subprocess
    import sys

    t = "tensor<" + "1x" * 65 + "f32>"
    f = tmp_path / "rank65.mlir"
    f.write_text(f"func.func @f(%x: {t}) -> {t} {{\n  func.return %x : {t}\n}}\n")
    r = subprocess.run([sys.executable, "-m", "aicf.tools.aicf_run", str(f), "--target", "cpu"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr
    assert "65 dims" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


@pytest.mark.parametrize("cc", ["", "  ", "cc -O1", "env LC_ALL=C cc"])
def test_cc_is_a_command_line_and_empty_is_unset(tmp_path, monkeypatch, cc):
    """CC="ccache gcc" or "gcc -m64" (a command line, as make and Python's own builds
    take it) was refused as "`ccache gcc` is not on PATH", and an empty CC as "``"."""
    monkeypatch.setenv("CC", cc)
    monkeypatch.setenv("AICF_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("AICF_PROGRAM_CACHE", "0")
    from aicf import compiler

    compiler._CPU_MODULES.clear()
    exe = aicf.compile(DYN_SRC.replace("?x?", "3x4").replace("<?x", "<4x"), target="cpu")
    assert exe.target == "cpu"


@pytest.mark.parametrize("cc, words", [("no-such-cc -O2", "`no-such-cc` (CC='no-such-cc -O2') is not on PATH"),
                                       ("'cc", "is no command line")])
def test_a_cc_that_cannot_run_is_named(monkeypatch, cc, words):
    from aicf.backend.c.build import compiler

    monkeypatch.setenv("CC", cc)
    with pytest.raises(CompileError, match=re.escape(words)):
        compiler()


def test_strided_variants_per_entry_are_bounded(monkeypatch):
    """n inputs have 2^n patterns of contiguity: each new one was built (a C compile)
    and its library kept loaded for the module's lifetime. Past the bound, a pattern
    runs on the variant that reads every input's strides."""
    import itertools

    from aicf.backend.c import runtime

    monkeypatch.setattr(runtime, "MAX_STRIDED_VARIANTS", 3, raising=False)
    n = 4
    args = ", ".join(f"%x{i}: tensor<4x4xf32>" for i in range(n))
    t = "tensor<4x4xf32>"
    body = [f"%s1 = aicf_tensor.add %x0, %x1 : ({t}, {t}) -> {t}"] + [
        f"%s{i} = aicf_tensor.add %s{i - 1}, %x{i} : ({t}, {t}) -> {t}" for i in range(2, n)]
    exe = aicf.compile(f"func.func @f({args}) -> {t} {{\n" + "\n".join(body) + f"\nfunc.return %s{n - 1} : {t}\n}}")
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal((4, 4)).astype(np.float32) * (i + 1) for i in range(n)]
    for pattern in itertools.product((False, True), repeat=n):
        got = exe(*(np.asfortranarray(x) if p else x for x, p in zip(xs, pattern)))
        np.testing.assert_allclose(got, sum(x.astype(np.float64) for x in xs), rtol=1e-6, atol=1e-6)
    variants = [s for _, s, _ in exe._program.cmodule._variants if any(s)]
    assert len(variants) <= 3 + 1, variants  # the bound, and the every-input variant


def test_a_property_in_the_attribute_dictionary_is_that_property():
    """`{causal}` / `{ddof = 1}` in the attribute dictionary of the custom syntax were
    discardable attributes nobody read: a non-causal attention and ddof 0, silently (MLIR
    and xDSL's generic form read them as the properties)."""
    rng = np.random.default_rng(0)
    q = rng.standard_normal((8, 16)).astype(np.float32)
    src = """func.func @f(%q: tensor<8x16xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %y = aicf_tensor.attention %q, %q, %q scale = 0.25 {causal} : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<*xf32>
  %v = aicf_tensor.reduce_var %q axes = [1] {ddof = 1 : i64, keepdims} : (tensor<8x16xf32>) -> tensor<*xf32>
  func.return %y, %v : tensor<*xf32>, tensor<*xf32>
}"""
    y, v = aicf.compile(src, target="cpu")(q)
    s = np.where(np.tril(np.ones((8, 8), bool)), q.astype(np.float64) @ q.T * 0.25, -np.inf)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, (p / p.sum(axis=1, keepdims=True)) @ q, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(v, np.var(q.astype(np.float64), axis=1, ddof=1, keepdims=True), rtol=1e-5)
