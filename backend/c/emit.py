"""C99 + OpenMP from a module at the `aicf_loop` level (the cpu target).

Input: the loop level as `aicf-lower-to-loops` leaves it (see dialects/loop.py and the
loop-level conventions): destination-passing `func.func`s over memrefs carrying
`aicf.num_outputs`, `memref.alloc`/`dealloc` for intermediates, `memref.global` +
`memref.get_global` for constants, and `aicf_loop.nest` ops with scalar `arith`/`math`
bodies.

The ABI of every function `@NAME` (one uniform signature, so ctypes needs no per-function
prototype):

    int aicf_NAME(void *const *bufs, const int64_t *const *strides);

- `bufs[i]` points at element [0, ..., 0] of argument i (inputs, then outputs), so a
  view's offset is already applied by the caller.
- `strides[i]` holds argument i's strides in elements. It is read only for arguments
  whose memref type has a `strided<[?, ...], offset: ?>` layout; identity-layout
  arguments use strides known at compile time (so the C compiler can vectorise), and
  `strides` may be NULL when no argument is strided.
- The return value is 0, or 1 when an intermediate allocation failed.

How nests become loops (iteration order is the domain's order):
- elementwise nests: one loop per dim, the innermost `omp simd`, the outermost ones
  `omp parallel for` (collapsed until there is enough parallelism) when the nest is big
  enough to pay for the threads;
- reductions whose reduced dims are all innermost: the output value is accumulated in a
  local scalar (`omp simd reduction` for add/mul); sums accumulate floats in double;
- reductions with a parallel dim inside a reduced dim (e.g. a sum over axis 0): an
  accumulator buffer shaped like the output is set to the identity and updated in domain
  order, so memory is walked contiguously, then converted into the output. Without an
  outer parallel dim the threads split the first inner parallel loop with a static
  schedule (the same iterations go to the same thread on every pass, so no races).
max/min propagate NaN like NumPy; innermost max/min reductions of floats vectorise as
a compare-select under `omp simd reduction(max/min:)` (a NaN fails the compare) with a
separate NaN flag that makes the result NaN at the end. f16 is `_Float16`; bf16 is stored as uint16 bits and
only converted (`arith.extf`/`arith.truncf`), as the loop-level bodies compute in f32.

Vector math: glibc's libmvec has vector variants of sinf/cosf/tanhf (<2 ulp, measured
over random inputs); these are declared `omp declare simd` below so loops that call them
vectorise (link with -lmvec). libmvec's expf/logf measured 2.6/3.9 ulp, above the
2-ulp bar of DESIGN.md: expf is instead the prelude's `aicf_expf` (branch-free Cody-Waite
reduction + Cephes polynomial in plain C and bit casts, inlined, so it vectorises; 1.0
ulp max, test/python/test_cpu_math.py); logf stays a scalar call. No -ffast-math (it
breaks NaNs).

A nest whose `aicf.schedule` is `cpu.blas_gemm` (written by aicf-plan{target=cpu}, or by
hand) becomes the OpenBLAS calls its parameters describe (backend/c/blas.py); the
module then includes cblas.h and links scipy-openblas32 (`emit_c_unit`'s link flags).

Fused row groups (`aicf_loop.group`) run per slice of their shared dims where they can
(see `emit_group`): threads split the shared dims and each slice runs all member nests
while its rows are in cache; group-local buffers become per-slice stack arrays.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from xdsl.dialects.builtin import (
    BFloat16Type,
    DictionaryAttr,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StridedLayoutAttr,
    StringAttr,
)
from xdsl.dialects import memref
from xdsl.dialects.func import FuncOp
from xdsl.dialects.func import ReturnOp as FuncReturnOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)

from aicf.backend.c.steps import StepTable, split_calls
from aicf.backend.cstyle import Language, ScalarPrinter, dispatch_table, half_bits, int_helpers
from aicf.backend.c import external
from aicf.backend.symbols import c_symbol, check_distinct
from aicf.diagnostics import op_error
from aicf.dialects.loop import AttentionOp, Combiner, GatherOp, GroupOp, NestOp, YieldOp
from aicf.dialects.outputs import check_input_writes
from aicf.dialects.schedule import Schedule, schedule_of
from aicf.errors import CompileError

VECTOR_MATH_F32 = ("sinf", "cosf", "tanhf")
"""libmvec functions within 2 ulp of a float64 reference (see the module docstring)."""

VECTOR_INLINE_F32 = {"expf": "aicf_expf"}
"""libm functions replaced by the prelude's branch-free inline versions (<= 2 ulp,
test/python/test_cpu_math.py), which vectorise where libmvec's are not accurate enough."""

LINK_FLAGS = ("-lmvec", "-lm")


def c_func_name(name: str) -> str:
    """The exported C symbol of `func.func @name`."""
    return c_symbol(name, "aicf_", _PRELUDE_NAMES)


# --- types ------------------------------------------------------------------------------


def c_type(t: Attribute, op: Operation | None = None) -> str:
    if isinstance(t, Float32Type):
        return "float"
    if isinstance(t, Float64Type):
        return "double"
    if isinstance(t, Float16Type):
        return "_Float16"
    if isinstance(t, BFloat16Type):
        return "uint16_t"
    if isinstance(t, IndexType):
        return "int64_t"
    if isinstance(t, IntegerType):
        w = t.width.data
        if w == 1:
            return "bool"
        if w in (8, 16, 32, 64):
            return f"int{w}_t"
    if op is not None:
        raise op_error(op, f"the cpu target does not support the type {t}")
    raise ValueError(f"unsupported type {t}")


def is_float_type(t: Attribute) -> bool:
    return isinstance(t, Float16Type | BFloat16Type | Float32Type | Float64Type)


def float_literal(v: float, t: Attribute) -> str:
    ctype = c_type(t)
    if ctype == "uint16_t":  # bf16, held as its bits
        return str(half_bits(v, t))
    if math.isnan(v):
        lit = "NAN"
    elif math.isinf(v):
        lit = "INFINITY" if v > 0 else "(-INFINITY)"
    else:
        lit = float(v).hex()
        if ctype == "float":
            # exact: the value came from an f32 attribute
            lit += "f"
    if ctype in ("float", "double"):
        return lit
    return f"(({ctype}){lit})"


def int_literal(v: int, ctype: str) -> str:
    return f"INT64_C({v})" if ctype == "int64_t" else f"(({ctype}){v})"


RAW_GLOBAL_ELEMENTS = 1024
"""Globals of at least this many elements (of the types below) are emitted as the
bytes of one string literal, not a list of literals."""
_RAW_GLOBALS = {"float": np.float32, "double": np.float64, "int32_t": np.int32, "int64_t": np.int64}
_BYTE_ESCAPES = [f"\\x{b:02x}" for b in range(256)]
_HEX_DIGITS = np.frombuffer(b"0123456789abcdef", np.uint8)


