"""The BLAS library kernel of the cpu target: OpenBLAS's gemm from scipy-openblas32.

What the library accepts (`matrix_layout`: a row- or column-major matrix with a leading
dimension, 32-bit sizes), how generated C links it (`link_flags`, `library_id` for the
build cache), and the C for a nest whose `aicf.schedule` is `cpu.blas_gemm`
(`emit_gemm`): the emitter reads the schedule's parameters, checks them against the
nest (a located diagnostic when they disagree) and prints the calls. The guard and the
cost that choose this schedule are in aicf/cost/blas.py.

scipy-openblas32 is the OpenBLAS build NumPy and SciPy are built against, packaged with
its headers and shared library (symbols prefixed `scipy_`, 32-bit integers), so it
installs from PyPI with no compiler and no system BLAS. NumPy's own copy is not a public
API (its symbol names and location change between releases).

Threads: one pool, OpenMP's (OMP_NUM_THREADS). The generated library sets this OpenBLAS
copy to one thread, and the calls of a nest are OpenMP tasks: one per batch point and
column chunk (`tasks_n` chunks of N per call). OpenBLAS's own pool, measured beside
OpenMP's on two cores, lost up to 3x on a busy machine: each pool's threads spin
waiting for work while the other wants the core (bench/NOTES.md).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, MemRefType, StridedLayoutAttr, StringAttr
from xdsl.ir import Attribute
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap

from aicf.diagnostics import op_error
from aicf.dialects.loop import Combiner, NestOp, YieldOp

KIND = "cpu.blas_gemm"
SCHEDULE_ATTR = "aicf.schedule"
RUNTIME = "runtime"
"""trans_a/trans_b of an operand whose strides are only known at run time."""

BLAS_INT_MAX = 2**31 - 1
"""scipy-openblas32 takes 32-bit sizes and leading dimensions."""

ROUTINES = {"f32": "sgemm", "f64": "dgemm"}
_C_TYPES = {"sgemm": "float", "dgemm": "double"}


@functools.cache
def _package():
    try:
        import scipy_openblas32  # type: ignore[import-not-found]
    except ImportError:
        return None
    return scipy_openblas32


def available() -> bool:
    return _package() is not None


@functools.cache
def library_id() -> str:
    """What is linked, for the build cache's key: the package's version and path."""
    pkg = _package()
    if pkg is None:
        return ""
    from importlib.metadata import version

    return f"scipy-openblas32 {version('scipy-openblas32')} {pkg.get_lib_dir()}"


def link_flags() -> tuple[str, ...]:
    pkg = _package()
    if pkg is None:
        return ()
    lib = pkg.get_lib_dir()
    return (f"-I{pkg.get_include_dir()}", f"-L{lib}", f"-l{pkg.get_library()}",
            f"-Wl,-rpath,{lib}")  # fmt: skip


INCLUDE = r"""#include <cblas.h>
/* BLAS calls run on OpenMP's threads (one call per task, see emit_gemm): OpenBLAS's own
   pool would fight OpenMP's spinning threads for the same cores. This library copy is
   aicf's alone (NumPy and SciPy bundle their own). */
__attribute__((constructor)) static void aicf_blas_single_threaded(void) {
  scipy_openblas_set_num_threads(1);
}
/* (trans, ld) of a rows x cols matrix with these element strides as BLAS takes it:
   row-major (trans 0) or column-major (trans 1); 0 when it is neither. The same rule
   as matrix_layout in backend/c/blas.py, for strides known only at run time. */
