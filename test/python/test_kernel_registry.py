"""External kernels before the gate runs them: registration and the file format
(mistakes are clear errors where they are made), matching by structure, the cases
the gate generates, argument order, and the cuda plumbing (schedule -> library call)
without a GPU."""

from __future__ import annotations

import json

import numpy as np
import pytest

import aicf
from aicf.errors import CompileError
from aicf.kernels import ExternalKernel, register
from aicf.kernels.cases import make_cases
from aicf.kernels.pattern import lower_pattern

from kernel_gate_support import (  # noqa: F401  (isolated, shared_cache: fixtures)
    SOFTMAX_LOG,
    SOFTMAX_LOG_C,
    bcast_sum,
    isolated,
    schedule_kinds,
    shared_cache,
    softmax_log,
    softmax_log_reference,
)

TWO_OPS = """func.func @two(%x: tensor<?x?xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %a = aicf_tensor.reduce_sum %x axes = [0] : (tensor<?x?xf32>) -> tensor<*xf32>
  %b = aicf_tensor.matmul %x, %x : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<*xf32>
  func.return %a, %b : tensor<*xf32>, tensor<*xf32>
}"""


def _kernel(**over):
    data = {"name": "k", "target": "cpu", "pattern": SOFTMAX_LOG, "source": SOFTMAX_LOG_C,
            "entry": "softmax_of_log", **over}
    return ExternalKernel.from_data(data)


@pytest.mark.parametrize("over, says", [
    ({"target": "tpu"}, "target must be one of cpu, cuda, got 'tpu'"),
    ({"entry": "not an identifier"}, "entry must be a C identifier"),
    ({"guard": {"shape": [["n"]]}}, "unknown guard field(s) shape"),
    ({"guard": {"shapes": [["n", -3]]}}, "a guard dim is an extent >= 0, a symbol name or null, got -3"),
    ({"guard": {"shapes": [["n", "c"]], "constraints": {"k": {"min": 1}}}}, "the guard constrains 'k', which no guard"),
    ({"guard": {"layout": "packed"}}, "guard layout must be one of contiguous, strided"),
    ({"workspace": "__import__('os').getpid()"}, "is not integer arithmetic over symbols"),
    ({"arg_order": [0, 0]}, "arg_order must be a permutation of 0..n-1 (a list of ints), got [0, 0]"),
    ({"target": "cuda"}, "a cuda kernel needs its launch configuration"),
    ({"launch": {"grid": [1, 2, 3, 4], "block": [32]}, "target": "cuda"}, "launch grid has 1 to 3 dims, got 4"),
    ({"colour": "blue"}, "unknown field(s) colour"),
    # a misspelt field is named as such, not reported as the required one missing
    ({"source": None, "src": "int k;"}, "unknown field(s) src"),
    ({"guard": {"dtypes": "f32"}}, "guard dtypes must be a list (one per pattern input), got 'f32'"),
    ({"workspace": "dim(0)"}, "dim() takes 2 arguments (kernel argument, dim), got 1"),
    ({"workspace": "cdiv(7)"}, "cdiv() takes 2 arguments (a, b), got 1"),
    # found by the third attack (issue 10): raw TypeError, RecursionError, ValueError
    ({"arg_order": 5}, "arg_order must be a permutation of 0..n-1 (a list of ints), got 5"),
    ({"arg_order": [True, 0]}, "arg_order must be a permutation of 0..n-1 (a list of ints), got [True, 0]"),
    ({"arg_order": ["a", 0]}, "arg_order must be a permutation of 0..n-1 (a list of ints)"),
    ({"workspace": "+".join(["1"] * 100000)}, "an expression of 199999 characters (at most 1000)"),
    ({"workspace": "(" * 300 + "1" + ")" * 300}, "cannot parse the expression"),
    ({"workspace": 10**5000}, "an integer expression must fit in int64"),
])
def test_malformed_kernels_are_clear_errors(over, says):
    with pytest.raises(CompileError, match="external kernel") as e:
        _kernel(**over)
    assert says in str(e.value)


def test_a_pattern_must_be_one_kernel(isolated):
    with pytest.raises(CompileError, match="the pattern must lower to one loop nest or group"):
        register(name="two", pattern=TWO_OPS, source="x", entry="two")
    with pytest.raises(CompileError, match="its pattern does not parse"):
        register(name="bad", pattern="func.func @f(", source="x", entry="f")
    with pytest.raises(CompileError, match="the guard gives 2 shapes for the pattern's 1 inputs"):
        register(name="g", pattern=SOFTMAX_LOG, source="x", entry="f", guard={"shapes": [["n"], ["c"]]})