def literal(v, t: Attribute) -> str:
    if is_float_type(t):
        return float_literal(float(v), t)
    ct = c_type(t)
    if ct == "bool":
        return "1" if v else "0"
    return int_literal(int(v), ct)


C = Language(
    name="C",
    true="1",
    false="0",
    scalar_type=lambda t, index: c_type(t),
    float_literal=float_literal,
    int_literal=int_literal,
    unsigned=lambda ct: "uint8_t" if ct == "bool" else ct.replace("int", "uint"),
    widen={Float16Type: "(float){}", BFloat16Type: "aicf_bf16_to_f32({})"},
    narrow={Float16Type: "(_Float16){}", BFloat16Type: "aicf_f32_to_bf16({})"},
    narrow_f64={BFloat16Type: "aicf_f64_to_bf16({})"},
    native_halves=(Float16Type,),
    maximumf="AICF_FMAX",
    minimumf="AICF_FMIN",
    imax="AICF_IMAX",
    imin="AICF_IMIN",
    rsqrt=("1.0f / sqrtf({})", "1.0 / sqrt({})"),
    inline_f32=VECTOR_INLINE_F32,
)
"""C99's spellings for the shared scalar printer (backend/cstyle.py)."""


PRELUDE = r"""/* generated by aicf (cpu target) */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* glibc libmvec vector variants (see backend/c/emit.py for the accuracy check) */
#pragma omp declare simd notinbranch
float sinf(float);
#pragma omp declare simd notinbranch
float cosf(float);
#pragma omp declare simd notinbranch
float tanhf(float);

/* expf that vectorises (no branches, no calls): exp(x) = 2^n e^r with n = rint(x/ln2)
   and r = x - n ln2 (Cody-Waite: ln2 = C1 + C2, C1 with 9 significant bits so n*C1 is
   exact), e^r = 1 + r + r^2 P(r) on |r| <= ln2/2 (Cephes' minimax P), and 2^n applied
   as two factors 2^(n/2) so that results in the subnormal range are rounded once.
   Out of range inputs are clamped: x > 88.8 gives inf, x < -104 gives 0, NaN stays
   NaN. Max error 1.0 ulp, checked against float64 by test/python/test_cpu_math.py. */
/* c ? a : b on the bits: a `?:` here is a branch that gcc's jump threading may
   duplicate (the clamped constant folds), which stops the loop from vectorising */
static inline __attribute__((always_inline)) float aicf_self(int c, float a, float b) {
  uint32_t ua, ub; memcpy(&ua, &a, 4); memcpy(&ub, &b, 4);
  const uint32_t m = -(uint32_t)c, u = (ua & m) | (ub & ~m);
  float r; memcpy(&r, &u, 4); return r;
}
static inline __attribute__((always_inline)) float aicf_expf(float x) {
  float xc = aicf_self(x > 88.8f, 88.8f, x);
  xc = aicf_self(xc < -104.0f, -104.0f, xc);
  /* rint(x log2 e) by the 1.5*2^23 trick; the integer sits in t's low bits */
  const float t = xc * 0x1.715476p+0f + 0x1.8p23f;
  const float kf = t - 0x1.8p23f;
  uint32_t tb; memcpy(&tb, &t, 4);
  const uint32_t n = tb - 0x4b400000u;
  float r = xc - kf * 0x1.63p-1f;
  r = r - kf * -0x1.bd0106p-13f;
  float p = 0x1.a0d2cep-13f;
  p = p * r + 0x1.6e879cp-10f;
  p = p * r + 0x1.11121p-7f;
  p = p * r + 0x1.555382p-5f;
  p = p * r + 0x1.555554p-3f;
  p = p * r + 0x1p-1f;
  const float y = p * (r * r) + r + 1.0f;
  const uint32_t n1 = (uint32_t)((int32_t)n >> 1), n2 = n - n1;
  const uint32_t b1 = (n1 + 127u) << 23, b2 = (n2 + 127u) << 23;
  float s1, s2; memcpy(&s1, &b1, 4); memcpy(&s2, &b2, 4);
  return (y * s1) * s2;
}

static inline float aicf_bf16_to_f32(uint16_t h) {
  uint32_t u = (uint32_t)h << 16; float f; memcpy(&f, &u, 4); return f;
}
static inline uint16_t aicf_f32_to_bf16(float f) {
  uint32_t u; memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}
/* one rounding of a double: round to odd into float (the sticky bit survives), whose
   16 extra bits make the rounding to bf16 the only one */
static inline uint16_t aicf_f64_to_bf16(double d) {
  float f = (float)d;
  if ((double)f != d && d == d) {
    uint32_t u; memcpy(&u, &f, 4);
    if (fabs((double)f) > fabs(d)) u -= 1u;
    u |= 1u; memcpy(&f, &u, 4);
  }
  return aicf_f32_to_bf16(f);
}
/* NaN-propagating max/min, like numpy.maximum/minimum */
#define AICF_FMAX(a, b) (((a) > (b) || (a) != (a)) ? (a) : (b))
#define AICF_FMIN(a, b) (((a) < (b) || (a) != (a)) ? (a) : (b))
#define AICF_IMAX(a, b) ((a) > (b) ? (a) : (b))
#define AICF_IMIN(a, b) ((a) < (b) ? (a) : (b))
""" + int_helpers("static inline") + r"""/* an affine map's mod: the result has the divisor's sign (0 for b == 0 and -1) */
static inline int64_t aicf_mod(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return 0;
  int64_t r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline void *aicf_alloc(size_t bytes) {
  return aligned_alloc(64, ((bytes + 63) / 64) * 64 + 64);
}
"""

_PRELUDE_NAMES = frozenset(re.findall(r"\b(?:aicf|AICF)_\w+", PRELUDE))
"""The prelude's own identifiers, which no function's symbol may take."""


# --- buffers ---------------------------------------------------------------------------


@dataclass
class Buffer:
    """A memref value as C sees it: a pointer and a stride expression per dim."""

    ptr: str
    elt: Attribute
    shape: tuple[int, ...]
    strides: tuple[str, ...]

    def offset(self, indices: Sequence[str]) -> str:
        terms = []
        for idx, s in zip(indices, self.strides):
            if s == "0" or idx == "0":
                continue
            terms.append(idx if s == "1" else f"({idx}) * {s}")
        return " + ".join(terms) if terms else "0"

    def at(self, indices: Sequence[str]) -> str:
        return f"{self.ptr}[{self.offset(indices)}]"


