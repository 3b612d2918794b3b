"""Library kernels as candidates for a loop nest: when cuBLAS (matmul) or CuPy's
reduction (CUB) can run a nest (the guard, with the reason when it cannot) and how
long it would take (the cost, from the target description's rates).

A guard returns the parameters of an `aicf_gpu.library_call` ("cublas.gemm",
"cub.reduce": see dialects/gpu.py, `LibraryCallOp`, for their meaning); the planner
adds `kind` ("gpu.cublas_gemm", "gpu.cub_reduce") and `est_ns` and writes them as
the nest's `aicf.schedule`, which the GPU lowering (lowering/gpu_schedules/library.py)
turns into the call. `library_candidates(nest, target)` lists both kinds with their
schedule and terms or their reason, for the planner and its explanations.

Row-major operands in cuBLAS's column-major API: the runtime computes C^T = B^T A^T,
so a row-major operand is an untransposed column-major one and the reverse; the
parameters here stay in row-major terms (`trans_a = 1`: A is stored k-major).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    MemRefType,
    NoneAttr,
    StridedLayoutAttr,
)
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap

from aicf.lowering.gpu_schedules.matmul_space import _body_is_product, match_matmul
from aicf.target import GpuTarget

CUBLAS_GEMM = "gpu.cublas_gemm"
_DTYPES = {Float32Type(): "f32", Float16Type(): "f16", BFloat16Type(): "bf16"}
from aicf.lowering.gpu_schedules.library_calls import _BYTES, _calls, gemm_bytes, gemm_flops, reduce_bytes  # noqa: F401


def cublas_gemm_candidate(nest, *, tf32: bool = False) -> dict | str:
    """The `cublas.gemm` parameters that compute `nest`, or why cuBLAS cannot.

    `tf32`: f32 inputs multiply in TF32 on the tensor cores (the math mode option);
    otherwise f32 is computed in f32 and f16/bf16 accumulate in f32."""
    ins, outs = list(nest.inputs), list(nest.outputs)
    if len(ins) != 2 or len(outs) != 1:
        return f"a matmul has 2 inputs and 1 output, the nest has {len(ins)} and {len(outs)}"
    in_types = [v.type.get_element_type() for v in ins]
    if any(t not in _DTYPES for t in in_types) or in_types[0] != in_types[1]:
        return f"cuBLAS takes A and B of one type of f32, f16, bf16, not {in_types[0]} and {in_types[1]}"
    combiners = [c.value for c in nest.combiner_kinds]
    if combiners != ["add"]:
        return f"the combiner is {combiners}, not a sum"
    if not _body_is_product(nest.body.block):
        return "the body is not a plain product of the two inputs (an epilogue or other ops are fused into it)"
    roles = match_matmul(
        nest.extents, [i.value for i in nest.iterators], nest.input_maps, nest.output_maps, combiners, None
    )
    if roles is None:
        return "the access maps are not a matmul's (one reduction dim k, A over m and k, B over k and n, C over the rest)"
    types: list[MemRefType] = [ins[roles.a].type, ins[roles.b].type, outs[0].type]
    el = [_DTYPES.get(t.get_element_type()) for t in types]
    if el[2] not in (el[0], "f32"):
        return f"C is {types[2].get_element_type()}: cuBLAS writes C in the inputs' type ({el[0]}) or f32"
    acc = nest.yield_op.values[0].type
    if acc != Float32Type():
        return f"the nest accumulates in {acc}; cuBLAS is called with f32 accumulation"
    ext = nest.extents
    maps = [nest.input_maps[roles.a], nest.input_maps[roles.b], nest.output_maps[0]]
    lays = []
    for t, m in zip(types, maps):
        lay = _dim_strides(t, m)
        if isinstance(lay, str):
            return lay
        lays.append(lay)
    (sa, oa), (sb, ob), (sc, oc) = lays
    m, n, k = ext[roles.m], ext[roles.n], ext[roles.k]
    a = _matrix(m, k, sa.get(roles.m, 0), sa.get(roles.k, 0))
    b = _matrix(k, n, sb.get(roles.k, 0), sb.get(roles.n, 0))
    c = _matrix(m, n, sc.get(roles.m, 0), sc.get(roles.n, 0))
    for name, got in (("A", a), ("B", b)):
        if got is None:
            return f"{name} has no unit stride along either of its matrix dims (cuBLAS needs one)"
    if c is None or c[0] != 0:
        return "C is not row-major with a unit stride along n"
    # batch dims, innermost first: the innermost ones whose strides fold into one go
    # to the strided-batched call, the others are loops of calls
    batch = [(ext[d], [s.get(d, 0) for s in (sa, sb, sc)]) for d in roles.batch if ext[d] != 1]
    count, strides = 1, [0, 0, 0]
    while batch:
        e, st = batch[-1]
        if count > 1 and any(x != y * count for x, y in zip(st, strides)):
            break
        if count == 1:
            strides = st
        count *= e
        batch.pop()
    if not batch and count > 1 and a[0] == 0 and strides[1] == 0 and m > 1:  # type: ignore[index]
        # a broadcast B under row-major A and C whose batches continue their rows
        # (x @ W with x: [b, t, d]): one call of b*t rows, not b calls of t; cuBLAS
        # picks its kernels for the whole M (GPT-2's logits: 8 x 1024 rows)
        if strides[0] == m * a[1] and strides[2] == m * c[1]:  # type: ignore[index]
            m, count, strides = m * count, 1, [0, 0, 0]
    return {
        "a": roles.a,
        "b": roles.b,
        "m": m,
        "n": n,
        "k": k,
        "batch": count,
        "trans_a": a[0],  # type: ignore[index]
        "trans_b": b[0],  # type: ignore[index]
        "lda": a[1],  # type: ignore[index]
        "ldb": b[1],  # type: ignore[index]
        "ldc": c[1],
        "stride_a": strides[0],
        "stride_b": strides[1],
        "stride_c": strides[2],
        "offset_a": oa,
        "offset_b": ob,
        "offset_c": oc,
        "loops": [e for e, _ in batch],
        "loop_stride_a": [st[0] for _, st in batch],
        "loop_stride_b": [st[1] for _, st in batch],
        "loop_stride_c": [st[2] for _, st in batch],
        "dtype": el[0],
        "out_dtype": el[2],
        "compute": "tf32" if tf32 and el[0] == "f32" else "f32",
    }


def _dim_strides(t: MemRefType, m: AffineMap) -> tuple[dict[int, int], int] | str:
    """The element stride of each domain dim the operand's map names, and the offset
    its constant indices add. Dynamic strides count as dense row-major: the runtime
    makes such an operand dense (a copy when the array is not)."""
    lay = t.layout
    if isinstance(lay, StridedLayoutAttr) and lay.get_offset() not in (None, 0):
        return f"a static layout offset ({t})"
    if not isinstance(lay, NoneAttr | StridedLayoutAttr):
        return f"the layout of {t} is not strided"
    strides = t.get_strides()
    if strides is None or any(s is None for s in strides):
        strides = MemRefType(t.get_element_type(), t.get_shape()).get_strides()
    if any(s < 0 for s in strides):  # type: ignore[union-attr]
        return f"a negative stride ({t})"
    dims: dict[int, int] = {}
    off = 0
    for r, s in zip(m.results, strides):  # type: ignore[arg-type]
        if isinstance(r, AffineDimExpr):
            dims[r.position] = s
        elif isinstance(r, AffineConstantExpr):
            off += r.value * s
    return dims, off


def _matrix(rows: int, cols: int, s_r: int, s_c: int) -> tuple[int, int] | None:
    """(trans, ld) of a rows x cols operand with these strides: (0, row stride) when
    its rows are contiguous, (1, column stride) when its columns are; None when
    neither. A dim of extent 1 takes any stride, so it gets the smallest legal one."""
    if rows == 0 or cols == 0:  # nothing is read
        return 0, max(1, cols)
    if cols <= 1 or s_c == 1:
        ld = s_r if rows > 1 else max(1, cols)
        if ld >= max(1, cols):
            return 0, ld
    if rows <= 1 or s_r == 1:
        ld = s_c if cols > 1 else max(1, rows)
        if ld >= max(1, rows):
            return 1, ld
    return None


# --------------------------------------------------------------------------------------
# Cost
# --------------------------------------------------------------------------------------


def _peak(p: dict, t: GpuTarget) -> float:
    if p["dtype"] == "f32":
        return t.tf32_flops if p["compute"] == "tf32" else t.fp32_flops
    return t.fp16_flops  # bf16 runs at the f16 tensor-core rate (693 vs 702 TFLOP/s measured)


def cublas_gemm_terms(p: dict, t: GpuTarget) -> dict[str, float]:
    """The predicted time of the call and its terms, in seconds: the larger of the
    tensor-core/FMA roofline and the DRAM roofline, plus one launch per call.

    The peak rates are cuBLAS's own on large problems (the target's figures were
    measured through it), so the model is optimistic for small or skinny problems,
    where cuBLAS's tiles leave SMs idle; calibration is still to do."""
    # cuBLAS computes tile x tile outputs a block (fewer along a short m or n); the
    # blocks run in waves over the SMs, so a small problem pays whole waves
    tm, tn = min(t.library_gemm_tile, max(p["m"], 1)), min(t.library_gemm_tile, max(p["n"], 1))
    blocks = math.ceil(p["m"] / tm) * math.ceil(p["n"] / tn) * _calls(p) * max(p["batch"], 1)
    waves = math.ceil(blocks / t.num_sms)
    compute = max(gemm_flops(p) / _peak(p, t), waves * 2 * tm * tn * p["k"] / (_peak(p, t) / t.num_sms))
    memory = gemm_bytes(p) / t.dram_bandwidth
    launch = _calls(p) * t.launch_overhead_s
    pad = p.get("pad_c", 0)
    copy = 0.0
    if pad:  # C computed into rows `pad` apart, then copied into place
        copy = 2 * p["m"] * p["n"] * _BYTES[p["out_dtype"]] / t.dram_bandwidth + t.launch_overhead_s
    if n_unaligned(p, t) or (not pad and c_unaligned(p, t)):
        compute *= t.library_gemm_unaligned_c_slowdown
    empty = 0 in (p["m"], p["n"], p["batch"], *(p.get("loops") or []))
    if empty:
        compute = memory = launch = copy = 0.0
    elif p["k"] == 0:
        launch = t.launch_overhead_s  # one fill of C with zeros
    terms = {"compute": compute, "memory": memory, "launch": launch}
    if pad:
        terms["copy"] = copy
    return {**terms, "total": max(compute, memory) + launch + copy}


