"""The compiled-program cache (aicf/program_cache.py): a second compile of the same
program, target and options is built from the disk entry without running a pass;
anything that changes the result misses; the IR it keeps is parsed only when asked
for; a cached cuda program is what the compiled one was."""

from __future__ import annotations

import json

import numpy as np
import pytest

import aicf
from aicf import compiler, program_cache
from aicf.program_cache import LazyModule
from gpu_support import cp, gpu

SRC = """
func.func @f(%x: tensor<64x32xf32>, %b: tensor<32xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.add %x, %b : (tensor<64x32xf32>, tensor<32xf32>) -> tensor<*xf32>
  %1 = aicf_tensor.tanh %0 : (tensor<*xf32>) -> tensor<*xf32>
  %2 = aicf_tensor.reduce_sum %1 axes = [0] : (tensor<*xf32>) -> tensor<*xf32>
  func.return %2 : tensor<*xf32>
}
"""


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("AICF_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("AICF_PROGRAM_CACHE", raising=False)
    compiler._CPU_MODULES.clear()  # the in-memory cache of compiled text, in front of this one
    yield tmp_path / "programs"
    compiler._CPU_MODULES.clear()


def entries(d) -> int:
    return len(list(d.glob("*.json"))) if d.exists() else 0


def inputs():
    rng = np.random.default_rng(0)
    return rng.standard_normal((64, 32)).astype(np.float32), rng.standard_normal(32).astype(np.float32)


def reference(x, b):
    return np.tanh(x.astype(np.float64) + b).sum(axis=0)


def test_a_second_compile_runs_no_pass(cache, monkeypatch):
    first = aicf.compile(SRC, target="cpu")
    assert entries(cache) == 1
    compiler._CPU_MODULES.clear()

    def no_pass(*args, **kwargs):
        raise AssertionError("a cached program ran a pass")

    monkeypatch.setattr(compiler, "run_pipeline", no_pass)
    again = aicf.compile(SRC, target="cpu")
    assert isinstance(again._module, LazyModule)  # nothing parsed yet
    x, b = inputs()
    np.testing.assert_allclose(again(x, b), reference(x, b), rtol=1e-5)
    assert again.pipeline == first.pipeline and again.source == first.source
    assert [(a.name, a.dtype, a.shape) for a in again.inputs] == [(a.name, a.dtype, a.shape) for a in first.inputs]
    assert str(again.module) == str(first.module)  # parsed on demand
    assert "cpu.nest" in again.explain()


def test_a_program_without_outputs_is_cached_too(cache, monkeypatch):
    """Its entry has as many inputs as argument specs: it was refused as corrupt
    ("ignored (input count)") and the program compiled again on every process."""
    src = "func.func @f(%x: tensor<4xf32>) {\n  func.return\n}\n"
    aicf.compile(src, target="cpu")
    assert entries(cache) == 1
    compiler._CPU_MODULES.clear()

    def no_pass(*args, **kwargs):
        raise AssertionError("a cached program ran a pass")

    monkeypatch.setattr(compiler, "run_pipeline", no_pass)
    assert aicf.compile(src, target="cpu")(np.ones(4, np.float32)) == ()


def test_a_cached_program_takes_strided_views(cache):
    aicf.compile(SRC, target="cpu")
    compiler._CPU_MODULES.clear()
    again = aicf.compile(SRC, target="cpu")
    x, b = inputs()
    xt = np.ascontiguousarray(x.T).T  # column-major: the strided variant, built from the kept IR
    np.testing.assert_allclose(again(xt, b), reference(x, b), rtol=1e-5)


def test_what_changes_the_program_misses(cache, monkeypatch):
    aicf.compile(SRC, target="cpu")
    aicf.compile(SRC, target="cpu", fuse=False)
    aicf.compile(SRC.replace("tanh", "sin"), target="cpu")
    assert entries(cache) == 3
    compiler._CPU_MODULES.clear()
    monkeypatch.setattr(program_cache, "compiler_id", lambda: "another aicf")
    aicf.compile(SRC, target="cpu")
    assert entries(cache) == 4


def test_module_input_is_keyed_on_its_text(cache):
    from aicf.context import make_context
    from aicf.diagnostics import parse_module

    module = parse_module(make_context(), SRC, "f.mlir")
    aicf.compile(module, target="cpu")
    aicf.compile(module, target="cpu")
    assert entries(cache) == 1
    x, b = inputs()
    np.testing.assert_allclose(aicf.compile(module.clone(), target="cpu")(x, b), reference(x, b), rtol=1e-5)


def test_it_can_be_turned_off(cache, monkeypatch):
    monkeypatch.setenv("AICF_PROGRAM_CACHE", "0")
    aicf.compile(SRC, target="cpu")
    assert entries(cache) == 0


def test_a_corrupt_entry_is_rebuilt(cache):
    aicf.compile(SRC, target="cpu")
    (entry,) = cache.glob("*.json")
    entry.write_text("{}")  # its digest no longer matches
    compiler._CPU_MODULES.clear()
    x, b = inputs()
    np.testing.assert_allclose(aicf.compile(SRC, target="cpu")(x, b), reference(x, b), rtol=1e-5)


def test_a_cached_cuda_program_is_the_compiled_one():
    """Without a GPU: the cached form (host function and kernel facts, no kernel
    bodies parsed) holds what the compiled program holds."""
    from aicf.backend.cuda.emit import kernels_of
    from aicf.backend.cuda.program import CudaProgram
    from aicf.compiler import pipeline_for, run_pipeline
    from aicf.context import make_context
    from aicf.diagnostics import parse_module

    module = parse_module(make_context(), SRC, "f.mlir")
    run_pipeline(module, pipeline_for("cuda", tune=False))
    prog = CudaProgram(module, "f")
    cached = CudaProgram.cached(prog.artifact(), "f", module)
    assert (cached.entry, cached.num_inputs, cached.num_outputs) == (prog.entry, prog.num_inputs, prog.num_outputs)
    assert cached.arg_types == prog.arg_types and cached.source == prog.source
    assert [op.name for op in cached.func.body.block.ops] == [op.name for op in prog.func.body.block.ops]
    assert cached.kernel_facts() == prog.kernel_facts()
    assert {f["name"] for f in cached.kernel_facts()} == {k.kernel_name for k in kernels_of(prog.module)}
    assert isinstance(cached._module, LazyModule) and str(cached.module) == str(prog.module)


MATMUL_CONST = """
func.func @g(%x: tensor<64x32xf32>, %w: tensor<32x48xf32>) -> tensor<*xf32> {
  %c = aicf_tensor.constant dense<[BIAS]> : tensor<48xf32>
  %m = aicf_tensor.matmul %x, %w : (tensor<64x32xf32>, tensor<32x48xf32>) -> tensor<*xf32>
  %y = aicf_tensor.add %m, %c : (tensor<*xf32>, tensor<48xf32>) -> tensor<*xf32>
  %z = aicf_tensor.tanh %y : (tensor<*xf32>) -> tensor<*xf32>
  func.return %z : tensor<*xf32>
}
""".replace("BIAS", ", ".join(f"{0.25 * i}" for i in range(48)))


def test_a_cached_cuda_program_needs_no_host_ir_to_run():
    """The launch plan is built from the host function's records: a cached program
    has them without parsing its host IR, each step names the slots the host ops
    use, and a library call rebuilt from its record is the op it was."""
    from aicf.backend.cuda.program import CudaProgram, library_op
    from aicf.compiler import pipeline_for, run_pipeline
    from aicf.context import make_context
    from aicf.diagnostics import parse_module
    from aicf.dialects import gpu as gpu_dialect

    module = parse_module(make_context(), MATMUL_CONST, "g.mlir")
    run_pipeline(module, pipeline_for("cuda", tune=False, force=("gpu.cublas_gemm",)))
    prog = CudaProgram(module, "g")
    cached = CudaProgram.cached(json.loads(json.dumps(prog.artifact())), "g", module)
    assert cached._host._module is None and cached._consts._module is None  # nothing parsed yet
    assert cached._host_plan == prog._host_plan
    kinds = [st[0] for st in cached._host_plan["steps"]]
    assert "library" in kinds and "const" in kinds and "launch" in kinds and "other" not in kinds
    calls = [op for op in prog.func.body.block.ops if isinstance(op, gpu_dialect.LibraryCallOp)]
    recs = [st for st in cached._host_plan["steps"] if st[0] == "library"]
    assert len(calls) == len(recs)
    for op, rec in zip(calls, recs):
        rebuilt = library_op(*rec[1:5])
        assert rebuilt.routine == op.routine and rebuilt.params == op.params
        assert [v.type for v in rebuilt.inputs] == [v.type for v in op.inputs]
        assert [v.type for v in rebuilt.outputs] == [v.type for v in op.outputs]
    assert cached._host._module is None  # still: the records are all a run reads
    # the entry's checks: a record of this program passes, edits that misdescribe it do not
    from aicf.compiler import arg_specs

    ins, outs = arg_specs(prog.func, ["x", "w"])
    record = {"target": "cuda", "entry": "g", "num_inputs": len(ins), "pipeline": ["p"], "loop_module": "",
              "specs": [[a.name, a.dtype.str, list(a.shape), a.mlir_type] for a in (*ins, *outs)],
              "cuda": json.loads(json.dumps(prog.artifact()))}
    assert program_cache.record_problem(record, "cuda") is None
    assert program_cache.record_problem({**record, "specs": record["specs"][:-1]}, "cuda") is not None
    assert program_cache.record_problem({**record, "entry": "h"}, "cuda") is not None
    assert program_cache.record_problem(record, "cpu") is not None


@gpu
@pytest.mark.gpu
def test_a_cached_cuda_program_runs(cache, monkeypatch):
    first = aicf.compile(SRC, target="cuda")
    monkeypatch.setattr(compiler, "run_pipeline", lambda *a, **k: pytest.fail("a cached program ran a pass"))
    again = aicf.compile(SRC, target="cuda")
    x, b = inputs()
    np.testing.assert_allclose(cp.asnumpy(again(x, b)), reference(x, b), rtol=1e-4)
    np.testing.assert_allclose(cp.asnumpy(again(x, b)), cp.asnumpy(first(x, b)), rtol=1e-6)
    assert "kernel" in again.explain()


def _edited(record: dict, edit: str) -> None:
    specs = record["specs"]
    if edit == "drop an output spec":
        specs.pop()
    elif edit == "drop the C source":
        del record["cpu"]
    elif edit == "specs not a list":
        record["specs"] = "x"
    elif edit == "pipeline an int":
        record["pipeline"] = 5
    elif edit == "entry renamed":
        record["entry"] = "g"
    elif edit == "one input too many":
        record["num_inputs"] += 1
    elif edit == "output shape":
        specs[-1][2] = [1]
    elif edit == "input dtype":
        specs[0][1] = "<f8"
    elif edit == "swap specs":
        specs[0], specs[1] = specs[1], specs[0]
    else:
        assert edit == "bool extent"
        specs[0][2] = [True, 32]


@pytest.mark.parametrize("edit", ["drop an output spec", "drop the C source", "specs not a list", "pipeline an int",
                                  "entry renamed", "one input too many", "output shape", "input dtype", "swap specs",
                                  "bool extent"])
def test_a_signed_entry_that_describes_no_program_is_compiled_again(cache, edit):
    """An entry whose digest matches but whose content does not fit (written by hand or
    by another tool) is ignored and replaced, not run: dropping an output spec made
    the C code read a buffer nobody passed (SIGSEGV), and a smaller output spec would
    be written past its end."""
    from aicf.backend import disk_cache

    x, b = inputs()
    aicf.compile(SRC, target="cpu")
    (path,) = list(cache.glob("*.json"))
    original = path.read_text()
    record = json.loads(original)
    _edited(record, edit)
    disk_cache.store("programs", path.stem, ".json", json.dumps(record).encode())
    compiler._CPU_MODULES.clear()
    np.testing.assert_allclose(aicf.compile(SRC, target="cpu")(x, b), reference(x, b), rtol=1e-5)
    assert json.loads(path.read_text()) == json.loads(original)  # the entry written again