def identity_strides(shape: Sequence[int]) -> tuple[str, ...]:
    out, acc = [], 1
    for d in reversed(shape):
        out.append(str(acc))
        acc *= max(d, 1)
    return tuple(reversed(out))


def has_runtime_strides(t: MemRefType) -> bool:
    return isinstance(t.layout, StridedLayoutAttr)


def static_shape(t: MemRefType, op: Operation) -> tuple[int, ...]:
    shape = tuple(t.get_shape())
    if any(d < 0 for d in shape):
        raise op_error(op, f"the cpu target needs static shapes, got {t}")
    return shape


def affine_c(e: AffineExpr, dims: Sequence[str]) -> str:
    if isinstance(e, AffineDimExpr):
        return dims[e.position]
    if isinstance(e, AffineConstantExpr):
        if e.value == -(2**63):  # no literal spells INT64_MIN (2^63 is out of range)
            return "(-INT64_C(9223372036854775807) - 1)"
        return f"INT64_C({e.value})" if e.value < 0 else str(e.value)
    if isinstance(e, AffineBinaryOpExpr):
        a, b = affine_c(e.lhs, dims), affine_c(e.rhs, dims)
        match e.kind:
            case AffineBinaryOpKind.Add:
                return f"({a} + {b})"
            case AffineBinaryOpKind.Mul:
                return f"({a} * {b})"
            case AffineBinaryOpKind.Mod:
                return f"aicf_mod({a}, {b})"
            case AffineBinaryOpKind.FloorDiv:
                return f"aicf_floordivsi64({a}, {b})"
            case AffineBinaryOpKind.CeilDiv:
                return f"aicf_ceildivsi64({a}, {b})"
    raise ValueError(f"unsupported affine expression {e}")


def map_indices(m: AffineMap, dims: Sequence[str]) -> list[str]:
    return [affine_c(r, dims) for r in m.results]


# --- scalar bodies ---------------------------------------------------------------------


class BodyEmitter(ScalarPrinter):
    """Turns a nest body into C statements, one `const T v = expr;` per op."""

    lang = C
    index_type = "int64_t"

    def __init__(self, names: dict[SSAValue, str], counter: list[int]):
        self.names = names
        self.counter = counter
        self.lines: list[str] = []
        self.current: Operation | None = None

    def ctype(self, t: Attribute) -> str:
        return c_type(t, self.current)

    def n(self, v: SSAValue) -> str:
        return self.names[v]

    def define(self, v: SSAValue, expr: str) -> None:
        self.counter[0] += 1
        name = f"v{self.counter[0]}"
        self.lines.append(f"const {self.ctype(v.type)} {name} = {expr};")
        self.names[v] = name

    def emit(self, ops: Sequence[Operation]) -> None:
        for op in ops:
            if isinstance(op, YieldOp):
                continue
            self.current = op
            if not self.print_scalar(op):
                raise op_error(op, "is not supported in a nest body by the cpu target")


# --- nests -----------------------------------------------------------------------------


@dataclass
class Loop:
    """One `for` over a domain dim, with the pragma put before it."""

    dim: int
    extent: int | str  # a C expression for a guarded (ragged) dim
    pragma: str = ""


def _loops_c(loops: Sequence[Loop], inner: Sequence[str], indent: str) -> list[str]:
    out: list[str] = []
    pad = indent
    for lp in loops:
        if lp.pragma:
            out.append(f"{pad}#pragma {lp.pragma}")
        out.append(f"{pad}for (int64_t i{lp.dim} = 0; i{lp.dim} < {lp.extent}; ++i{lp.dim}) {{")
        pad += "  "
    out.extend(pad + s for s in inner)
    for _ in loops:
        pad = pad[:-2]
        out.append(f"{pad}}}")
    return out


def _parallel_for(collapse: int, extra: str = "", ragged: bool = False) -> str:
    """`ragged`: the iterations' work grows with the index (a guarded dim, a scan's
    triangle), so they are dealt round-robin (contiguous blocks gave the last thread
    three quarters of a triangle on two threads)."""
    c = f" collapse({collapse})" if collapse > 1 else ""
    chunk = ", 1" if ragged else ""
    return f"omp parallel for{c} schedule(static{chunk}){extra}"


def _nest_parallel(nest: NestOp) -> int:
    """Leading loops the schedule shares among threads: a cpu.nest's, or for the loop
    nest a cpu.blas_gemm falls back to (views BLAS cannot take), its fallback's."""
    s = schedule_of(nest)
    if s is not None and s.kind == "cpu.blas_gemm":
        return int(s.get("fallback_parallel", 0))
    return _schedule(nest, "cpu.nest")["parallel"]


def _schedule(op: Operation, kind: str) -> Schedule:
    """The op's schedule, which must be of `kind` (the emitter decides nothing)."""
    s = schedule_of(op)
    if s is None:
        raise op_error(op, "has no aicf.schedule: run aicf-plan{target=cpu} before emitting C")
    if s.kind != kind:
        raise op_error(op, f"has a {s.kind} schedule; the C emitter runs {kind} here")
    return s


@dataclass
class FuncState:
    bufs: dict[SSAValue, Buffer] = field(default_factory=dict)
    counter: list[int] = field(default_factory=lambda: [0])
    allocs: list[str] = field(default_factory=list)
    """Every allocation `p` (pointer `p_mem` in the steps): the entry function keeps
    allocation k in mem[k]; `own` are those a step makes itself (a group's local
    buffers), locals of the step."""
    own: list[str] = field(default_factory=list)
    in_step: bool = False
    slot: dict[str, int] = field(default_factory=dict)
    """allocs inverted (p -> k): a lookup per reference, not a scan of every
    allocation so far (a function of n nests would take O(n^2))."""

    def add_alloc(self, p: str) -> None:
        self.slot[p] = len(self.allocs)
        self.allocs.append(p)
        if self.in_step:
            self.own.append(p)

    def mem_ref(self, p: str) -> str:
        return f"{p}_mem" if p in self.own else f"mem[{self.slot[p]}]"