@pytest.mark.parametrize("extra, says", [
    ({"workspace": "4 * m"}, "its workspace '4 * m' uses 'm', which no guard shape names (the guard's symbols: c, n)"),
    ({"workspace": "4 * n", "guard": None}, "uses 'n', which no guard shape names (the guard's symbols: none"),
    ({"workspace": "dim(5, 0)"}, "its workspace 'dim(5, 0)' cannot be evaluated (IndexError"),
    ({"workspace": "dim(1, 2)"}, "kernel arguments: #0 rank 2, #1 rank 2"),
    ({"workspace": "n // (c - c)"}, "cannot be evaluated (ZeroDivisionError"),
    ({"target": "cuda", "launch": {"grid": ["cdiv(rows, 4)"], "block": [128]}}, "its launch grid 'cdiv(rows, 4)' uses 'rows'"),
])
def test_expressions_are_checked_when_registered(isolated, extra, says):
    """A name the guard does not bind or a dim() past an argument's rank is said at
    registration (it used to be every op's gate rejection: "KeyError: 'm'")."""
    data = {"guard": {"shapes": [["n", "c"]]}, **extra}
    with pytest.raises(CompileError, match="external kernel 'k'") as e:
        register(name="k", pattern=SOFTMAX_LOG, source=SOFTMAX_LOG_C, entry="softmax_of_log", **data)
    assert says in str(e.value)


def test_kernels_file_fields_are_checked_with_the_kernel_named(isolated, tmp_path):
    from aicf.kernels import load

    f = tmp_path / "k.kernels.json"
    base = {"name": "k", "target": "cpu", "entry": "k", "pattern": SOFTMAX_LOG}
    f.write_text(json.dumps({"kernels": [{**base, "source_files": "k.c"}]}))
    with pytest.raises(CompileError, match=r"k.kernels.json: kernel 'k': unknown field\(s\) source_files \(known: "
                                           r".*source_file"):
        load(f)
    f.write_text(json.dumps({"kernels": [{**base, "source_file": 3}]}))
    with pytest.raises(CompileError, match="kernel 'k': source_file must be a path"):
        load(f)


def test_a_kernels_file_that_is_not_a_regular_file_is_refused(isolated, tmp_path):
    """/dev/zero never ends and a FIFO blocks: neither is read (the attack hung on
    `aicf-plan{kernels="/dev/zero"}`)."""
    import os

    from aicf.kernels import registry

    with pytest.raises(CompileError, match="cannot read the kernels file /dev/zero: not a regular file"):
        registry.load("/dev/zero")
    fifo = tmp_path / "k.kernels.json"
    os.mkfifo(fifo)
    with pytest.raises(CompileError, match="not a regular file"):
        registry.load(fifo)


def test_kernels_takes_paths(isolated):
    from aicf.errors import ArgumentError

    with pytest.raises(ArgumentError, match="kernels takes the path of a"):
        aicf.compile(bcast_sum(8, 8), target="cpu", kernels={"kernels": []})


def test_kernels_file_errors_name_the_file(isolated, tmp_path):
    from aicf.kernels import load

    f = tmp_path / "bad.kernels.json"
    f.write_text("{not json")
    with pytest.raises(CompileError, match=f"{f}: not JSON"):
        load(f)
    f.write_text(json.dumps({"kernels": [{"name": "k", "target": "cpu", "entry": "k", "source": "",
                                          "pattern_file": "missing.mlir"}]}))
    with pytest.raises(CompileError, match="kernel 'k': cannot read pattern_file .*missing.mlir \\(relative paths "
                                           "are read from the kernels file's folder\\)"):
        load(f)


def test_structure_matches_across_extents_but_not_across_bodies(isolated):
    from aicf.compiler import pipeline_for, run_pipeline
    from aicf.context import make_context
    from aicf.diagnostics import parse_module
    from aicf.kernels.pattern import signature, top_level_ops

    def sig(text):
        m = parse_module(make_context(), text, "<t>")
        run_pipeline(m, pipeline_for("cpu"))
        fn = next(iter(m.ops))
        (op,) = top_level_ops(fn)
        return signature(op)

    pattern = lower_pattern(_kernel(guard={"shapes": [["n", "c"]]})).signature
    assert sig(softmax_log(8, 16)) == sig(softmax_log(300, 7)) == pattern
    assert sig(softmax_log(8, 16).replace("aicf_tensor.log", "aicf_tensor.sqrt")) != pattern


