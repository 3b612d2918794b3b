"""aicf.compile / Executable: sources (text, path, ModuleOp), entry selection, errors,
and every example building and matching the NumPy reference."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("AICF_CACHE_DIR", tempfile.mkdtemp(prefix="aicf-test-cache-"))

import aicf  # noqa: E402
from aicf.context import make_context  # noqa: E402
from aicf.diagnostics import parse_module  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.mlir"))

TWO = """
func.func @scale(%x: tensor<4x8xf32>, %s: tensor<f32>) -> tensor<*xf32> {
  %0 = aicf_tensor.mul %x, %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
func.func @rowmax(%x: tensor<4x8xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0 = aicf_tensor.reduce_max %x axes = [-1] : (tensor<4x8xf32>) -> tensor<*xf32>
  %1 = aicf_tensor.neg %x : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0, %1 : tensor<*xf32>, tensor<*xf32>
}
"""


def test_compile_from_text_path_and_module(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 8)).astype(np.float32)
    s = np.asarray(1.5, np.float32)
    p = tmp_path / "two.mlir"
    p.write_text(TWO)
    module = parse_module(make_context(), TWO)
    before = str(module)
    for src in (TWO, str(p), p, module):
        exe = aicf.compile(src, target="cpu", entry="scale")
        assert isinstance(exe, aicf.Executable)
        np.testing.assert_array_equal(exe(x, s), x * s)
    assert str(module) == before, "compile must not modify the caller's ModuleOp"
    assert "aicf_loop.nest" in str(exe.module)
    assert "int aicf_scale(void *const *bufs" in exe.source


def test_entry_selection_and_tuple_results():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 8)).astype(np.float32)
    exe = aicf.compile(TWO, target="cpu", entry="rowmax")
    m, n = exe(x)
    np.testing.assert_array_equal(m, x.max(-1))
    np.testing.assert_array_equal(n, -x)
    with pytest.raises(aicf.CompileError, match=r"several functions \(@scale, @rowmax\)"):
        aicf.compile(TWO, target="cpu")
    with pytest.raises(aicf.CompileError, match=r"no function @nope .*@scale, @rowmax"):
        aicf.compile(TWO, target="cpu", entry="nope")


def test_compile_errors_name_the_location():
    bad = """func.func @f(%x: tensor<4x8xf32>, %y: tensor<5xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.add %x, %y : (tensor<4x8xf32>, tensor<5xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}"""
    with pytest.raises(aicf.CompileError, match=r"<string>:2:\d+: error:.*broadcast"):
        aicf.compile(bad, target="cpu")
    with pytest.raises(aicf.CompileError, match=r"<string>:1:\d+"):
        aicf.compile("func.func @f(%x: tensor<4xf32>) -> {", target="cpu")
    with pytest.raises(aicf.CompileError, match=r"unknown target 'tpu'"):
        aicf.compile(TWO, target="tpu")
    with pytest.raises(aicf.CompileError, match=r"cannot read"):
        aicf.compile("/nonexistent/x.mlir", target="cpu")


def test_cuda_without_gpu_is_a_clear_error():
    try:
        import cupy  # noqa: F401

        pytest.skip("CuPy is installed")
    except ImportError:
        pass
    with pytest.raises(aicf.AicfError, match=r"CuPy"):
        aicf.compile(TWO, target="cuda", entry="scale")


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_emit_c_that_cc_compiles(path, tmp_path):
    """What `aicf-opt -p aicf-infer-shapes,aicf-lower-to-loops,aicf-plan{target=cpu} -t c`
    prints, then cc -fopenmp."""
    from aicf.backend.c.emit import emit_c_unit
    from aicf.compiler import run_pipeline

    module = parse_module(make_context(), path.read_text(), str(path))
    run_pipeline(module, ["aicf-infer-shapes", "aicf-lower-to-loops", "aicf-plan{target=cpu}"])
    c, flags, _ = emit_c_unit(module)  # the flags name BLAS's headers when a nest calls it
    src = tmp_path / (path.stem + ".c")
    src.write_text(c)
    subprocess.run(
        ["cc", "-std=gnu11", "-fopenmp", *[f for f in flags if f.startswith(("-I", "-D"))],
         "-c", str(src), "-o", str(tmp_path / "x.o")],
        check=True,
    )


@pytest.mark.parametrize("path", [p for p in EXAMPLES if p.stem != "sin_sum"], ids=lambda p: p.name)
def test_examples_match_reference(path, capsys):
    from aicf.tools.aicf_run import main

    rc = main([str(path), "--target", "cpu", "--repeat", "1"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "max abs err" in out and "ok" in out


def test_aicf_run_reports_errors_without_traceback(tmp_path):
    p = tmp_path / "bad.mlir"
    p.write_text("func.func @f(%x: tensor<4xf32>) -> tensor<*xf32> {\n"
                 "  %0 = aicf_tensor.sin %x, %x : (tensor<4xf32>) -> tensor<*xf32>\n}\n")  # fmt: skip
    r = subprocess.run([sys.executable, "-m", "aicf.tools.aicf_run", str(p), "--target", "cpu"],
                       capture_output=True, text=True)  # fmt: skip
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert f"{p}:2:" in r.stderr


def test_explain_lists_each_loop_nest_and_group():
    text = """
func.func @softmax(%x: tensor<8x16xf32>) -> tensor<*xf32> {
  %m = aicf_tensor.reduce_max %x axes = [-1] keepdims : (tensor<8x16xf32>) -> tensor<*xf32>
  %d = aicf_tensor.sub %x, %m : (tensor<8x16xf32>, tensor<*xf32>) -> tensor<*xf32>
  %e = aicf_tensor.exp %d : (tensor<*xf32>) -> tensor<*xf32>
  %s = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<*xf32>) -> tensor<*xf32>
  %y = aicf_tensor.div %e, %s : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  func.return %y : tensor<*xf32>
}
"""
    exe = aicf.compile(text, target="cpu")
    fused = exe.explain().splitlines()
    assert fused[1] == "pipeline: " + ",".join(exe.pipeline)
    # the planner's view: the group's candidates, the winner marked
    assert fused[2].startswith("@softmax group #0 shared=[8], 3 nests on ")
    assert any(line.startswith("  -> cpu.group") and "per_slice=True" in line for line in fused)
    # then what was built
    i = fused.index("group shared=[8]: 3 nests")
    assert fused[i + 1].startswith("  nest domain=[8, 16] iterators=[parallel, reduction] combiners=[max]")
    unfused = aicf.compile(text, target="cpu", fuse=False).explain().splitlines()
    assert not any(line.startswith("group") for line in unfused)
    assert sum(line.startswith("nest") for line in unfused) == 5
    assert sum(line.startswith("  -> cpu.nest") for line in unfused) == 5


def test_public_api_surface():
    import numpy as np

    for name in ("compile", "Executable", "jit", "trace", "ops", "profiler", "Tensor",
                 "TensorSpec", "CompileError", "ArgumentError", "LaunchError"):
        assert hasattr(aicf, name), name
    exe = aicf.compile(
        "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %0 = aicf_tensor.sin %x : (tensor<4xf32>) -> tensor<4xf32>\n"
        "  func.return %0 : tensor<4xf32>\n}\n"
    )
    with aicf.profiler() as prof:  # the cpu target: one record per loop nest
        exe(np.ones(4, np.float32))
    assert [r.kernel for r in prof.records] == ["@f#0 nest 4"]
    assert prof.table().startswith("kernel or nest")


def test_option_values_are_checked():
    """Values of the wrong kind are argument errors, not a raw exception or a silent
    reading (debug="no" used to turn debug mode on; repeat=0 gave an empty profile)."""
    src = """func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = aicf_tensor.sin %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}"""
    with pytest.raises(aicf.ArgumentError, match="debug must be"):
        aicf.compile(src, debug="no")
    with pytest.raises(aicf.ArgumentError, match="min_speedup must be a number"):
        aicf.compile(src, gate={"min_speedup": "fast"})
    with pytest.raises(aicf.ArgumentError, match="gate takes a dict"):
        aicf.compile(src, gate=5)
    with pytest.raises(aicf.ArgumentError, match="fuse must be True or False"):
        aicf.compile(src, fuse="no")
    # a raw TypeError from inside kernel_options ("argument of type 'int' is not iterable")
    with pytest.raises(aicf.ArgumentError, match="proposer takes a command line"):
        aicf.compile(src, proposer=5)
    with pytest.raises(aicf.ArgumentError, match="force takes schedule kind names"):
        aicf.compile(src, force={"cpu.nest"})
    with pytest.raises(aicf.ArgumentError, match="got function .* traced by aicf.jit"):
        aicf.compile(lambda x: x + 1)
    exe = aicf.compile(src)
    for bad in (0, -1, 1.5, True):
        with pytest.raises(aicf.ArgumentError, match="repeat must be"):
            exe.profile(np.ones(4, np.float32), repeat=bad)


def test_an_executable_copies_as_itself_and_does_not_pickle():
    """deepcopy and pickle raised ctypes' ValueError ("ctypes objects containing
    pointers cannot be pickled") from deep inside the copy."""
    import copy
    import pickle

    exe = aicf.compile(TWO, entry="rowmax")
    assert copy.deepcopy(exe) is exe
    assert copy.copy(exe) is exe  # it raised __reduce__'s "cannot pickle"
    with pytest.raises(TypeError, match="cannot pickle <aicf.Executable @rowmax.*compile the source again"):
        pickle.dumps(exe)