class NestEmitter:
    """C for one nest. With `fixed = k`, the first k dims (parallel) are indices
    `i0..i{k-1}` already defined by an enclosing loop (a group run per slice): only the
    other dims get loops, and no threads are started inside."""

    def __init__(self, nest: NestOp, st: FuncState, fixed: int = 0):
        self.nest = nest
        self.st = st
        self.fixed = fixed
        self.extents = nest.extents
        self.ndims = len(self.extents)
        self.dims = [f"i{d}" for d in range(self.ndims)]
        self.in_bufs = [st.bufs[v] for v in nest.inputs]
        self.out_bufs = [st.bufs[v] for v in nest.outputs]
        # leading loops shared among threads (the schedule's; none inside a slice)
        self.parallel = 0 if fixed else _nest_parallel(nest)
        self.big = self.parallel > 0
        # a guarded dim runs to its bound (the verifier puts the dims the bound reads
        # outside it, so they are defined where its loop starts)
        rb = nest.ragged_bound
        self.limits: dict[int, int | str] = dict(enumerate(self.extents))
        if rb is not None:
            b = f"({affine_c(rb.bound, self.dims)} + 1)"
            self.limits[rb.dim] = f"({b} < {self.extents[rb.dim]} ? {b} : {self.extents[rb.dim]})"

    def loop(self, d: int) -> Loop:
        return Loop(d, self.limits[d])

    def body_lines(self) -> tuple[list[str], list[str]]:
        """Loads + scalar ops of the body, and the C names of the yielded values."""
        names: dict[SSAValue, str] = {}
        lines = []
        block = self.nest.body.block
        for arg, buf, m in zip(block.args, self.in_bufs, self.nest.input_maps):
            self.st.counter[0] += 1
            name = f"x{self.st.counter[0]}"
            lines.append(f"const {c_type(arg.type)} {name} = "
                         f"{buf.at(map_indices(m, self.dims))};")  # fmt: skip
            names[arg] = name
        body = BodyEmitter(names, self.st.counter)
        body.emit(list(block.ops))
        lines += body.lines
        yielded = [names[v] for v in self.nest.yield_op.values]
        return lines, yielded

    def store(self, k: int, value: str, value_type: Attribute, indices: Sequence[str]) -> str:
        buf = self.out_bufs[k]
        return f"{buf.at(indices)} = {convert(value, value_type, buf.elt)};"

    def emit(self) -> list[str]:
        nest = self.nest
        if any(e == 0 for e in self.extents) and not nest.is_reduction:
            return [f"/* {nest.name}: empty domain */"]
        red = nest.reduction_dims
        if not red:
            return self.emit_elementwise()
        prefix = 0
        while prefix < self.ndims and prefix not in red:
            prefix += 1
        if all(d in red for d in range(prefix, self.ndims)):
            return self.emit_inner_reduction(prefix)
        return self.emit_outer_reduction(prefix)

    # -- elementwise --
    def emit_elementwise(self) -> list[str]:
        lines, yielded = self.body_lines()
        ytypes = [v.type for v in self.nest.yield_op.values]
        for k, m in enumerate(self.nest.output_maps):
            lines.append(self.store(k, yielded[k], ytypes[k], map_indices(m, self.dims)))
        if self.ndims == self.fixed:
            return ["{", *("  " + s for s in lines), "}"]
        loops = [Loop(d, e) for d, e in enumerate(self.extents)][self.fixed :]
        if self.big and self.ndims == 1:
            loops[0].pragma = "omp parallel for simd schedule(static)"
        else:
            loops[-1].pragma = "omp simd"
            if self.big:
                loops[0].pragma = _parallel_for(min(self.parallel, self.ndims - 1))
        return _loops_c(loops, lines, "")

    # -- reductions --
    def acc_types(self) -> list[Attribute]:
        """The accumulator type per output: the schedule's `acc` (the planner's
        choice), else the output's own type."""
        values = self.nest.yield_op.values
        s = schedule_of(self.nest)
        spelled = s.get("fallback_acc" if s is not None and s.kind == "cpu.blas_gemm" else "acc") if s else None
        if not spelled:  # bf16 is a storage type: its values compare in f32
            return [Float32Type() if isinstance(v.type, BFloat16Type) else v.type for v in values]
        names = [x.strip() for x in str(spelled).split(",")]
        if len(names) != len(values):
            raise op_error(self.nest, f"the schedule's acc = \"{spelled}\" names {len(names)} "
                           f"accumulator type(s) for {len(values)} output(s)")
        out = []
        for name, v in zip(names, values):
            t = _ACC_TYPES.get(name)
            if t is None:
                raise op_error(self.nest, f"the schedule's acc names '{name}', not one of "
                               f"{', '.join(_ACC_TYPES)}")
            if is_float_type(t) != is_float_type(v.type):
                raise op_error(self.nest, f"cannot accumulate a {v.type} output in {name} on the cpu target")
            width = lambda x: 64 if isinstance(x, IndexType) else x.width.data  # noqa: E731
            if not is_float_type(t) and width(t) < width(v.type):
                # the values are converted into the accumulator: a sum of two i64 2^40
                # in i32 was 0, an i32 max in i1 was 1
                raise op_error(self.nest, f"cannot accumulate {v.type} values in {name}, a narrower integer "
                               "(they would wrap)")
            if isinstance(t, BFloat16Type):
                raise op_error(self.nest, "cannot accumulate in bf16 on the cpu target, where bf16 "
                               "is only stored: name f32")
            out.append(t)
        return out

    def emit_inner_reduction(self, prefix: int) -> list[str]:
        nest = self.nest
        combs = nest.combiner_kinds
        ytypes = [v.type for v in nest.yield_op.values]
        aattrs = self.acc_types()
        atypes = [c_type(t) for t in aattrs]
        accs = [f"acc{k}" for k in range(len(combs))]
        lines, yielded = self.body_lines()
        simd_ok = all(simd_reducible(c, t) for c, t in zip(combs, atypes))
        nan_flags = [
            f"nan{k}" if simd_ok and c in (Combiner.MAX, Combiner.MIN) and t in ("float", "double")
            else ""
            for k, (c, t) in enumerate(zip(combs, atypes))
        ]  # fmt: skip
        clauses = ""
        for k, c in enumerate(combs):
            v = convert(yielded[k], ytypes[k], aattrs[k], cast=True)
            if simd_ok and c in (Combiner.MAX, Combiner.MIN):
                # a select the vectoriser turns into vmax/vmin (NaN-free by construction:
                # a NaN fails the comparison); NaNs are tracked in a flag and win at the end
                rel = ">" if c is Combiner.MAX else "<"
                lines.append(f"{accs[k]} = {v} {rel} {accs[k]} ? {v} : {accs[k]};")
                if nan_flags[k]:
                    lines.append(f"{nan_flags[k]} |= {v} != {v};")
            else:
                lines.append(f"{accs[k]} = {combine(c, accs[k], v, atypes[k])};")
            clauses += f" reduction({_OMP_REDUCTION[c]}:{accs[k]})"
            if nan_flags[k]:
                clauses += f" reduction(|:{nan_flags[k]})"
        red_loops = [self.loop(d) for d in range(prefix, self.ndims)]
        if simd_ok:
            red_loops[-1].pragma = "omp simd" + clauses
        par_loops = [Loop(d, self.extents[d]) for d in range(self.fixed, prefix)]
        if self.big and par_loops:
            par_loops[0].pragma = _parallel_for(
                min(self.parallel, prefix), ragged=nest.ragged_bound is not None
            )
        elif self.big and simd_ok:
            if len(red_loops) == 1:
                red_loops[0].pragma = "omp parallel for simd schedule(static)" + clauses
            else:
                red_loops[0].pragma = "omp parallel for schedule(static)" + clauses
        out_idx = [map_indices(m, self.dims) for m in nest.output_maps]
        inner = [
            f"{t} {a} = {identity(c, t)};" for c, t, a in zip(combs, atypes, accs)
        ]
        inner += [f"int {f} = 0;" for f in nan_flags if f]
        inner += _loops_c(red_loops, lines, "")
        inner += [f"if ({f}) {a} = NAN;" for f, a in zip(nan_flags, accs) if f]
        for k in range(len(combs)):
            inner.append(self.store(k, accs[k], aattrs[k], out_idx[k]))
        if not par_loops:
            return ["{", *("  " + s for s in inner), "}"]
        return _loops_c(par_loops, inner, "")

    def emit_outer_reduction(self, prefix: int) -> list[str]:
        nest = self.nest
        combs = nest.combiner_kinds
        ytypes = [v.type for v in nest.yield_op.values]
        aattrs = self.acc_types()
        atypes = [c_type(t) for t in aattrs]
        tmps = [f"t{self.st.counter[0]}_{k}" for k in range(len(combs))]
        self.st.counter[0] += 1
        out: list[str] = ["{"]
        sizes = []
        for k, buf in enumerate(self.out_bufs):
            n = math.prod(buf.shape)
            sizes.append(n)
            out.append(f"  {atypes[k]} *{tmps[k]} = ({atypes[k]} *)malloc({max(n, 1)} * sizeof({atypes[k]}));")
            out.append(f"  if (!{tmps[k]}) goto fail;")
            out.append(f"  for (int64_t j = 0; j < {n}; ++j) {tmps[k]}[j] = {identity(combs[k], atypes[k])};")
        lines, yielded = self.body_lines()
        for k, (c, m) in enumerate(zip(combs, nest.output_maps)):
            lin = linear_index(map_indices(m, self.dims), self.out_bufs[k].shape)
            ref = f"{tmps[k]}[{lin}]"
            v = convert(yielded[k], ytypes[k], aattrs[k], cast=True)
            lines.append(f"{ref} = {combine(c, ref, v, atypes[k])};")
        loops = [self.loop(d) for d in range(self.ndims)]
        innermost_parallel = self.ndims - 1 not in nest.reduction_dims
        if innermost_parallel:
            loops[-1].pragma = "omp simd"
        wrap = False
        if self.big and prefix > 0:
            loops[0].pragma = _parallel_for(
                min(self.parallel, prefix), ragged=nest.ragged_bound is not None
            )
        elif self.big:
            j = next(d for d in range(self.ndims) if d not in nest.reduction_dims)
            simd = " simd" if j == self.ndims - 1 else ""
            loops[j].pragma = f"omp for{simd} schedule(static) nowait"
            wrap = True
        body = _loops_c(loops, lines, "")
        if wrap:
            out.append("  #pragma omp parallel")
            out.append("  {")
            out += ["    " + s for s in body]
            out.append("  }")
        else:
            out += ["  " + s for s in body]
        # convert the accumulators into the outputs: the points the nest writes (its
        # parallel dims through the output map), not the whole buffer, whose other
        # elements are another nest's (a split's tail writes one partial of each output)
        pdims = [d for d in range(self.ndims) if d not in nest.reduction_dims]
        for k, (buf, m) in enumerate(zip(self.out_bufs, nest.output_maps)):
            odims = map_indices(m, self.dims)
            lin = linear_index(odims, buf.shape)
            st = (f"{buf.ptr}[{buf.offset(odims)}] = "
                  f"{convert(f'{tmps[k]}[{lin}]', aattrs[k], buf.elt)};")  # fmt: skip
            pad = "  "
            for d in pdims:
                out.append(f"{pad}for (int64_t {self.dims[d]} = 0; {self.dims[d]} < {self.extents[d]}; ++{self.dims[d]})")
                pad += "  "
            out.append(pad + st)
            out.append(f"  free({tmps[k]});")
        out.append("}")
        return out