def c_unaligned(p: dict, t: GpuTarget) -> bool:
    """Whether C's rows (or its start) miss the alignment cuBLAS's fast kernels store with."""
    eb = _BYTES[p["out_dtype"]]
    return p["m"] > 1 and bool((p["ldc"] * eb) % t.library_gemm_c_align_bytes
                               or (p["offset_c"] * eb) % t.library_gemm_c_align_bytes)


def n_unaligned(p: dict, t: GpuTarget) -> bool:
    """Whether C's row length itself misses that alignment: cuBLAS then takes its slow
    kernels whatever the pitch (padding C's rows does not help)."""
    return p["m"] > 1 and bool((p["n"] * _BYTES[p["out_dtype"]]) % t.library_gemm_c_align_bytes)


def with_c_padding(p: dict, t: GpuTarget) -> dict:
    """`p`, or `p` with `pad_c` (the padded row pitch of a scratch C the call writes,
    then copies into place) when C's rows are misaligned and the copy costs less than
    cuBLAS's slower kernels would. One call only (no batch, no loops): the scratch is
    one m x pad_c matrix."""
    if not c_unaligned(p, t) or p["batch"] != 1 or p.get("loops") or p["k"] == 0:
        return p
    per = t.library_gemm_c_align_bytes // math.gcd(t.library_gemm_c_align_bytes, _BYTES[p["out_dtype"]])
    padded = {**p, "pad_c": -(-p["n"] // per) * per}
    return padded if cublas_gemm_time(padded, t) < cublas_gemm_time(p, t) else p


def cublas_gemm_time(p: dict, t: GpuTarget) -> float:
    """Predicted seconds of the `cublas.gemm` call with parameters `p` on `t`."""
    return cublas_gemm_terms(p, t)["total"]


def describe(p: dict) -> str:
    """One line for explanations: the call's shape and layout."""
    b = f"{p['batch']}x" if p["batch"] > 1 else ""
    loops = "".join(f"{e}x" for e in p.get("loops") or [])
    ta, tb = "T" if p["trans_a"] else "N", "T" if p["trans_b"] else "N"
    pad = f", C via rows {p['pad_c']} apart" if p.get("pad_c") else ""
    return (f"cublas.gemm {loops}{b}{p['m']}x{p['n']}x{p['k']} {p['dtype']}->{p['out_dtype']} A:{ta} B:{tb} "
            f"compute {p['compute']}{pad}")


# --------------------------------------------------------------------------------------
# CUB reductions (cupy.sum / cupy.max over trailing axes)
# --------------------------------------------------------------------------------------

CUB_REDUCE = "gpu.cub_reduce"
_REDUCE_OPS = {"add": "sum", "max": "max"}


def cub_reduce_candidate(nest) -> dict | str:
    """The `cub.reduce` parameters of a plain sum or max of one input over its
    trailing dims, or why CuPy's reduction (CUB where CuPy enables it) cannot run it.

    Parameters: `op` ("sum" or "max"), `reduce_dims` (how many trailing dims of the
    input are reduced), `rows`/`cols` (outputs, and elements reduced into each),
    `dtype`, `out_dtype`."""
    ins, outs = list(nest.inputs), list(nest.outputs)
    if len(ins) != 1 or len(outs) != 1:
        return f"a reduction of one input into one output, the nest has {len(ins)} and {len(outs)}"
    combiner = nest.combiner_kinds[0].value
    if combiner not in _REDUCE_OPS:
        return f"the combiner is {combiner}, not a sum or a max"
    dt = _DTYPES.get(ins[0].type.get_element_type())
    if dt not in ("f32", "f16"):
        return f"CuPy reduces f32 and f16 here, not {ins[0].type.get_element_type()}"
    out_dt = _DTYPES.get(outs[0].type.get_element_type())
    if out_dt not in (dt, "f32"):
        return f"the output is {outs[0].type.get_element_type()}, not {dt} or f32"
    block = nest.body.block
    ops = list(block.ops)
    if not (len(ops) <= 2 and all(o.name == "arith.extf" for o in ops[:-1])) or _root(ops[-1].operands[0]) is not block.args[0]:
        return "the body is not the plain input (other ops are fused into the reduction)"
    acc = ops[-1].operands[0].type
    if combiner == "add" and acc != Float32Type():
        return f"the nest sums in {acc}; CuPy sums {dt} in f32"
    its = [i.value for i in nest.iterators]
    nred = its.count("reduction")
    if nred == 0 or its != ["parallel"] * (len(its) - nred) + ["reduction"] * nred:
        return "the reduced dims are not the trailing ones"
    rank = len(its)
    in_map, out_map = nest.input_maps[0], nest.output_maps[0]
    if [getattr(r, "position", None) for r in in_map.results] != list(range(rank)):
        return "the input is not read in the domain's order (a broadcast, transpose or reshape)"
    outer = [r for r in out_map.results if not (isinstance(r, AffineConstantExpr) and r.value == 0)]
    if [getattr(r, "position", None) for r in outer] != list(range(rank - nred)):
        return "the output is not written in the domain's order"
    if not _dense(outs[0].type):
        return "the output is not dense row-major"
    ext = nest.extents
    return {
        "op": _REDUCE_OPS[combiner],
        "reduce_dims": nred,
        "rows": math.prod(ext[: rank - nred]),
        "cols": math.prod(ext[rank - nred:]),
        "dtype": dt,
        "out_dtype": out_dt,
    }


def _root(v):
    o = getattr(v, "op", None)
    return o.input if o is not None and o.name == "arith.extf" else v


def _dense(t: MemRefType) -> bool:
    return isinstance(t.layout, NoneAttr) or t.get_strides() == MemRefType(t.get_element_type(), t.get_shape()).get_strides()


def cub_reduce_terms(p: dict, t: GpuTarget) -> dict[str, float]:
    """A reduction is the bytes it reads over the share of the DRAM bandwidth CuPy
    reaches for rows of this length (the target's measured table, interpolated in
    log2 of the row length), plus one launch."""
    if p["rows"] == 0:
        return {"memory": 0.0, "launch": 0.0, "total": 0.0}
    memory = reduce_bytes(p) / (t.dram_bandwidth * _reduce_efficiency(t, p["cols"]))
    return {"memory": memory, "launch": t.library_reduce_overhead_s, "total": memory + t.library_reduce_overhead_s}


def _reduce_efficiency(t: GpuTarget, cols: int) -> float:
    pts = t.library_reduce_efficiency
    x = math.log2(max(cols, 1))
    if x <= math.log2(pts[0][0]):
        return pts[0][1]
    for (c0, e0), (c1, e1) in zip(pts, pts[1:]):
        x0, x1 = math.log2(c0), math.log2(c1)
        if x <= x1:
            return e0 + (e1 - e0) * (x - x0) / (x1 - x0)
    return pts[-1][1]


def cub_reduce_time(p: dict, t: GpuTarget) -> float:
    return cub_reduce_terms(p, t)["total"]


# --------------------------------------------------------------------------------------
# For the planner and its explanations
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LibraryCandidate:
    """One library kind for a nest: its parameters and predicted terms (seconds), or
    the reason its guard gives."""

    kind: str
    params: dict | None
    reason: str | None
    terms: dict[str, float] | None

    @property
    def time(self) -> float | None:
        return self.terms["total"] if self.terms is not None else None

    def schedule(self) -> dict:
        """The `aicf.schedule` entries that run the nest this way."""
        assert self.params is not None and self.terms is not None, self.reason
        return {"kind": self.kind, **self.params, "est_ns": round(self.terms["total"] * 1e9)}

    def explain(self) -> str:
        if self.params is None:
            return f"{self.kind}: not applicable: {self.reason}"
        terms = ", ".join(f"{k} {v * 1e6:.1f}us" for k, v in self.terms.items() if k != "total")  # type: ignore[union-attr]
        return f"{self.kind}: {self.time * 1e6:.1f}us ({terms})"  # type: ignore[operator]


def library_candidates(nest, target: GpuTarget, *, tf32: bool = False) -> list[LibraryCandidate]:
    """Every library kind for `nest` on `target`, applicable or not (with why)."""
    out = []
    for kind, guard, terms in (
        (CUBLAS_GEMM, lambda n: cublas_gemm_candidate(n, tf32=tf32), cublas_gemm_terms),
        (CUB_REDUCE, cub_reduce_candidate, cub_reduce_terms),
    ):
        p = guard(nest)
        if isinstance(p, str):
            out.append(LibraryCandidate(kind, None, p, None))
        else:
            if kind == CUBLAS_GEMM:
                p = with_c_padding(p, target)
            out.append(LibraryCandidate(kind, p, None, terms(p, target)))
    return out