def test_cases_cover_edge_shapes_special_values_and_strides(isolated):
    k = _kernel(guard={"shapes": [["n", "c"]], "layout": "strided"})
    cases, notes = make_cases(k, lower_pattern(k), [(64, 100)], ["f32"])
    names = [c.name for c in cases]
    assert names == ["program shape", "positive values", "special values", "empty (n = 0)", "ones",
                     "odd small", "odd", "strided"]
    assert [c.args[0].shape for c in cases][3:7] == [(0, 100), (1, 1), (3, 5), (37, 67)]
    assert cases[-1].args[0].strides == (13, 2)  # every other element, padded rows
    special = cases[2].values[0]
    assert np.isnan(special).any() and np.isinf(special).any()
    assert (cases[1].values[0] > 0).all()
    assert any("'empty (c = 0)' left out" in n and "no identity" in n for n in notes)
    # the expected results are the pattern's semantics in float64
    np.testing.assert_allclose(cases[1].expected[1], softmax_log_reference(cases[1].values[0]), rtol=1e-12)


def test_cases_respect_the_guard_constraints(isolated):
    k = _kernel(guard={"shapes": [["n", "c"]], "constraints": {"c": {"multiple_of": 4, "max": 64}}})
    cases, _ = make_cases(k, lower_pattern(k), [(64, 32)], ["f32"])
    assert all(c.args[0].shape[1] % 4 == 0 and c.args[0].shape[1] <= 64 for c in cases)
    assert "strided" not in [c.name for c in cases]  # a contiguous-only kernel


def test_arg_order_permutes_the_kernel_arguments(isolated):
    swapped = SOFTMAX_LOG_C.replace("args[0]", "args[X]").replace("args[1]", "args[0]").replace("args[X]", "args[1]")
    register(name="softmax_of_log", pattern=SOFTMAX_LOG, source=swapped, entry="softmax_of_log",
             guard={"shapes": [["n", "c"]]}, arg_order=[1, 0])
    exe = aicf.compile(softmax_log(128, 512), target="cpu", gate={"time_limit_s": 2.0})
    assert schedule_kinds(exe) == ["cpu.external"]
    assert "args=(1, 0)" in exe.explain()
    x = np.random.default_rng(0).uniform(0.1, 3.0, (128, 512)).astype(np.float32)
    np.testing.assert_allclose(exe(x), softmax_log_reference(x), rtol=1e-6, atol=1e-9)


def test_an_admitted_cuda_kernel_becomes_one_library_call(isolated, monkeypatch):
    """Without a GPU the gate cannot admit a CUDA kernel: the verdict is faked here, to
    follow the schedule through aicf-lower-external into the GPU program."""
    from aicf.backend.cuda.emit import emit_cuda
    from aicf.compiler import pipeline_for, run_pipeline
    from aicf.context import make_context
    from aicf.diagnostics import parse_module
    from aicf.dialects.gpu import LibraryCallOp
    from aicf.kernels import planning
    from aicf.kernels.gate import Verdict

    k = register(name="bcast", target="cuda", pattern=bcast_sum(), source="x", entry="bcast_sum",
                 guard={"shapes": [["c"]]}, launch={"grid": ["cdiv(c, 256)"], "block": [256], "smem": "c * 4"},
                 workspace="8 * c")
    monkeypatch.setattr(planning, "verdict_for", lambda kernel, *a: Verdict(
        kernel.key, "admitted", "faster", "faked", correct=True, ext_s=1e-6, own_s=1e-4))
    module = parse_module(make_context(), bcast_sum(), "<t>")
    passes = [p.replace("target=gpu", "target=h100") for p in pipeline_for("cuda", tune=False)]
    run_pipeline(module, passes + ["aicf-lower-external", "aicf-lower-to-gpu{target=h100}", "aicf-swizzle-smem",
                                  "aicf-lower-smem-layouts"])
    (call,) = [o for o in module.walk() if isinstance(o, LibraryCallOp)]
    p = {name: call.param(name) for name in ("key", "args", "grid", "block", "smem", "workspace", "layout")}
    assert p == {"key": k.key, "args": [0, 1], "grid": [4, 1, 1], "block": [256, 1, 1], "smem": 4096,
                 "workspace": 8192, "layout": "contiguous"}
    assert "__global__" not in emit_cuda(module)  # no kernel of ours is left to emit