_ACC_TYPES: dict[str, Attribute] = {
    "f64": Float64Type(), "f32": Float32Type(), "f16": Float16Type(), "bf16": BFloat16Type(),
    "i64": IntegerType(64), "i32": IntegerType(32), "i16": IntegerType(16), "i8": IntegerType(8),
    "i1": IntegerType(1), "index": IndexType(),
}  # fmt: skip
"""Accumulator types a cpu.nest schedule may name."""

_OMP_REDUCTION = {Combiner.ADD: "+", Combiner.MUL: "*", Combiner.MAX: "max", Combiner.MIN: "min"}

_SIMD_REDUCTION_TYPES = ("float", "double", "int8_t", "int16_t", "int32_t", "int64_t")


def simd_reducible(c: Combiner, acc_type: str) -> bool:
    """Whether `omp simd reduction` can fold this output (max/min: floats through a
    select plus a NaN flag, so the result still propagates NaN like NumPy)."""
    if c in (Combiner.ADD, Combiner.MUL):
        return acc_type != "bool"  # a bool's lanes are folded by `combine`'s | and &, in order
    return acc_type in _SIMD_REDUCTION_TYPES


def linear_index(indices: Sequence[str], shape: Sequence[int]) -> str:
    return Buffer("", None, tuple(shape), identity_strides(shape)).offset(indices)  # type: ignore[arg-type]


def identity(c: Combiner, ctype: str) -> str:
    is_f = ctype in ("float", "double", "_Float16")
    if c is Combiner.ADD:
        return "0"
    if c is Combiner.MUL:
        return "1"
    if is_f:
        return "(-INFINITY)" if c is Combiner.MAX else "INFINITY"
    bits = {"int8_t": 8, "int16_t": 16, "int32_t": 32, "int64_t": 64, "bool": 1}[ctype]
    if bits == 1:
        return "0" if c is Combiner.MAX else "1"
    if c is Combiner.MAX:
        return f"INT{bits}_MIN"
    return f"INT{bits}_MAX"


def combine(c: Combiner, acc: str, v: str, ctype: str) -> str:
    is_f = ctype in ("float", "double", "_Float16")
    if ctype == "bool" and c in (Combiner.ADD, Combiner.MUL):
        # over i1 an add is any() and a mul all() (aicf-to-upstream's or/and): C's
        # bool + under `omp simd reduction(+:)` gave neither (a row of 19 trues: false)
        return f"{acc} {'|' if c is Combiner.ADD else '&'} {v}"
    if c is Combiner.ADD:
        return f"{acc} + {v}"
    if c is Combiner.MUL:
        return f"{acc} * {v}"
    m = ("AICF_FMAX" if c is Combiner.MAX else "AICF_FMIN") if is_f else (
        "AICF_IMAX" if c is Combiner.MAX else "AICF_IMIN")  # fmt: skip
    return f"{m}({acc}, {v})"