def test_keyword_arguments_to_an_executable_are_argument_errors():
    """exe(x, s=...) raised Python's raw TypeError naming Executable.__call__."""
    x = np.ones((4, 8), np.float32)
    exe = aicf.compile(TWO, target="cpu", entry="scale")
    with pytest.raises(aicf.ArgumentError, match=r"@scale takes its arguments by position \(%x, %s\), got keyword argument\(s\) 's'"):
        exe(x, s=np.float32(2))
    dynamic = aicf.compile(TWO.split("func.func @rowmax")[0].replace("4x8", "?x8"), target="cpu")
    with pytest.raises(aicf.ArgumentError, match=r"by position .*got keyword argument\(s\) 'out'"):
        dynamic(x, np.float32(2), out=x)
    np.testing.assert_array_equal(dynamic(x, np.float32(2)), 2 * x)


def test_a_dynamic_shape_executable_pickles_without_its_specialisations():
    """It pickled before its first call, then raised the Executable's "cannot pickle"."""
    import pickle

    exe = aicf.compile("""
    func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
      %y = aicf_tensor.exp %x : (tensor<?xf32>) -> tensor<?xf32>
      func.return %y : tensor<?xf32>
    }""")
    x = np.zeros(3, np.float32)
    exe(x)
    again = pickle.loads(pickle.dumps(exe))
    assert len(again.specializations) == 0 and len(exe.specializations) == 1
    np.testing.assert_array_equal(again(x), np.ones(3, np.float32))


@pytest.mark.parametrize("value, on", [("false", False), (" OFF ", False), ("no", False), ("0", False),
                                       ("1", True), ("yes", True)])
def test_aicf_debug_takes_the_words_the_other_switches_take(monkeypatch, value, on):
    """AICF_DEBUG=false turned debug mode on (NaN-poisoned outputs, every pass
    verified): only "" and "0" were off, where AICF_PROGRAM_CACHE, AICF_PROGRESS and
    AICF_CUDA_GRAPHS take off/false/no too."""
    monkeypatch.setenv("AICF_DEBUG", value)
    assert aicf.compile(TWO, entry="rowmax").debug is on
