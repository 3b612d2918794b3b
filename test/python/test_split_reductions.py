"""aicf-split-reductions (passes/loop/split_reductions.py): a reduction nest the
planner split becomes a partial nest over `split` chunks (guarded where the last chunk
is shorter) and a combine nest. The parts are plain nests, so their
numerics are checked on the cpu target (schedules stripped and planned for the cpu
after the split) against NumPy in float64; and a split the planner chose on the
H100's description is checked to lower as nests."""

from __future__ import annotations

import numpy as np
import pytest

from xdsl.dialects.builtin import ArrayAttr, StringAttr

import aicf
from aicf.compiler import run_pipeline
from aicf.context import make_context
from aicf.diagnostics import parse_module
from aicf.dialects.loop import NestOp
from aicf.dialects.schedule import SCHEDULE_ATTR, Schedule, schedule_of
from aicf.passes.loop.split_reductions import split_reductions

ROWS = dict(vec=1, mode="block", block=32, grid=1, split=1, unroll=1, minblocks=1)
PER_OUTPUT = dict(vec=1, block=32, grid=1, split=1, unroll=1, minblocks=1)

OPS = {"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod}


# the tensor level has no min or product reduction: their nests are a max's and a
# sum's with the combiner changed
COMBINER = {"min": ("max", "min"), "prod": ("sum", "mul")}


def program(op: str, shape, axes, dtype: str, keepdims: bool) -> str:
    op = COMBINER.get(op, (op,))[0]
    rank = len(shape)
    axes = sorted(a % rank for a in axes)
    out = [1 if d in axes else n for d, n in enumerate(shape)] if keepdims else \
        [n for d, n in enumerate(shape) if d not in axes]
    t_in = f"tensor<{'x'.join(map(str, shape))}x{dtype}>"
    t_out = f"tensor<{'x'.join(map(str, out))}x{dtype}>" if out else f"tensor<{dtype}>"
    kd = " keepdims" if keepdims else ""
    return (f"func.func @f(%x: {t_in}) -> {t_out} {{\n"
            f"  %y = aicf_tensor.reduce_{op} %x axes = {axes}{kd} : ({t_in}) -> {t_out}\n"
            f"  func.return %y : {t_out}\n}}\n")


def split_and_run(text: str, kind: str, split: int, x: np.ndarray, combiner: str | None = None,
                  passes=("aicf-infer-shapes", "aicf-lower-to-loops")) -> np.ndarray:
    m = parse_module(make_context(), text, "<test>")
    run_pipeline(m, list(passes))
    nests = [n for n in m.walk() if isinstance(n, NestOp) and n.reduction_dims]
    assert len(nests) == 1
    if combiner is not None:
        nests[0].combiners = ArrayAttr([StringAttr(combiner)])
    base = ROWS if kind == "gpu.rows" else PER_OUTPUT
    nests[0].attributes[SCHEDULE_ATTR] = Schedule(kind, {
        **base, "split": split, "combine": Schedule(kind, base)}).to_attr()
    extent = nests[0].extents[nests[0].reduction_dims[0]]
    if split > extent:  # the reduction dims made one: all their points
        extent = int(np.prod([nests[0].extents[d] for d in nests[0].reduction_dims]))
    split_reductions(m)
    after = [n for n in m.walk() if isinstance(n, NestOp)]
    assert len(after) == 2  # partial, combine
    q = -(-extent // split)
    assert (after[0].guard is not None) == (extent % q != 0)  # a ragged last chunk
    for n in after:
        del n.attributes[SCHEDULE_ATTR]
    return aicf.compile(m, target="cpu")(x)


CASES = [
    # (op, shape, axes, keepdims, split): divisible and not (a tail), the outermost
    # reduction dim of several, reductions over outer and inner axes
    ("sum", (1000, 64), [0], False, 8),
    ("sum", (1001, 63), [0], False, 7),
    ("max", (6, 1001), [1], True, 4),
    ("min", (5, 997), [-1], False, 13),
    ("sum", (4, 30, 9), [1, 2], False, 3),
    ("sum", (30, 4, 9), [0, 2], True, 4),
    ("prod", (3, 40), [1], False, 6),
    ("max", (17,), [0], False, 5),
    # more chunks than the outermost reduction dim has points: the reduction dims are
    # made one first (adjacent or not, ragged or not)
    ("sum", (2, 1001), [0, 1], False, 7),
    ("max", (3, 5, 7), [0, 2], True, 10),
    ("sum", (4, 3, 6), [1, 2], False, 5),
]


@pytest.mark.parametrize("kind", ["gpu.per_output", "gpu.rows"])
@pytest.mark.parametrize("op,shape,axes,keepdims,split", CASES)
def test_split_matches_numpy(kind, op, shape, axes, keepdims, split):
    rng = np.random.default_rng(len(shape) * 1000 + split)
    x = rng.standard_normal(shape).astype(np.float32)
    if op == "prod":
        x = (1 + 0.01 * x).astype(np.float32)
    got = split_and_run(program(op, shape, axes, "f32", keepdims), kind, split, x,
                        COMBINER[op][1] if op in COMBINER else None)
    want = OPS[op](x.astype(np.float64), axis=tuple(axes), keepdims=keepdims)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("dtype", ["f16", "i32"])
def test_split_in_the_accumulators_type(dtype):
    """The partials are stored in the accumulator's type (f32 for an f16 sum), so the
    split rounds the result once, as the unsplit nest does."""
    rng = np.random.default_rng(3)
    shape = (2003, 16)
    if dtype == "i32":
        x = rng.integers(-1000, 1000, shape).astype(np.int32)
        want = x.astype(np.int64).sum(0)
    else:
        x = rng.standard_normal(shape).astype(np.float16)
        want = x.astype(np.float64).sum(0)
    got = split_and_run(program("sum", shape, [0], dtype, False), "gpu.per_output", 9, x)
    if dtype == "i32":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got.astype(np.float64), want, rtol=2e-3, atol=2e-2)


@pytest.mark.parametrize("kind", ["gpu.per_output", "gpu.rows"])
def test_split_of_a_folded_view_verifies(kind):
    """A transposed tensor reshaped reads through floordiv/mod once aicf-fold-view-copies
    folds the copies: the partial's last chunk (34 of 100 points, 32 left) keeps its
    reads inside the buffer through the guard, which the verifier must see past the
    floordiv (it refused the pass's own output: index 80 of dim 1)."""
    text = ("func.func @f(%x: tensor<10x80xf32>) -> tensor<8xf32> {\n"
            "  %t = aicf_tensor.transpose %x perm = [1, 0] : (tensor<10x80xf32>) -> tensor<80x10xf32>\n"
            "  %r = aicf_tensor.reshape %t : (tensor<80x10xf32>) -> tensor<8x100xf32>\n"
            "  %y = aicf_tensor.reduce_sum %r axes = [1] : (tensor<8x100xf32>) -> tensor<8xf32>\n"
            "  func.return %y : tensor<8xf32>\n}\n")
    x = np.random.default_rng(4).standard_normal((10, 80)).astype(np.float32)
    got = split_and_run(text, kind, 3, x,
                        passes=("aicf-infer-shapes", "aicf-lower-to-loops", "aicf-fold-view-copies"))
    np.testing.assert_allclose(got, x.T.reshape(8, 100).astype(np.float64).sum(1), rtol=1e-5, atol=1e-5)


def test_the_planner_splits_few_long_rows_and_the_parts_lower():
    """On the H100's description, 8 rows of 2^20 halves are split: the partial nest
    takes the planner's kernel parameters, the combine nest its nested schedule, and
    each part lowers to its own kernel."""
    text = program("max", (8, 1 << 20), [1], "f16", True)
    m = parse_module(make_context(), text, "<test>")
    run_pipeline(m, ["aicf-infer-shapes", "aicf-lower-to-loops", "aicf-plan{target=h100}"])
    (nest,) = [n for n in m.walk() if isinstance(n, NestOp)]
    s = schedule_of(nest)
    assert s is not None and s["split"] > 1 and isinstance(s["combine"], Schedule)
    run_pipeline(m, ["aicf-split-reductions"])
    parts = [n for n in m.walk() if isinstance(n, NestOp)]
    assert len(parts) == 2
    partial = schedule_of(parts[0])
    assert partial is not None and partial.kind == s.kind and partial["split"] == 1
    assert {k: v for k, v in partial.params.items() if k != "split"} == \
        {k: v for k, v in s.params.items() if k not in ("split", "combine", "est_ns")}
    assert schedule_of(parts[-1]) == s["combine"]
    run_pipeline(m, ["aicf-lower-to-gpu{target=h100}"])
    kernels = [o for o in m.walk() if o.name == "aicf_gpu.kernel"]
    assert len(kernels) == len(parts)


@pytest.mark.parametrize("op,shape,axes", [
    ("sum", (100001, 6, 2), [0]),  # guarded partial, not collapsed: 2 columns, vec 4 priced on 12
    ("sum", (8, 7, 65537), [1, 2]),  # a peeled row of the nest is two reduction dims of the partial
    ("max", (4, 196609, 3), [1, 2]),
    ("sum", (16, 65537), [0, 1]),  # rows of 65537 in the partial, vec 4 priced on 16 * 65537
])
def test_the_planners_split_fits_the_partial_nest(op, shape, axes):
    """The planner prices a split on the nest's collapsed view, but the partial's dims
    need not merge the same way: its kernel parameters must still build (the in-kernel
    split these replaced lowered all of these; the partials were refused, or crashed
    in the arith builder for a peeled row of two dims)."""
    m = parse_module(make_context(), program(op, shape, axes, "f32", False), "<test>")
    run_pipeline(m, ["aicf-infer-shapes", "aicf-lower-to-loops", "aicf-plan{target=h100}"])
    (nest,) = [n for n in m.walk() if isinstance(n, NestOp)]
    s = schedule_of(nest)
    assert s is not None and s["split"] > 1, s
    run_pipeline(m, ["aicf-lower-to-gpu{target=h100}"])
    assert len([o for o in m.walk() if o.name == "aicf_gpu.kernel"]) >= 2


def test_a_split_matmul_runs_its_guarded_partial_as_loops_not_blas():
    """A matmul whose k (1000) is split 7 ways has a guarded partial (chunks of 143,
    the last 142): the cpu planner must not hand it to BLAS, which would run whole dims
    past the guard."""
    text = ("func.func @f(%a: tensor<8x1000xf32>, %b: tensor<1000x16xf32>) -> tensor<8x16xf32> {\n"
            "  %y = aicf_tensor.matmul %a, %b : (tensor<8x1000xf32>, tensor<1000x16xf32>) -> tensor<8x16xf32>\n"
            "  func.return %y : tensor<8x16xf32>\n}\n")
    m = parse_module(make_context(), text, "<test>")
    run_pipeline(m, ["aicf-infer-shapes", "aicf-lower-to-loops"])
    (nest,) = [n for n in m.walk() if isinstance(n, NestOp)]
    nest.attributes[SCHEDULE_ATTR] = Schedule("gpu.per_output", {
        **PER_OUTPUT, "split": 7, "combine": Schedule("gpu.per_output", PER_OUTPUT)}).to_attr()
    split_reductions(m)
    partial = next(n for n in m.walk() if isinstance(n, NestOp))
    assert partial.guard is not None
    for n in m.walk():
        if isinstance(n, NestOp):
            del n.attributes[SCHEDULE_ATTR]
    planned = m.clone()
    run_pipeline(planned, ["aicf-plan{target=cpu}"])
    kinds = [schedule_of(n).kind for n in planned.walk() if isinstance(n, NestOp)]  # type: ignore[union-attr]
    assert kinds[0] == "cpu.nest", kinds
    exe = aicf.compile(m, target="cpu")
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((8, 1000)).astype(np.float32), rng.standard_normal((1000, 16)).astype(np.float32)
    np.testing.assert_allclose(exe(a, b), a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-4)


def test_guard_round_trips_and_bounds_the_reads():
    """The printed guard parses back to the same nest; without it the last chunk's
    reads would leave the buffer (the verifier checks accesses inside the guard)."""
    text = program("sum", (1001, 63), [0], "f32", False)
    m = parse_module(make_context(), text, "<test>")
    run_pipeline(m, ["aicf-infer-shapes", "aicf-lower-to-loops"])
    (nest,) = [n for n in m.walk() if isinstance(n, NestOp)]
    nest.attributes[SCHEDULE_ATTR] = Schedule("gpu.per_output", {
        **PER_OUTPUT, "split": 4, "combine": Schedule("gpu.per_output", PER_OUTPUT)}).to_attr()
    split_reductions(m)
    printed = str(m)
    assert "guard = " in printed
    again = parse_module(make_context(), printed, "<printed>")
    assert str(again) == printed
    partial = next(n for n in again.walk() if isinstance(n, NestOp))
    partial.guard = None
    with pytest.raises(Exception, match="may reach index 1003 of dim 0"):
        partial.verify()


def test_a_full_sum_of_few_long_rows_splits_past_its_first_dim():
    """x.sum() of 2 x 10^6: the planner's 64 chunks cut the two reduction dims made one
    (not 2, the first dim's points), and the partial's kernel reads x as one linear
    run of 16-byte vectors (the floordiv/mod pair read back as one index)."""
    text = program("sum", (2, 1000000), [0, 1], "f32", False)
    m = parse_module(make_context(), text, "<test>")
    run_pipeline(m, ["aicf-infer-shapes", "aicf-lower-to-loops", "aicf-plan{target=h100}"])
    (nest,) = [n for n in m.walk() if isinstance(n, NestOp)]
    s = schedule_of(nest)
    assert s is not None and s["split"] > 2
    run_pipeline(m, ["aicf-lower-to-gpu{target=h100}"])
    text = str(m)
    assert "aicf_gpu.load_vector %x[" in text and "memref<2000000xf32> -> vector<4xf32>" in text


def test_a_combine_split_past_its_partials_says_combine():
    """The combine nest carries the parent's location, so a `combine` schedule whose own
    split exceeds the partials (3 of them) must be named as the combine's, not read as
    the parent's split = 3 (the message said `split = 5 must be in 2..3` at the nest)."""
    m = parse_module(make_context(), program("sum", (2, 8), [1], "f32", False), "<test>")
    run_pipeline(m, ["aicf-infer-shapes", "aicf-lower-to-loops"])
    (nest,) = [n for n in m.walk() if isinstance(n, NestOp)]
    inner = Schedule("gpu.per_output", {**PER_OUTPUT, "split": 5, "combine": Schedule("gpu.per_output", PER_OUTPUT)})
    nest.attributes[SCHEDULE_ATTR] = Schedule("gpu.per_output", {**PER_OUTPUT, "split": 3, "combine": inner}).to_attr()
    with pytest.raises(aicf.CompileError, match=r"<test>:2:3: .*combine nest of its split = 3 .*split = 5 must be in 2\.\.3"):
        split_reductions(m)