def convert(value: str, src: Attribute, dst: Attribute, cast: bool = False) -> str:
    """`value` of type `src` as a `dst` (bf16 through its helpers); `cast` spells even a
    same-type value with its cast (an operand of an accumulation, as the C compiler
    must see its type)."""
    if src == dst:
        return f"({c_type(dst)}){value}" if cast else value
    if isinstance(dst, BFloat16Type):
        if isinstance(src, Float64Type):
            return f"aicf_f64_to_bf16({value})"  # through float it would round twice
        if not is_float_type(src):
            return f"aicf_f32_to_bf16(aicf_i64_to_f32_odd({value}))"
        return f"aicf_f32_to_bf16((float){value})"
    if isinstance(src, BFloat16Type):
        return f"({c_type(dst)})aicf_bf16_to_f32({value})"
    return f"({c_type(dst)}){value}"


# --- functions and the module ----------------------------------------------------------


def _num_outputs(func: FuncOp) -> int:
    attr = func.attributes.get("aicf.num_outputs")
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    return 0


def _check_loop_level(module: ModuleOp) -> None:
    for op in module.walk():
        if op.name.startswith("aicf_tensor."):
            raise op_error(
                op,
                "is a tensor-level op: the cpu target needs the loop level; run "
                "aicf-infer-shapes,aicf-lower-to-loops first",
            )