static inline int aicf_blas_layout(int64_t rows, int64_t cols, int64_t s_row, int64_t s_col,
                                   int *trans, int *ld) {
  const int64_t r1 = rows > 1 ? rows : 1, c1 = cols > 1 ? cols : 1;
  if (cols <= 1 || s_col == 1) {
    const int64_t l = rows > 1 ? s_row : c1;
    if (l >= c1 && l <= INT32_MAX) { *trans = 0; *ld = (int)l; return 1; }
  }
  if (rows <= 1 || s_row == 1) {
    const int64_t l = cols > 1 ? s_col : r1;
    if (l >= r1 && l <= INT32_MAX) { *trans = 1; *ld = (int)l; return 1; }
  }
  return 0;
}
"""


def matrix_layout(rows: int, cols: int, s_row: int, s_col: int) -> tuple[str, int] | None:
    """("N", ld) for a row-major matrix, ("T", ld) for a column-major one, or None.
    A dim of extent <= 1 is never stepped along, so its stride does not matter."""
    if cols <= 1 or s_col == 1:
        ld = s_row if rows > 1 else max(cols, 1)
        if max(cols, 1) <= ld <= BLAS_INT_MAX:
            return "N", ld
    if rows <= 1 or s_row == 1:
        ld = s_col if cols > 1 else max(rows, 1)
        if max(rows, 1) <= ld <= BLAS_INT_MAX:
            return "T", ld
    return None


def layout_holds(trans: str, ld: int, rows: int, cols: int, s_row: int, s_col: int) -> bool:
    """Whether (trans, ld) describes a rows x cols matrix with these strides."""
    if trans == "T":
        rows, cols, s_row, s_col = cols, rows, s_col, s_row
    elif trans != "N":
        return False
    return ((cols <= 1 or s_col == 1) and (rows <= 1 or s_row == ld)
            and max(cols, 1) <= ld <= BLAS_INT_MAX)  # fmt: skip


def operand_strides(t: MemRefType) -> tuple[int, ...] | None:
    """The element strides of a memref (None: only known at run time)."""
    if isinstance(t.layout, StridedLayoutAttr):
        strides = t.layout.get_strides()
        if any(s is None for s in strides):
            return None
        return tuple(int(s) for s in strides)  # type: ignore[arg-type]
    out, acc = [], 1
    for d in reversed(t.get_shape()):
        out.append(acc)
        acc *= max(d, 1)
    return tuple(reversed(out))


def dim_positions(m: AffineMap) -> list[int | None] | str:
    """For each map result, the domain dim it is (None: a constant), or a reason."""
    out: list[int | None] = []
    for r in m.results:
        if isinstance(r, AffineDimExpr):
            out.append(r.position)
        elif isinstance(r, AffineConstantExpr):
            out.append(None)
        else:
            return f"an access map result ({r}) is not a plain index"
    return out


def coefficients(m: AffineMap, strides: Sequence, ndims: int) -> list:
    """The operand's stride along each domain dim (ints, or C expressions when the
    strides are C expressions); 0 where the map does not read along the dim."""
    coef: list = [0] * ndims
    positions = dim_positions(m)
    assert not isinstance(positions, str)
    for pos, s in zip(positions, strides):
        if pos is None:
            continue
        if isinstance(s, str):
            coef[pos] = s if coef[pos] == 0 else f"{coef[pos]} + {s}"
        else:
            coef[pos] += s
    return coef


def product_body_reason(nest: NestOp) -> str | None:
    """None when the body is `yield arg0 * arg1` (either order), else why not."""
    ops = list(nest.body.block.ops)
    args = list(nest.body.block.args)
    if (len(ops) != 2 or ops[0].name != "arith.mulf" or not isinstance(ops[1], YieldOp)
            or set(ops[0].operands) != set(args) or len(args) != 2
            or ops[1].operands[0] is not ops[0].results[0]):  # fmt: skip
        return "the body is not a product of the two inputs"
    return None


def is_gemm_schedule(sched: Attribute | None) -> bool:
    if not isinstance(sched, DictionaryAttr):
        return False
    kind = sched.data.get("kind")
    return isinstance(kind, StringAttr) and kind.data == KIND


def for_runtime_strides(nest: NestOp, sched: DictionaryAttr) -> DictionaryAttr:
    """The schedule of the nest once some of its inputs have run-time strides (the cpu
    runtime's strided variant of a function): those inputs' layouts are read at run
    time, and batch dims fold into M only through an input whose strides are known."""
    vals = dict(sched.data)
    for i, v in enumerate(nest.inputs):
        if operand_strides(v.type) is None:  # type: ignore[arg-type]
            vals[f"trans_{'ab'[i]}"] = StringAttr(RUNTIME)
            vals[f"ld{'ab'[i]}"] = IntegerAttr(0, 64)
            if i == 0:
                vals["fold"] = IntegerAttr(0, 64)
    return DictionaryAttr(vals)


# --- emission ------------------------------------------------------------------------


def _param(nest: NestOp, sched: DictionaryAttr, name: str, kind: type) -> int | str:
    v = sched.data.get(name)
    if kind is int and isinstance(v, IntegerAttr):
        return v.value.data
    if kind is str and isinstance(v, StringAttr):
        return v.data
    if v is None:
        raise op_error(nest, f"aicf.schedule {KIND} lacks the parameter '{name}'")
    what = "an integer" if kind is int else "a string"
    raise op_error(nest, f"aicf.schedule {KIND}: parameter '{name}' must be {what}, got {v}")


def emit_gemm(nest: NestOp, sched: DictionaryAttr, bufs: Sequence, c_type_of: Callable[[Attribute], str],
              map_indices: Callable[[AffineMap, Sequence[str]], list[str]],
              fallback: Callable[[], list[str]]) -> list[str]:  # fmt: skip
    """C for the nest as its schedule's BLAS calls (`bufs`: the emitter's Buffer of each
    operand; `fallback()`: the plain loop nest, for empty sizes and for run-time strided
    views that are no BLAS matrix). Raises a located CompileError when the parameters do
    not fit the nest."""
    g = _Gemm.read(nest, sched, c_type_of)
    if g.rows * g.en * g.ek == 0:
        return fallback()
    g.check(bufs)
    return g.calls_c(bufs, map_indices, fallback)


def _unfit(nest: NestOp, why: str):
    return op_error(nest, f"aicf.schedule {KIND} does not fit this nest: {why}")


class _Gemm:
    """A cpu.blas_gemm schedule's parameters, read from the attribute and checked
    against its nest."""

    def __init__(self, nest: NestOp, sched: DictionaryAttr, ctype: str):
        self.nest = nest
        self.ctype = ctype
        self.routine = _param(nest, sched, "routine", str)
        self.m, self.n, self.k, self.fold, self.tasks_n = (
            _param(nest, sched, p, int) for p in ("m", "n", "k", "fold", "tasks_n"))  # fmt: skip
        self.trans = [_param(nest, sched, p, str) for p in ("trans_a", "trans_b")]
        self.lds = [_param(nest, sched, p, int) for p in ("lda", "ldb", "ldc")]
        ext = self.ext = nest.extents
        self.em = ext[self.m] if self.m >= 0 else 1  # type: ignore[index]
        self.en = ext[self.n] if self.n >= 0 else 1  # type: ignore[index]
        self.ek = ext[self.k]  # type: ignore[index]
        self.folded = range(self.m - self.fold, self.m)  # type: ignore[operator]
        self.rows = self.em * math.prod(ext[d] for d in self.folded)

    def bad(self, why: str):
        return _unfit(self.nest, why)

    @classmethod
    def read(cls, nest: NestOp, sched: DictionaryAttr, c_type_of) -> _Gemm:
        """The parameters, after the checks that need no strides."""
        if nest.guard is not None:
            raise _unfit(nest, "a guarded nest (a split's partial; a gemm call runs whole dims)")
        routine = _param(nest, sched, "routine", str)
        if routine not in _C_TYPES:
            raise _unfit(nest, f"routine '{routine}' (expected sgemm or dgemm)")
        ctype = _C_TYPES[routine]  # type: ignore[index]

        def bad(why: str):
            return _unfit(nest, why)

        if len(nest.inputs) != 2 or len(nest.outputs) != 1:
            raise bad("a gemm has two inputs and one output")
        for v in (*nest.inputs, *nest.outputs):
            if c_type_of(v.type.get_element_type()) != ctype:  # type: ignore[attr-defined]
                raise bad(f"{routine} needs {ctype} operands, got {v.type}")
        k = _param(nest, sched, "k", int)
        if nest.reduction_dims != (k,) or nest.combiner_kinds != (Combiner.ADD,):
            raise bad(f"k = {k} must be the only reduction dim, combined by add")
        reason = product_body_reason(nest)
        if reason:
            raise bad(reason)
        if nest.outputs[0] in nest.inputs:
            raise bad("the output is also an input (BLAS's C may not overlap A or B)")
        nd = len(nest.extents)
        m, n, fold = (_param(nest, sched, p, int) for p in ("m", "n", "fold"))
        for name, d in (("m", m), ("n", n)):
            if d != -1 and not (0 <= d < nd and d != k):  # type: ignore[operator]
                raise bad(f"{name} = {d} is not a parallel dim of the {nd}-d domain")
        if m == n and m != -1:
            raise bad("m and n are the same dim")
        if not 0 <= fold <= max(m, 0) or any(d in (n, k) for d in range(m - fold, m)):  # type: ignore[operator, arg-type]
            raise bad(f"fold = {fold}: the folded dims must be parallel dims just before m")
        for i, mp in enumerate(nest.maps):
            pos = dim_positions(mp)
            if isinstance(pos, str):
                raise bad(f"operand #{i}: {pos}")
        return cls(nest, sched, ctype)

    def along(self, c: list, d: int):
        return c[d] if d >= 0 else 0

    def matrices(self):
        """(row dim, column dim, rows, columns) of A and B."""
        return ((self.m, self.k, self.em, self.ek), (self.k, self.n, self.ek, self.en))

    def check(self, bufs: Sequence) -> None:
        """The checks on sizes, tasks and each operand's layout."""
        if max(self.rows, self.en, self.ek) > BLAS_INT_MAX:
            raise self.bad(f"M x N x K = {self.rows} x {self.en} x {self.ek} exceeds BLAS's "
                           "32-bit sizes")  # fmt: skip
        if not 1 <= self.tasks_n <= self.en:  # type: ignore[operator]
            raise self.bad(f"tasks_n = {self.tasks_n}: the {self.en} columns cannot be split "
                           "in that many chunks")  # fmt: skip
        nd = len(self.ext)
        ops = (*self.nest.inputs, *self.nest.outputs)
        self.static = [operand_strides(v.type) for v in ops]  # type: ignore[arg-type]
        self.coef = [coefficients(mp, b.strides if s is None else s, nd)
                     for mp, b, s in zip(self.nest.maps, bufs, self.static)]  # fmt: skip
        trans, lds, static, coef, along = self.trans, self.lds, self.static, self.coef, self.along
        for i, (r, c, er, ec) in enumerate(self.matrices()):
            x = "ab"[i]
            if static[i] is None:
                if trans[i] != RUNTIME:
                    raise self.bad(f"input #{i} has run-time strides: trans_{x} must be '{RUNTIME}'")
            elif trans[i] != RUNTIME and not layout_holds(
                    trans[i], lds[i], er, ec, along(coef[i], r), along(coef[i], c)):  # type: ignore[arg-type]
                raise self.bad(f"input #{i} with strides {list(static[i])} is not trans_{x} = "
                               f"'{trans[i]}' with ld{x} = {lds[i]}")  # fmt: skip
        m, n = self.m, self.n
        if static[2] is None or not layout_holds("N", lds[2], self.em, self.en,  # type: ignore[arg-type]
                                                 along(coef[2], m), along(coef[2], n)):  # type: ignore[arg-type]
            raise self.bad(f"the output is not row-major with ldc = {lds[2]}")
        rows = self.em
        for d in reversed(self.folded):
            if self.ext[d] == 1:
                continue
            if (static[0] is None or trans[0] != "N" or coef[0][d] != rows * lds[0]  # type: ignore[operator]
                    or coef[1][d] != 0 or coef[2][d] != rows * lds[2]):  # type: ignore[operator]  # fmt: skip
                raise self.bad(f"dim {d} does not continue the rows of the first input and "
                               "the output")  # fmt: skip
            rows *= self.ext[d]

    def calls_c(self, bufs: Sequence, map_indices, fallback) -> list[str]:
        """The calls: one OpenMP task per batch point and column chunk, each a
        single-threaded BLAS call; operands with run-time strides get their layout
        from aicf_blas_layout, and the loop nest runs when that finds none."""
        nd = len(self.ext)
        skip = {self.m, self.n, self.k, *self.folded}
        dims = [("0" if d in skip else f"i{d}") for d in range(nd)]
        offsets = [b.offset(map_indices(mp, dims)) for b, mp in zip(bufs, self.nest.maps)]
        ptrs = [b.ptr if o == "0" else f"{b.ptr} + {o}" for b, o in zip(bufs, offsets)]
        looped = [d for d in range(nd) if d not in skip]
        calls = math.prod(self.ext[d] for d in looped)
        t_args, ld_args, n_steps, pre, checks = [], [], [], [], []
        for i, (r, c, er, ec) in enumerate(self.matrices()):
            if self.trans[i] == RUNTIME:
                pre.append(f"int t{i}, ld{i};")
                pre.append(f"const int ok{i} = aicf_blas_layout({er}, {ec}, "
                           f"{self.along(self.coef[i], r)}, {self.along(self.coef[i], c)}, "
                           f"&t{i}, &ld{i});")  # fmt: skip
                checks.append(f"ok{i}")
                t_args.append(f"t{i} ? CblasTrans : CblasNoTrans")
                ld_args.append(f"ld{i}")
                n_steps.append(f"(t{i} ? ld{i} : 1)")
            else:
                t_args.append("CblasTrans" if self.trans[i] == "T" else "CblasNoTrans")
                ld_args.append(str(self.lds[i]))
                n_steps.append(str(self.lds[i]) if self.trans[i] == "T" else "1")
        loops = [f"for (int64_t i{d} = 0; i{d} < {self.ext[d]}; ++i{d})" for d in looped]
        tasks, en = self.tasks_n, self.en
        cols, b_ptr, c_ptr, chunk = str(en), ptrs[1], ptrs[2], []
        if tasks > 1:  # column chunk j: [j N / tasks, (j + 1) N / tasks)
            loops.append(f"for (int64_t j = 0; j < {tasks}; ++j)")
            chunk = [f"const int64_t n0 = j * {en} / {tasks}, n1 = (j + 1) * {en} / {tasks};"]
            cols = "(int)(n1 - n0)"
            b_ptr = f"{ptrs[1]} + n0 * {n_steps[1]}"
            c_ptr = f"{ptrs[2]} + n0"
        one, zero = ("1.0f", "0.0f") if self.ctype == "float" else ("1.0", "0.0")
        call = (f"scipy_cblas_{self.routine}(CblasRowMajor, {t_args[0]}, {t_args[1]}, "
                f"{self.rows}, {cols}, {self.ek}, {one}, {ptrs[0]}, {ld_args[0]}, {b_ptr}, "
                f"{ld_args[1]}, {zero}, {c_ptr}, {self.lds[2]});")  # fmt: skip
        lines: list[str] = []
        if calls * tasks > 1:  # type: ignore[operator]
            collapse = f" collapse({len(loops)})" if len(loops) > 1 else ""
            lines.append(f"#pragma omp parallel for{collapse} schedule(static)")
        pad = ""
        for loop in loops:
            lines.append(pad + loop)
            pad += "  "
        if chunk:
            lines += [pad[:-2] + "{", *(pad + s for s in [*chunk, call]), pad[:-2] + "}"]
        else:
            lines.append(pad + call)
        head = (f"/* {KIND}: {calls} x {self.routine} {self.rows}x{en}x{self.ek} in "
                f"{calls * tasks} tasks")  # type: ignore[operator]  # fmt: skip
        if not checks:
            return [head + " */", "{", *("  " + s for s in lines), "}"]
        body = [*pre, f"if ({' && '.join(checks)}) {{", *("  " + s for s in lines),
                "} else {", *("  " + s for s in fallback()), "}"]  # fmt: skip
        return [head + ", strides read at run time; the loop nest when not a BLAS matrix */",
                "{", *("  " + s for s in body), "}"]  # fmt: skip
