"""Compile time grows linearly with the program (issue 10): guarded by counting work,
not by wall-clock time (the CI machine is shared and noisy).

- aicf-fuse: the ops its cost model analyses and the groups its cycle check visits,
  for a chain of n and of 4n ops (bench/compile_time.py's programs);
- the C emitter: no function of a long program is longer than a bound (gcc's time is
  superlinear in a function's size), identical steps are one function (repeated
  layers are compiled once), and the split program still computes the right answer
  against NumPy float64."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

import aicf
from aicf.backend.c.emit import emit_c

from aicf.backend.c.steps import PART_STATEMENTS
from aicf.compiler import pipeline_for, run_pipeline
from aicf.context import make_context
from aicf.diagnostics import parse_module
from aicf.passes.tensor import fuse

STEP_LINES = 200  # one nest (or group, gather, copy) per step function

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from compile_time import fused_chain, reduction_chain, unfused_chain  # noqa: E402


def fusion_work(n: int, monkeypatch) -> int:
    """Ops priced plus ops walked by the cycle check of aicf-fuse, on a fused chain of n
    ops."""
    work = [0]
    cost, preds = fuse._Fuser.cost, fuse._Fuser.preds

    def counting_cost(self, g, *args):
        work[0] += len(g.ops)
        return cost(self, g, *args)

    def counting_preds(self, ops, members):
        ops = list(ops)
        work[0] += len(ops)
        return preds(self, ops, members)

    monkeypatch.setattr(fuse._Fuser, "cost", counting_cost)
    monkeypatch.setattr(fuse._Fuser, "preds", counting_preds)
    fuse_only(fused_chain(n))
    monkeypatch.undo()
    return work[0]


def fuse_only(text: str) -> None:
    """The cpu pipeline up to aicf-fuse, on `text`."""
    module = parse_module(make_context(), text, "program.mlir")
    passes = pipeline_for("cpu")
    run_pipeline(module, passes[: passes.index("aicf-fuse{target=cpu}") + 1])


def test_fusion_work_is_linear_in_the_chain(monkeypatch):
    small, big = fusion_work(300, monkeypatch), fusion_work(1200, monkeypatch)
    assert small > 0
    # linear: 4x (the sibling scan that priced every pair of groups gave 6.6x here)
    assert big <= 4.6 * small, (small, big)


def siblings(n: int) -> str:
    """n ops that all read one input (their results all returned): sibling fusion's
    worst case."""
    lines = [f"  %c{i} = aicf_tensor.constant dense<{i}.0> : tensor<4xf32>\n"
             f"  %y{i} = aicf_tensor.add %x, %c{i} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>" for i in range(n)]
    types = ", ".join(["tensor<4xf32>"] * n)
    rets = ", ".join(f"%y{i}" for i in range(n))
    return f"func.func @main(%x: tensor<4xf32>) -> ({types}) {{\n" + "\n".join(lines) + \
        f"\n  func.return {rets} : {types}\n}}\n"


def test_sibling_fusion_prices_a_window_of_readers_not_every_pair(monkeypatch):
    """120 readers of one value took 28 s (every pair of sibling groups priced, each
    at the growing group's size; 2000 did not finish in 10 minutes)."""
    def merges(n: int) -> int:
        count = [0]
        try_merge = fuse._Fuser.try_merge

        def counting(self, p, c):
            count[0] += 1
            return try_merge(self, p, c)

        monkeypatch.setattr(fuse._Fuser, "try_merge", counting)
        fuse_only(siblings(n))
        monkeypatch.undo()
        return count[0]

    small, big = merges(50), merges(200)
    assert 0 < small <= 50 * fuse.SIBLING_WINDOW and big <= 4.5 * small, (small, big)


def function_lengths(c: str) -> list[int]:
    """Lines of each top-level C function definition."""
    lengths, start = [], None
    for i, line in enumerate(c.splitlines()):
        if re.match(r"^(static |int )\S.*\) \{$", line):
            start = i
        elif line == "}" and start is not None:
            lengths.append(i - start)
            start = None
    return lengths


def emitted(n: int) -> str:
    module = parse_module(make_context(), unfused_chain(n), "chain.mlir")
    run_pipeline(module, pipeline_for("cpu"))
    return emit_c(module)


def test_long_programs_are_split_into_bounded_functions():
    c = emitted(480)
    lengths = function_lengths(c)
    assert len(lengths) > 8  # steps, parts and the entry
    assert max(lengths) <= max(STEP_LINES, PART_STATEMENTS + 6)
    entry = c.split("int aicf_f(")[1].split("\n}\n")[0]
    assert "#pragma" not in entry and "for (" not in entry.replace("for (int k = 0; k <", "")
    assert "aicf_f_part0(" in entry


def test_repeated_steps_are_compiled_once():
    """tanh(x @ w) repeated: the steps are the same few functions at any length (the C
    compiler builds each once), and the source grows linearly (the calls)."""
    small, big = emitted(120), emitted(480)
    steps = [set(re.findall(r"static int __attribute__\(\(noinline\)\) (aicf_f_step\d+)\(", c))
             for c in (small, big)]
    assert steps[0] == steps[1] and 2 <= len(steps[0]) <= 6, steps
    assert big.count("\n") <= 4.6 * small.count("\n")


@pytest.mark.parametrize("n", [8, 120])
def test_split_program_matches_numpy(n):
    """Both sizes run as step functions: tanh(... tanh(x @ w) @ w)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 16)).astype(np.float32)
    w = (rng.standard_normal((16, 16)) / 4).astype(np.float32)
    exe = aicf.compile(unfused_chain(n), target="cpu")
    assert "aicf_f_step1" in exe.source
    ref = x.astype(np.float64)
    for _ in range(n // 2):
        ref = np.tanh(ref @ w.astype(np.float64))
    out = exe(x, w)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)


def test_split_program_with_failing_allocation_paths_and_reductions_matches_numpy():
    """Parts that allocate scratch (outer reductions: `goto fail` inside the part) and
    read arguments through runtime strides."""
    t, r = "tensor<64x32xf32>", "tensor<1x32xf32>"
    lines = [f"func.func @f(%x: {t}) -> {t} {{"]
    prev = "%x"
    for i in range(40):
        lines += [f"  %s{i} = aicf_tensor.reduce_sum {prev} axes = [0] keepdims : ({t}) -> {r}",
                  f"  %e{i} = aicf_tensor.sub {prev}, %s{i} : ({t}, {r}) -> {t}",
                  f"  %t{i} = aicf_tensor.tanh %e{i} : ({t}) -> {t}"]  # fmt: skip
        prev = f"%t{i}"
    lines += [f"  func.return {prev} : {t}", "}"]
    exe = aicf.compile("\n".join(lines), target="cpu", fuse=False)
    assert "aicf_f_step1" in exe.source
    x = np.random.default_rng(1).standard_normal((128, 32)).astype(np.float32)[::2]  # strided
    ref = x.astype(np.float64)
    for _ in range(40):
        ref = np.tanh(ref - ref.sum(axis=0, keepdims=True))
    np.testing.assert_allclose(exe(x), ref, rtol=1e-4, atol=1e-5)


def test_shared_steps_read_their_own_strided_arguments():
    """Two identical nests over different strided views: one step function, called
    with each view's pointer and run-time strides."""
    src = """
func.func @f(%x: tensor<64x32xf32>, %y: tensor<64x32xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %a = aicf_tensor.tanh %x : (tensor<64x32xf32>) -> tensor<*xf32>
  %b = aicf_tensor.tanh %y : (tensor<64x32xf32>) -> tensor<*xf32>
  func.return %a, %b : tensor<*xf32>, tensor<*xf32>
}"""
    exe = aicf.compile(src, target="cpu")
    rng = np.random.default_rng(2)
    x = rng.standard_normal((128, 32)).astype(np.float32)[::2]
    y = rng.standard_normal((32, 64)).astype(np.float32).T
    a, b = exe(x, y)
    np.testing.assert_allclose(a, np.tanh(x.astype(np.float64)), rtol=2e-7 * 4, atol=1e-7)
    np.testing.assert_allclose(b, np.tanh(y.astype(np.float64)), rtol=2e-7 * 4, atol=1e-7)


def gpu_kernels(n: int) -> int:
    """Kernels of the tanh(x @ w) chain of n ops lowered for sm_90 (no GPU needed)."""
    from aicf.compiler import target_pipeline
    from aicf.dialects.gpu import KernelOp

    module = parse_module(make_context(), unfused_chain(n), "chain.mlir")
    tp = target_pipeline("cuda", gpu="h100")
    run_pipeline(module, pipeline_for("cuda", tune=False)[:-1] + tp[1:])
    return sum(isinstance(op, KernelOp) for op in module.walk())


def test_repeated_nests_share_their_gpu_kernels():
    """The GPU lowering builds each distinct nest once (lowering/replay.py): the
    kernels of a repeated layer do not grow with the number of layers."""
    small, big = gpu_kernels(20), gpu_kernels(80)
    assert 1 <= small <= 6 and big == small, (small, big)


ANALYZED = """
func.func @f(%x: tensor<8x16xf32>, %r: tensor<16xf32>, %c: tensor<8x1xf32>) -> (tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x16xf32>) {
  %a = aicf_tensor.sin %x : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %b = aicf_tensor.add %a, %r : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %s = aicf_tensor.reduce_sum %b axes = [1] keepdims : (tensor<8x16xf32>) -> tensor<8x1xf32>
  %m = aicf_tensor.mul %s, %c : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
  %d = aicf_tensor.sub %b, %m : (tensor<8x16xf32>, tensor<8x1xf32>) -> tensor<8x16xf32>
  %e = aicf_tensor.exp %d : (tensor<8x16xf32>) -> tensor<8x16xf32>
  func.return %a, %m, %e : tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x16xf32>
}
"""


@pytest.mark.parametrize("k", range(1, 6))
def test_a_resumed_analysis_is_the_whole_one(k):
    """aicf-fuse grows a chain's group by resuming the analysis of its first ops
    (fusion_domain.analyze(prefix=)): the same domain as analysing the whole group,
    whether the later ops keep the prefix's domain or change it (the reduction)."""
    from aicf.passes.tensor import fusion_domain
    from aicf.passes.tensor.fusion_domain import analyze

    module = parse_module(make_context(), ANALYZED, "f.mlir")
    ops = list(module.ops.first.body.block.ops)[:-1]
    outputs = [ops[0].results[0], ops[3].results[0], ops[5].results[0]]

    def facts(dom):
        return (dom.shape, dom.axes, dom.maps, dom.levels, dom.full_outputs, dom.kept_outputs, dom.depth, dom.size)

    whole = analyze(ops, outputs)
    prefix = analyze(ops[:k], [])
    assert facts(analyze(ops, outputs, prefix=prefix)) == facts(whole)
    # resumed once the reduction (which sets the domain) is in the prefix
    assert (fusion_domain._resume(prefix, ops) is not None) == (k >= 3)


def compile_cpu_seconds(src: str) -> float:
    """Process CPU time of parse, the cpu pipeline and the C emitter (not the C build):
    steadier than wall time on a shared machine."""
    import time

    t = time.process_time()
    module = parse_module(make_context(), src, "chain.mlir")
    run_pipeline(module, pipeline_for("cpu"))
    emit_c(module)
    return time.process_time() - t


@pytest.mark.parametrize("make, n", [(fused_chain, 500), (unfused_chain, 100)])
def test_the_whole_compile_grows_linearly(make, n):
    """4x the ops, about 4x the time (measured 3.9-4.0x; a quadratic part shows as
    much more: the fusion pass's sibling scan gave 6.6x on its own). The best of three
    interleaved runs each, and a bound with room for a loaded machine."""
    import gc

    compile_cpu_seconds(make(50))  # imports and first-use caches
    small, big = [], []
    for _ in range(3):  # interleaved, so a busy spell of the machine hits both sizes
        for size, times in ((n, small), (4 * n, big)):
            gc.collect()
            times.append(compile_cpu_seconds(make(size)))
    assert min(big) <= 6.0 * min(small), (small, big)


def test_parsing_asks_no_span_for_its_line(monkeypatch):
    """The parser gives every op its line by bisecting the line starts: xDSL's
    Span.get_location counts the newlines from the start of the input, which over a
    module's ops is quadratic (4 of 12 s parsing GPT-2's GPU module)."""
    from xdsl.utils.lexer import Span

    def counting(self):
        raise AssertionError("Span.get_location on a successful parse")

    monkeypatch.setattr(Span, "get_location", counting)
    module = parse_module(make_context(), unfused_chain(20), "chain.mlir")
    ops = list(module.ops.first.body.block.ops)
    assert [op.location.line.data for op in ops[:3]] == [2, 3, 4]
    assert ops[0].location.column.data == 3 and ops[0].location.filename.data == "chain.mlir"


def test_a_large_program_is_verified_once_a_small_one_after_each_pass(monkeypatch):
    """Verifying after each pass cost a third of a 5000-op chain's compile: past
    VERIFY_EACH_PASS_MAX_OPS only the result is verified (AICF_DEBUG verifies each)."""
    from aicf import compiler

    calls = []
    real = compiler.verify_module
    monkeypatch.setattr(compiler, "verify_module", lambda m: (calls.append(1), real(m))[1])
    monkeypatch.delenv("AICF_DEBUG", raising=False)
    passes = [p for p in pipeline_for("cpu")]

    def run(limit: int) -> int:
        calls.clear()
        monkeypatch.setattr(compiler, "VERIFY_EACH_PASS_MAX_OPS", limit)
        run_pipeline(parse_module(make_context(), fused_chain(20), "<t>"), passes)
        return len(calls)

    # after each pass that changed the IR (fused_chain(20): shapes inferred, fused,
    # lowered, planned; the others leave it as it is)
    changed = run(10**9)
    assert 3 <= changed < len(passes), changed
    assert run(0) == 1
    monkeypatch.setenv("AICF_DEBUG", "1")
    assert run(0) == changed


def test_a_pass_that_changes_nothing_is_not_verified_again_one_that_breaks_the_ir_is(monkeypatch):
    """The IR is verified after a pass only when the pass changed it (ir_snapshot):
    the same IR verifies as it did. A change the snapshot must see: an attribute
    replaced with an invalid one."""
    from xdsl.dialects.builtin import StringAttr

    from aicf import compiler
    from aicf.errors import CompileError
    from aicf.passes.tensor.fuse import FusePass

    calls = []
    real = compiler.verify_module
    monkeypatch.setattr(compiler, "verify_module", lambda m: (calls.append(1), real(m))[1])
    module = parse_module(make_context(), fused_chain(20), "<t>")
    run_pipeline(module, ["cse", "cse", "canonicalize"])
    assert len(calls) == 1  # the first: run_pipeline does not know its input was verified

    def breaking(self, ctx, op):
        fn = next(o for o in op.walk() if o.name == "func.func")
        fn.attributes["aicf.num_outputs"] = StringAttr("two")  # not an integer

    monkeypatch.setattr(FusePass, "apply", breaking)
    with pytest.raises(CompileError, match="aicf.num_outputs must be an integer"):
        run_pipeline(module, ["aicf-fuse{target=cpu}"])


def test_a_type_is_parsed_once_per_distinct_text(monkeypatch):
    """The parser memoises plain shaped types by their text (half of a long chain's
    parse was xDSL parsing `tensor<256xf32>` again and again); other spellings of a
    type still parse, to the same type."""
    from xdsl.parser import Parser

    parsed = []
    real = Parser._parse_tensor_attrs
    monkeypatch.setattr(Parser, "_parse_tensor_attrs", lambda self: (parsed.append(1), real(self))[1])
    src = """func.func @f(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %a = aicf_tensor.sin %x : (tensor<4x?xf32>) -> tensor<4x?xf32>
  %b = aicf_tensor.cos %a : (tensor< 4x?xf32 >) -> tensor<4x?xf32>
  %c = aicf_tensor.neg %b : (tensor<4x?xf32>) -> tensor<4x?xf32>
  func.return %c : tensor<4x?xf32>
}"""
    module = parse_module(make_context(), src, "f.mlir")
    assert len(parsed) == 2  # `tensor<4x?xf32>` once, the spaced spelling once
    ops = list(module.ops.first.body.block.ops)
    types = {v.type for op in ops for v in (*op.operands, *op.results)}
    assert len(types) == 1 and str(types.pop()) == "tensor<4x?xf32>"


def test_a_group_slices_its_local_buffers_in_one_walk_of_its_members(monkeypatch):
    """GroupOp.slice_locals read every member's maps once per group-local buffer: a
    group of n reductions (about n buffers, n members) cost n^2, half of the C
    emitter's time on a 5000-op reduction chain. One walk now, whatever the buffers."""
    from aicf.dialects.loop import GroupOp, NestOp

    module = parse_module(make_context(), reduction_chain(120), "chain.mlir")
    run_pipeline(module, pipeline_for("cpu"))
    groups = [op for op in module.walk() if isinstance(op, GroupOp)]
    big = max(groups, key=lambda g: len(g.nests))
    assert len(big.nests) > 20 and isinstance(big.slice_locals(), dict)
    reads = [0]
    maps = NestOp.maps

    def counted(self):
        reads[0] += 1
        return maps.fget(self)

    monkeypatch.setattr(NestOp, "maps", property(counted))
    expected = big.slice_locals()
    assert reads[0] <= len(big.nests), (reads[0], len(big.nests))
    monkeypatch.undo()
    assert expected == big.slice_locals()


def test_a_kept_cone_is_the_walked_one():
    """aicf-fuse keeps each nest's cone (GroupDomain.inlined) in a group's analysis and
    in the analyses resumed from it, and a walk reaching a value of known cone takes
    that cone whole: on chains of reductions and of elementwise ops, and on row
    groups with diamonds, every cone given equals a fresh walk of the same domain."""
    from aicf.passes.tensor import fusion_domain

    checked = [0]
    inlined = fusion_domain.GroupDomain.inlined

    def checking(self, nest):
        got = inlined(self, nest)
        fresh = fusion_domain.GroupDomain(self.shape, self.axes, self.maps, self.levels)
        assert set(got) == set(fresh._inlined(nest)) and len(got) == len(set(got))
        checked[0] += 1
        return got

    for src in (reduction_chain(200), fused_chain(200), ANALYZED):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(fusion_domain.GroupDomain, "inlined", checking)
            module = parse_module(make_context(), src, "chain.mlir")
            passes = pipeline_for("cpu")
            run_pipeline(module, passes[: passes.index("aicf-fuse{target=cpu}") + 1])
    assert checked[0] > 400


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_a_large_closed_over_array_is_emitted_as_bytes(dtype):
    """A 1024x1024 f32 matrix a jitted function closed over became a C list of a
    million literals: gcc took ~15 s and GBs (4096x4096: 263 s and 5 GB). Its bytes are
    one string now (under a second); the values, NaN payloads, -0.0 and subnormals
    included, come back exactly."""
    rng = np.random.default_rng(0)
    if np.dtype(dtype).kind == "f":
        w = rng.standard_normal((512, 256)).astype(dtype)
        w.flat[:4] = [np.nan, -0.0, np.inf, np.finfo(dtype).smallest_subnormal]
    else:
        w = rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, (512, 256), dtype=dtype, endpoint=True)
    f = aicf.jit(lambda x: x + w)  # noqa: B023
    zero = np.array(-0.0 if np.dtype(dtype).kind == "f" else 0, dtype)  # -0.0 + -0.0 is -0.0
    source = f.executable(zero).source
    assert source.count(",") < 10_000, "a literal per element"
    np.testing.assert_array_equal(f(zero).view(np.uint8), w.view(np.uint8))