class ModuleEmitter:
    def __init__(self, module: ModuleOp):
        self.module = module
        self.globals: dict[str, Buffer] = {}
        self.lines: list[str] = [PRELUDE]
        self.uses_blas = False
        self.externals: dict = {}  # external kernels called: symbol -> object (backend/c/external.py)

    def emit(self) -> str:
        _check_loop_level(self.module)
        check_distinct(
            (op, op.sym_name.data, c_symbol(op.sym_name.data, "g_") if op.name == "memref.global" else c_func_name(op.sym_name.data))  # type: ignore[attr-defined]
            for op in self.module.ops
            if op.name == "memref.global" or isinstance(op, FuncOp)
        )
        for op in self.module.ops:
            if op.name == "memref.global":
                self.emit_global(op)
            elif isinstance(op, FuncOp):
                if op.is_declaration:
                    raise op_error(op, "external functions are not supported by the cpu target")
                self.emit_func(op)
            else:
                raise op_error(op, "is not supported at module level by the cpu target")
        if self.uses_blas:
            from aicf.backend.c import blas

            self.lines.insert(1, blas.INCLUDE)
        if self.externals:
            self.lines.insert(1, external.declarations(self.externals))
        return "\n".join(self.lines) + "\n"

    def emit_global(self, op: Operation) -> None:
        t = op.type  # type: ignore[attr-defined]
        name = c_symbol(op.sym_name.data, "g_")  # type: ignore[attr-defined]
        init = op.initial_value  # type: ignore[attr-defined]
        assert isinstance(t, MemRefType)
        shape = static_shape(t, op)
        elt = t.get_element_type()
        ct = c_type(elt, op)
        n = math.prod(shape)
        if not isinstance(init, DenseIntOrFPElementsAttr):
            raise op_error(op, "needs a dense initial value for the cpu target")
        const = "const " if op.constant is not None else ""  # type: ignore[attr-defined]
        raw = _RAW_GLOBALS.get(ct)
        packed = getattr(getattr(init, "data", None), "data", None)  # the attribute's bytes
        if raw is not None and n >= RAW_GLOBAL_ELEMENTS and isinstance(packed, bytes) \
                and len(packed) == n * np.dtype(raw).itemsize:  # fmt: skip
            # from its bytes, in NumPy: element by element in Python (a list of the values,
            # their reprs, an escape each) a 256 MB array a jitted function closes over
            # took 6 minutes to emit
            self._emit_raw_global(name, const, ct, elt, shape, n, np.frombuffer(packed, raw))
            self.globals[op.sym_name.data] = Buffer(name, elt, shape, identity_strides(shape))  # type: ignore[attr-defined]
            return
        vals = list(init.get_values())
        if n == 0:
            body = "{0}"
        elif len(set(map(repr, vals))) == 1 and n > 1:
            body = f"{{[0 ... {n - 1}] = {literal(vals[0], elt)}}}"
        elif raw is not None and n >= RAW_GLOBAL_ELEMENTS:
            # its bytes as one string: a list of a million literals (a weight matrix a
            # jitted function closes over) took gcc ~15 s and GBs, a string under 1 s
            data = np.asarray(vals, dtype=raw).tobytes()
            text = "".join(_BYTE_ESCAPES[b] for b in data)
            self.lines.append(
                f"static {const}union {{ unsigned char b[{len(data)}]; {ct} v[{n}]; }} {name}_u "
                f'__attribute__((aligned(64))) = {{"{text}"}};'
            )
            self.lines.append(f"#define {name} ({name}_u.v)")
            self.globals[op.sym_name.data] = Buffer(name, elt, shape, identity_strides(shape))  # type: ignore[attr-defined]
            return
        else:
            body = "{" + ", ".join(literal(v, elt) for v in vals) + "}"
        self.lines.append(
            f"static {const}{ct} {name}[{max(n, 1)}] __attribute__((aligned(64))) = {body};"
        )
        self.globals[op.sym_name.data] = Buffer(name, elt, shape, identity_strides(shape))  # type: ignore[attr-defined]

    def _emit_raw_global(self, name: str, const: str, ct: str, elt: Attribute, shape, n: int,
                         values: np.ndarray) -> None:  # fmt: skip
        """A global of `n` >= RAW_GLOBAL_ELEMENTS `values`: one initialiser if all
        their bytes are equal, else the bytes as one string literal (every byte
        escaped, so no escape runs into the next character)."""
        data = values.tobytes()
        width = values.dtype.itemsize
        rows = np.frombuffer(data, np.uint8).reshape(n, width)
        if (rows == rows[0]).all():
            body = f"{{[0 ... {n - 1}] = {literal(values[0].item(), elt)}}}"
            self.lines.append(f"static {const}{ct} {name}[{n}] __attribute__((aligned(64))) = {body};")
            return
        b = np.frombuffer(data, np.uint8)
        text = np.empty((b.size, 4), np.uint8)
        text[:, 0], text[:, 1] = ord("\\"), ord("x")
        text[:, 2], text[:, 3] = _HEX_DIGITS[b >> 4], _HEX_DIGITS[b & 15]
        self.lines.append(
            f"static {const}union {{ unsigned char b[{len(data)}]; {ct} v[{n}]; }} {name}_u "
            f'__attribute__((aligned(64))) = {{"{text.tobytes().decode("ascii")}"}};'
        )
        self.lines.append(f"#define {name} ({name}_u.v)")

    def emit_func(self, func: FuncOp) -> None:
        """The function, and each loop nest, group or gather of it as a step function
        of its own (`static`, never inlined) that the function calls in order: the C
        compiler's time grows faster than linearly with a function's size (GCC's
        post-reload CSE: a 4-layer GPT-2 as one function took 24 s, as steps 4 s).
        Identical steps are one function, and a long sequence of calls is split into
        parts (backend/c/steps.py)."""
        # an input is a `const` pointer below: a write to it is the program's mistake,
        # said at the op, not the C compiler's error about the generated code
        check_input_writes(func, need_outputs=True)
        st = FuncState()
        name = c_func_name(func.sym_name.data)
        decls: list[str] = []  # the arguments' pointers and strides, in every step too
        nout = _num_outputs(func)
        nargs = len(func.args)
        for i, arg in enumerate(func.args):
            t = arg.type
            if not isinstance(t, MemRefType):
                raise op_error(func, f"argument #{i} must be a memref at the loop level, got {t}")
            shape = static_shape(t, func)
            elt = t.get_element_type()
            ct = c_type(elt, func)
            qual = "const " if i < nargs - nout else ""
            if has_runtime_strides(t):
                strides = tuple(f"a{i}_s{k}" for k in range(len(shape)))
                for k in range(len(shape)):
                    decls.append(f"  const int64_t a{i}_s{k} = strides[{i}][{k}];")
            else:
                strides = identity_strides(shape)
            decls.append(f"  {qual}{ct} *restrict a{i} = ({qual}{ct} *)bufs[{i}];")
            st.bufs[arg] = Buffer(f"a{i}", elt, shape, strides)
        body: list[str] = []
        steps = StepTable(name)  # identical steps (repeated layers) are one function
        for op in func.body.block.ops:
            if not isinstance(op, NestOp | GroupOp | GatherOp | AttentionOp | memref.CopyOp):
                body += self.emit_op(op, st)
                continue
            st.in_step, st.own = True, []
            lines = self.emit_op(op, st)
            st.in_step = False
            body.append(steps.add(decls, st.slot, st.own, lines))
        n = max(len(st.allocs), 1)
        body, parts = split_calls(name, body)
        lines = [
            # what a cached program's argument specs are checked against (program_cache)
            f"/* aicf: {name} takes {nargs} buffers: {', '.join(str(a.type) for a in func.args)} */",
            f"int {name}(void *const *bufs, const int64_t *const *strides) {{",
            "  (void)strides;",
            f"  void *mem[{n}] = {{0}};",
            *("  " + s for s in body),
            "  return 0;",
            "fail:",
            f"  for (int k = 0; k < {n}; ++k) free(mem[k]);",
            "  return 1;",
            "}",
        ]
        # the entry first (prototypes of its steps before it), then the steps in order
        self.lines.extend(f.split(" {\n", 1)[0] + ";" for f in (*parts, *steps.functions))
        self.lines.append("\n".join(lines) + "\n")
        self.lines.extend((*parts, *steps.functions))

    def emit_group(self, group: GroupOp, st: FuncState) -> list[str]:
        """A fused row group, run per slice of its shared dims when possible: the
        threads split the shared dims, and each slice runs every member nest in turn,
        so the slice's rows stay in cache between the member nests and group-local
        buffers are small arrays on the slice's stack (registers, once optimised).
        Otherwise the member nests run one after another over the whole domain (the
        group's plain semantics)."""
        shared = group.shared_extents
        head = f"/* {group.name} shared = {list(shared)}"
        sched = _schedule(group, "cpu.group")
        locals_ = group.slice_locals() if sched["per_slice"] else None
        if isinstance(locals_, str):
            raise op_error(group, f"the cpu.group schedule asks to run per slice, but {locals_}")
        if locals_ is None:
            lines = [head + " */"]
            for member in group.body.block.ops:
                lines += self.emit_op(member, st)
            return lines
        k = len(shared)
        body: list[str] = []
        for value, sliced in locals_.items():
            t = value.type
            assert isinstance(t, MemRefType)
            elt = t.get_element_type()
            ct = c_type(elt, value.owner)  # type: ignore[arg-type]
            # one slice of the buffer: the shared-dim positions get stride 0
            shape = tuple(1 if p in sliced else d for p, d in enumerate(t.get_shape()))
            strides = tuple(
                "0" if p in sliced else s for p, s in enumerate(identity_strides(shape))
            )
            st.counter[0] += 1
            name = f"l{st.counter[0]}"
            body.append(f"{ct} {name}[{max(math.prod(shape), 1)}];")
            st.bufs[value] = Buffer(name, elt, shape, strides)
        for member in group.nests:
            ms = schedule_of(member)
            if ms is not None and ms.kind != "cpu.nest":
                raise op_error(member, f"has a {ms.kind} schedule, but its group "
                               "runs per slice of its shared dims on the cpu target")  # fmt: skip
            body.append(f"/* {member.name} domain = {list(member.extents)} */")
            body += NestEmitter(member, st, fixed=k).emit()
        loops = [Loop(d, e) for d, e in enumerate(shared)]
        if sched["parallel"]:
            loops[0].pragma = _parallel_for(min(sched["parallel"], k))
        return [head + ", per slice */", "{", *("  " + s for s in _loops_c(loops, body, "")), "}"]

    def emit_scheduled(self, nest: NestOp, sched: DictionaryAttr, st: FuncState) -> list[str]:
        from aicf.backend.c import blas

        kind = _schedule_kind(sched)
        if kind != blas.KIND:
            raise op_error(nest, f"has aicf.schedule kind '{kind}', which the cpu target "
                           f"does not know (known: {blas.KIND})")  # fmt: skip
        self.uses_blas = True
        bufs = [st.bufs[v] for v in (*nest.inputs, *nest.outputs)]
        return blas.emit_gemm(nest, sched, bufs, c_type, map_indices,
                              lambda: NestEmitter(nest, st).emit())  # fmt: skip

    def emit_op(self, op: Operation, st: FuncState) -> list[str]:
        s = schedule_of(op) if isinstance(op, NestOp | GroupOp) else None
        if s is not None and s.kind == external.KIND:
            return external.emit_call(op, s, st.bufs, identity_strides, lambda: self.emit_op(op, st), self.externals)
        printer = FUNCTION_PRINTERS.get(type(op))
        if printer is None:
            raise op_error(op, "is not supported by the cpu target")
        return printer(self, op, st)


