"""The BLAS gemm candidate of the cpu target: its guard, its parameters and its cost.

A loop nest runs as `cblas_sgemm`/`cblas_dgemm` calls (OpenBLAS from the
scipy-openblas32 package, see backend/c/blas.py) when `gemm_params(nest)` finds that it
is a (batched) GEMM that BLAS can run without copies:

- one f32 or f64 output, two inputs of the same type, the body `yield a * b` and the
  combiner `add` over exactly one reduction dim k;
- every map result a plain domain dim or a constant (no reshape's floordiv/mod);
- the dims sorted by use: m is the innermost dim read by A and C but not B, n the
  innermost read by B and C but not A; every other parallel dim is a batch dim;
- each operand, viewed as a matrix (A: m x k, B: k x n, C: m x n), has unit stride
  along one of its two dims and a leading dimension >= the other's extent: row-major
  (CblasNoTrans) or column-major (CblasTrans) for A and B, row-major for C;
- batch dims in front of m whose strides continue A's and C's rows (and that B does
  not read) fold into M, so `x @ W` with x: (b, t, d) is one call; the other batch dims
  become a loop of calls (broadcast operands are re-read: stride 0);
- an operand whose memref has run-time strides (a strided NumPy view passed to the
  cpu runtime's strided variant) gets trans = "runtime": the emitted C picks NoTrans or
  Trans from the strides it is given and falls back to the plain loop nest when the
  view is not a BLAS matrix (a step along both dims, a negative or zero stride).

The result is the schedule's parameters (`GemmParams.attr()`, the `aicf.schedule`
dictionary the C emitter reads) or the reason the guard failed, a short string.
`predict(params, target)` and `predict_nest(nest, target)` give the seconds the planner
weighs, from the CpuTarget description (aicf/target.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from xdsl.dialects.builtin import (
    DictionaryAttr,
    Float32Type,
    Float64Type,
    IntegerAttr,
    MemRefType,
    StringAttr,
    i64,
)
from xdsl.ir import Attribute, SSAValue

from aicf.backend.c.blas import (
    BLAS_INT_MAX,
    KIND,
    RUNTIME,
    coefficients,
    dim_positions,
    matrix_layout,
    operand_strides,
    product_body_reason,
)
from aicf.target import CpuTarget
from aicf.dialects.loop import Combiner, GroupOp, NestOp

_ROUTINES = {Float32Type: "sgemm", Float64Type: "dgemm"}


@dataclass(frozen=True)
class GemmParams:
    """One BLAS gemm per point of the batch dims (the parallel dims other than m, n and
    the `fold` dims just before m, which fold into M). m or n is -1 when the nest has no
    such dim (a matrix-vector product: that extent is 1)."""

    routine: str
    m: int
    n: int
    k: int
    fold: int
    trans_a: str
    lda: int
    trans_b: str
    ldb: int
    ldc: int
    sizes: tuple[int, int, int]
    """(M, N, K) of each call, M including the folded dims."""
    calls: int
    tasks_n: int = 1
    """Column chunks each call is split into, one OpenMP task each (a single call, or
    fewer calls than cores, still uses every core)."""

    def attr(self, **extra: int | str) -> DictionaryAttr:
        vals: dict[str, Attribute] = {"kind": StringAttr(KIND), "routine": StringAttr(self.routine)}
        for name in ("m", "n", "k", "fold", "tasks_n"):
            vals[name] = IntegerAttr(getattr(self, name), i64)
        vals["trans_a"] = StringAttr(self.trans_a)
        vals["lda"] = IntegerAttr(self.lda, i64)
        vals["trans_b"] = StringAttr(self.trans_b)
        vals["ldb"] = IntegerAttr(self.ldb, i64)
        vals["ldc"] = IntegerAttr(self.ldc, i64)
        for name, v in extra.items():
            vals[name] = StringAttr(v) if isinstance(v, str) else IntegerAttr(v, i64)
        return DictionaryAttr(vals)

    @property
    def flops(self) -> int:
        return 2 * math.prod(self.sizes) * self.calls


def _elt(v: SSAValue) -> Attribute:
    assert isinstance(v.type, MemRefType)
    return v.type.get_element_type()


def gemm_params(nest: NestOp) -> GemmParams | str:
    """The BLAS call(s) that compute this nest, or why there are none (a short reason)."""
    if len(nest.inputs) != 2 or len(nest.outputs) != 1:
        return "not two inputs and one output"
    if nest.guard is not None:
        return "a guarded nest (a split's partial)"
    if isinstance(nest.parent_op(), GroupOp):
        return "a member of a fused row group"
    elts = [_elt(v) for v in (*nest.inputs, *nest.outputs)]
    routine = _ROUTINES.get(type(elts[2]))
    if routine is None or any(e != elts[2] for e in elts):
        names = ", ".join(str(e) for e in elts)
        return f"element types {names}: BLAS gemm needs all f32 or all f64"
    red = nest.reduction_dims
    if len(red) != 1 or nest.combiner_kinds != (Combiner.ADD,):
        return "not one reduction dim combined by add"
    reason = product_body_reason(nest)
    if reason:
        return reason
    if nest.outputs[0] in nest.inputs:
        return "the output is also an input"
    ext = nest.extents
    nd = len(ext)
    (k,) = red
    maps = nest.maps
    positions = []
    for i, m in enumerate(maps):
        p = dim_positions(m)
        if isinstance(p, str):
            return f"operand #{i}: {p}"
        positions.append({q for q in p if q is not None})
    used_a, used_b, used_c = positions
    m_dims = [d for d in range(nd) if d != k and d in used_a and d not in used_b]
    n_dims = [d for d in range(nd) if d != k and d in used_b and d not in used_a]
    if k not in used_a or k not in used_b:
        return "an input does not read along the reduction dim"
    # the innermost m/n dims are the matrices' dims; other m-type dims may fold or loop
    m = m_dims[-1] if m_dims else -1
    n = n_dims[-1] if n_dims else -1
    if any(d not in used_c for d in nest.parallel_dims):
        return "the output is not indexed by every parallel dim"
    strides = [operand_strides(v.type) for v in (*nest.inputs, *nest.outputs)]  # type: ignore[arg-type]
    if strides[2] is None:
        return "the output has run-time strides"
    coef = [None if s is None else coefficients(mp, s, nd) for mp, s in zip(maps, strides)]
    ca, cb, cc = coef
    em = ext[m] if m >= 0 else 1
    en = ext[n] if n >= 0 else 1
    ek = ext[k]
    assert cc is not None

    def along(c: list[int], d: int) -> int:
        return c[d] if d >= 0 else 0

    c_layout = matrix_layout(em, en, along(cc, m), along(cc, n))
    if c_layout is None or c_layout[0] != "N":
        return "the output is not row-major in (m, n)"
    ldc = c_layout[1]
    if ca is None:
        trans_a, lda = RUNTIME, 0
    else:
        a_layout = matrix_layout(em, ek, along(ca, m), ca[k])
        if a_layout is None:
            return "the first input is not a row- or column-major (m, k) matrix"
        trans_a, lda = a_layout
    if cb is None:
        trans_b, ldb = RUNTIME, 0
    else:
        b_layout = matrix_layout(ek, en, cb[k], along(cb, n))
        if b_layout is None:
            return "the second input is not a row- or column-major (k, n) matrix"
        trans_b, ldb = b_layout
    # fold the batch dims just before m into M while they continue A's and C's rows
    fold, rows = 0, em
    if m >= 0 and trans_a == "N" and ca is not None and cb is not None:
        for d in range(m - 1, -1, -1):
            continues = ca[d] == rows * lda and cc[d] == rows * ldc and cb[d] == 0
            if d in (n, k) or not (ext[d] == 1 or continues):
                break
            fold += 1
            rows *= ext[d]
    sizes = (rows, en, ek)
    if max(sizes) > BLAS_INT_MAX:
        return "a dimension exceeds BLAS's 32-bit sizes"
    looped = [d for d in range(nd) if d not in (m, n, k) and not (m - fold <= d < m)]
    calls = math.prod(ext[d] for d in looped)
    return GemmParams(routine, m, n, k, fold, trans_a, lda, trans_b, ldb, ldc, sizes, calls)


# --- cost -----------------------------------------------------------------------------


MIN_CHUNK_COLUMNS = 64
"""A call is split into column chunks no narrower than this (OpenBLAS packs B in
panels of 16-64 columns; narrower chunks repeat A's packing for little work)."""


def column_tasks(p: GemmParams, target: CpuTarget) -> int:
    """How many column chunks each call is split into so that the cores have work:
    none when the calls alone fill them, or when a call is too small to pay for it."""
    m_, n_, k_ = p.sizes
    if p.calls >= target.cores or 2 * m_ * n_ * k_ < 2 * 64**3:
        return 1
    return max(1, min(-(-target.cores // p.calls), n_ // MIN_CHUNK_COLUMNS))


def predict(p: GemmParams, nest: NestOp, target: CpuTarget) -> float:
    """Seconds for the BLAS calls: the tasks (calls x column chunks) shared among the
    cores, each paying a call's fixed cost and its FLOPs at OpenBLAS's one-thread rate
    (half for dgemm; a small dim wastes the rest of the micro-kernel's register tile);
    an OpenMP fork and join when there is more than one task; at least the operands'
    bytes at the memory bandwidth."""
    m_, n_, k_ = p.sizes
    rate = target.sgemm_flops_per_core * (1 if p.routine == "sgemm" else 0.5)
    tasks = p.calls * p.tasks_n
    chunk = -(-n_ // p.tasks_n) if n_ else 0
    per_task = 2 * m_ * chunk * k_
    # OpenBLAS's Zen/SkylakeX sgemm kernels hold a 16x4..32x6 tile of C: fewer rows or
    # columns than that leave vector lanes idle
    eff = max(min(1.0, m_ / 16) * min(1.0, chunk / 4), 1e-3)
    rounds = -(-tasks // target.cores)
    compute = rounds * (target.blas_call_s + per_task / (rate * eff))
    if tasks > 1:
        compute += target.parallel_region_s
    return max(compute, _bytes(nest) / target.mem_bytes_per_s)


def predict_nest(nest: NestOp, target: CpuTarget) -> float:
    """Seconds for the plain loop nest the C emitter writes (a dot product per output,
    the outer loops shared among threads when the nest is big)."""
    from aicf.cost.cpu import instructions_per_point, worth_parallel

    flops = 2 * nest.num_points()
    threads = target.cores if worth_parallel(target, nest.num_points(), instructions_per_point([nest])) else 1
    compute = flops / (target.naive_matmul_flops_per_core * threads)
    return max(compute, _bytes(nest) / target.mem_bytes_per_s)


def _bytes(nest: NestOp) -> int:
    total = 0
    for v in (*nest.inputs, *nest.outputs):
        t = v.type
        assert isinstance(t, MemRefType)
        total += math.prod(t.get_shape()) * (8 if isinstance(t.get_element_type(), Float64Type) else 4)
    return total


def choose(nest: NestOp, target: CpuTarget) -> tuple[DictionaryAttr | None, str]:
    """The `aicf.schedule` for the nest if BLAS is predicted faster than the plain nest
    (else None), and a one-line explanation."""
    p = gemm_params(nest)
    if isinstance(p, str):
        return None, f"blas: not applicable ({p})"
    p = replace(p, tasks_n=column_tasks(p, target))
    blas, plain = predict(p, nest, target), predict_nest(nest, target)
    why = (f"blas {p.routine} {p.calls} x {'x'.join(map(str, p.sizes))} in "
           f"{p.calls * p.tasks_n} tasks predicted "
           f"{blas * 1e6:.3g} us, loop nest {plain * 1e6:.3g} us on {target.cores} cores")  # fmt: skip
    if blas >= plain:
        return None, why + ": the loop nest"
    attr = p.attr(blas_ns=round(blas * 1e9), nest_ns=round(plain * 1e9))
    return attr, why + ": blas"