# --- the loop-level ops of a function body (the scalar ones are backend/cstyle.py's) -----

FUNCTION_PRINTERS, prints = dispatch_table()


@prints(NestOp)
def _nest(em: ModuleEmitter, op: NestOp, st: FuncState) -> list[str]:
    head = f"/* {op.name} domain = {list(op.extents)} */"
    sched = op.attributes.get("aicf.schedule")
    if isinstance(sched, DictionaryAttr) and _schedule_kind(sched) == "cpu.blas_gemm":
        return [head, *em.emit_scheduled(op, sched, st)]
    return [head, *NestEmitter(op, st).emit()]


prints(GroupOp)(lambda em, op, st: em.emit_group(op, st))
prints(GatherOp)(lambda em, op, st: emit_gather(op, st))


@prints(AttentionOp)
def _attention(em: ModuleEmitter, op: AttentionOp, st: FuncState) -> list[str]:
    from aicf.backend.c.attention import emit_attention

    return emit_attention(op, st)


@prints(memref.AllocOp, memref.AllocaOp)
def _alloc(em: ModuleEmitter, op: Operation, st: FuncState) -> list[str]:
    t = op.results[0].type
    assert isinstance(t, MemRefType)
    if op.operands:
        raise op_error(op, "dynamic allocations are not supported by the cpu target")
    shape = static_shape(t, op)
    elt = t.get_element_type()
    ct = c_type(elt, op)
    st.counter[0] += 1
    p = f"m{st.counter[0]}"
    st.add_alloc(p)
    st.bufs[op.results[0]] = Buffer(f"(({ct} *){p}_mem)", elt, shape, identity_strides(shape))
    ref = st.mem_ref(p)
    return [
        f"{ref} = aicf_alloc({max(math.prod(shape), 1)} * sizeof({ct}));",
        f"if (!{ref}) goto fail;",
    ]


@prints(memref.DeallocOp)
def _dealloc(em: ModuleEmitter, op: Operation, st: FuncState) -> list[str]:
    buf = st.bufs[op.operands[0]]
    m = re.match(r"\(\(.* \*\)(m\d+)_mem\)", buf.ptr)
    if m is None:
        raise op_error(op, "frees a buffer that was not allocated in this function")
    ref = st.mem_ref(m.group(1))
    return [f"free({ref}); {ref} = NULL;"]


@prints(memref.GetGlobalOp)
def _get_global(em: ModuleEmitter, op: memref.GetGlobalOp, st: FuncState) -> list[str]:
    name = op.name_.root_reference.data
    if name not in em.globals:
        raise op_error(op, f"refers to an unknown global @{name}")
    st.bufs[op.results[0]] = em.globals[name]
    return []


@prints(memref.CollapseShapeOp, memref.ExpandShapeOp, memref.CastOp, memref.ReinterpretCastOp)
def _view(em: ModuleEmitter, op: Operation, st: FuncState) -> list[str]:
    src = st.bufs[op.operands[0]]
    t = op.results[0].type
    assert isinstance(t, MemRefType)
    shape = static_shape(t, op)
    cast = isinstance(op, memref.CastOp)
    if not cast and src.strides != identity_strides(src.shape):
        raise op_error(op, "needs a contiguous source on the cpu target")
    if cast and has_runtime_strides(t):
        st.bufs[op.results[0]] = src
    else:
        st.bufs[op.results[0]] = Buffer(src.ptr, src.elt, shape, identity_strides(shape))
    return []


@prints(memref.CopyOp)
def _copy(em: ModuleEmitter, op: Operation, st: FuncState) -> list[str]:
    src, dst = (st.bufs[v] for v in op.operands)
    r = len(dst.shape)
    idx = [f"c{d}" for d in range(r)]
    lines = []
    pad = ""
    for d in range(r):
        if d == r - 1:
            lines.append(pad + "#pragma omp simd")
        lines.append(f"{pad}for (int64_t c{d} = 0; c{d} < {dst.shape[d]}; ++c{d})")
        pad += "  "
    lines.append(f"{pad}{dst.at(idx)} = {convert(src.at(idx), src.elt, dst.elt)};")
    return ["{", *("  " + s for s in lines), "}"]


@prints(FuncReturnOp)
def _return(em: ModuleEmitter, op: Operation, st: FuncState) -> list[str]:
    if op.operands:
        raise op_error(op, "returns values: the loop level is destination-passing "
                       "(run aicf-lower-to-loops)")
    return []


def emit_gather(op: GatherOp, st: FuncState) -> list[str]:
    """Loops over the output; the gathered index is wrapped once and clamped (the
    op's rule), so no index reaches outside the source."""
    src, idx, out = (st.bufs[v] for v in (op.source, op.indices, op.output))
    a, n = op.axis_value, src.shape[op.axis_value]
    names = [f"i{d}" for d in range(len(out.shape))]
    at_idx = names[a : a + len(idx.shape)]
    body = [
        f"int64_t k = (int64_t){idx.at(at_idx)};",
        f"if (k < 0) k += {n};",
        f"k = k < 0 ? 0 : k >= {n} ? {n - 1} : k;",
        f"{out.at(names)} = {src.at([*names[:a], 'k', *names[a + len(idx.shape):]])};",
    ]
    loops = [Loop(d, e) for d, e in enumerate(out.shape)]
    head = f"/* {op.name} axis = {a} */"
    return [head, "{", *_loops_c(loops, body, "  "), "}"]


def _schedule_kind(sched: DictionaryAttr) -> str:
    kind = sched.data.get("kind")
    return kind.data if isinstance(kind, StringAttr) else ""


def emit_c(module: ModuleOp) -> str:
    """C source for a loop-level module: one `int aicf_NAME(void *const *bufs, const
    int64_t *const *strides)` per function (see the module docstring for the ABI)."""
    return ModuleEmitter(module).emit()


def emit_c_unit(module: ModuleOp) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """The C source, the flags to build it with and the identities of the libraries it
    links (for the build cache's key)."""
    em = ModuleEmitter(module)
    source = em.emit()
    objects, ids = external.link_inputs(em.externals)
    if not em.uses_blas:
        return source, (*LINK_FLAGS, *objects), ids
    from aicf.backend.c import blas

    if not blas.available():
        raise CompileError("a nest is scheduled as cpu.blas_gemm but scipy-openblas32 is "
                           "not installed (pip install scipy-openblas32)")  # fmt: skip
    return source, (*LINK_FLAGS, *blas.link_flags(), *objects), (blas.library_id(), *ids)
