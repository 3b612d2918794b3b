"""The tiled-matmul schedule's parameter space: recognising a matmul nest, the
problem it poses, and what a point of the space (a `Candidate`) means for the kernel's
thread mapping. Shared by the planner (aicf/cost/matmul.py prices the points) and the
GPU lowering (lowering/gpu_schedules/matmul.py builds the point a schedule names);
nothing here estimates a cost.

A candidate is:
- block tile BM x BN x BK (a block computes a BM x BN tile of C, stepping over k in
  BK slices staged through shared memory), per-thread register tile TM x TN, hence
  (BM/TM)*(BN/TN) threads;
- `stages` shared-memory buffers per operand (2: the next slice is loaded from
  global memory into registers while the current one is computed);
- the vector width of the global loads of A and B (the widest the operand's layout
  allows along k or along m/n) and whether the shared tiles are swizzled.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, MemRefType
from xdsl.ir import Attribute, Block
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap

# --------------------------------------------------------------------------------------
# Recognising a matmul
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MatmulRoles:
    """Which domain dim plays which part, and which input is A (owns m)."""

    m: int
    n: int
    k: int
    batch: tuple[int, ...]
    a: int  # input index of A
    b: int  # input index of B


def _bare_dims(m: AffineMap) -> list[int] | None:
    """Positions of the dims the map's results name; None if a result is neither a
    bare dim nor a constant."""
    out = []
    for r in m.results:
        if isinstance(r, AffineDimExpr):
            out.append(r.position)
        elif not isinstance(r, AffineConstantExpr):
            return None
    return out


def _body_is_product(block: Block) -> bool:
    """args -> (extf)* -> mulf(a, b) -> yield, nothing else."""
    ops = list(block.ops)
    if len(ops) < 2 or len(block.args) != 2:
        return False
    *work, yld = ops
    if len(yld.operands) != 1:
        return False
    mul = work[-1]
    if not isinstance(mul, arith.MulfOp) or yld.operands[0] is not mul.result:
        return False
    for op in work[:-1]:
        if not isinstance(op, arith.ExtFOp) or op.input not in block.args:
            return False

    def root(v):
        o = getattr(v, "op", None)
        return o.input if isinstance(o, arith.ExtFOp) else v

    return {root(mul.lhs), root(mul.rhs)} == set(block.args)


def match_matmul(
    extents: Sequence[int],
    iterators: Sequence[str],
    input_maps: Sequence[AffineMap],
    output_maps: Sequence[AffineMap],
    combiners: Sequence[str],
    body: Block | None,
) -> MatmulRoles | None:
    """The roles of a matmul-shaped nest, or None when it is not one."""
    if len(input_maps) != 2 or len(output_maps) != 1 or list(combiners) != ["add"]:
        return None
    red = [d for d, it in enumerate(iterators) if it == "reduction"]
    par = [d for d, it in enumerate(iterators) if it == "parallel"]
    if len(red) != 1:
        return None
    k = red[0]
    if body is not None and not _body_is_product(body):
        return None
    out = _bare_dims(output_maps[0])
    if out is None or sorted(out) != par or len(out) != len(output_maps[0].results):
        return None
    ins = [_bare_dims(m) for m in input_maps]
    if any(i is None or len(set(i)) != len(i) for i in ins):
        return None
    used = [set(i) for i in ins]  # type: ignore[arg-type]
    if not all(k in u for u in used):
        return None
    if len(out) < 2:
        return None
    # n: C's innermost dim (its rows are contiguous), m: the one before; each must be
    # read by exactly one input, a different one; every other parallel dim is batch
    m_dim, n_dim = out[-2], out[-1]
    owner = {}
    for d in (m_dim, n_dim):
        users = [j for j in (0, 1) if d in used[j]]
        if len(users) != 1:
            return None
        owner[d] = users[0]
    if owner[m_dim] == owner[n_dim]:
        return None
    a, b = owner[m_dim], owner[n_dim]
    batch = tuple(d for d in out if d not in (m_dim, n_dim))
    return MatmulRoles(m_dim, n_dim, k, batch, a, b)


@dataclass(frozen=True)
class TensorCoreProblem:
    """What the tensor-core schedules' problems share (gpu.wgmma's WgmmaProblem,
    gpu.mma_sync's MmaProblem add how each operand is copied): a batched M x N x K
    matmul of `kind` inputs accumulated in f32."""

    batch_dims: tuple[int, ...]  # domain dims, in domain order
    batch_extents: tuple[int, ...]
    m: int
    n: int
    k: int
    kind: str  # "f16" | "bf16" | "tf32" (f32 inputs, multiplied in TF32; gpu.wgmma only)

    @property
    def batch(self) -> int:
        return math.prod(self.batch_extents)

    @property
    def elem_bytes(self) -> int:
        return 4 if self.kind == "tf32" else 2

    @property
    def flops(self) -> int:
        return 2 * self.batch * self.m * self.n * self.k


# --------------------------------------------------------------------------------------
# The problem as the cost model sees it
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MatmulProblem:
    batch: int
    m: int
    n: int
    k: int
    a_bytes: int  # element sizes
    b_bytes: int
    c_bytes: int
    # widest legal vector (elements) of a global access along each role, 1 if none
    a_vec: dict[str, int] = field(default_factory=lambda: {"k": 1, "m": 1})
    b_vec: dict[str, int] = field(default_factory=lambda: {"k": 1, "n": 1})
    c_vec: int = 1

    @property
    def flops(self) -> int:
        return 2 * self.batch * self.m * self.n * self.k

    def describe(self) -> str:
        b = f"{self.batch}x" if self.batch > 1 else ""
        return f"{b}{self.m}x{self.n}x{self.k} (M x N x K)"


def _elem_bytes(t: Attribute) -> int:
    if isinstance(t, AnyFloat):
        return t.bitwidth // 8
    w = getattr(t, "width", None)
    return max(1, w.data // 8) if w is not None else 4


def problem_of(
    extents: Sequence[int],
    roles: MatmulRoles,
    types: Sequence[MemRefType],
    maps: Sequence[AffineMap],
    max_vector_bytes: int = 16,
) -> MatmulProblem:
    """The problem of a matched nest: `types`/`maps` are A-or-B inputs then the output
    in the nest's operand order."""
    from aicf.lowering.gpu_schedules.view import VECTOR, Operand, access_class

    ops = [Operand(None, t, m) for t, m in zip(types, maps)]  # type: ignore[arg-type]
    A, B, C = ops[roles.a], ops[roles.b], ops[2]

    def widest(o: Operand, dim: int) -> int:
        eb = _elem_bytes(o.type.get_element_type())
        v = max(1, max_vector_bytes // eb)
        while v > 1:
            if extents[dim] % v == 0 and access_class(o, dim, v) == VECTOR:
                return v
            v //= 2
        return 1

    batch = 1
    for d in roles.batch:
        batch *= extents[d]
    return MatmulProblem(
        batch=batch,
        m=extents[roles.m],
        n=extents[roles.n],
        k=extents[roles.k],
        a_bytes=_elem_bytes(A.type.get_element_type()),
        b_bytes=_elem_bytes(B.type.get_element_type()),
        c_bytes=_elem_bytes(C.type.get_element_type()),
        a_vec={"k": widest(A, roles.k), "m": widest(A, roles.m)},
        b_vec={"k": widest(B, roles.k), "n": widest(B, roles.n)},
        c_vec=min(4, widest(C, roles.n)),
    )


def nest_problem(nest, max_vector_bytes: int = 16) -> tuple[MatmulRoles, MatmulProblem] | None:
    """Roles and problem of an `aicf_loop.nest`, or None if it is not a matmul (a
    guarded nest is not: its tiles would run past the guard)."""
    if getattr(nest, "guard", None) is not None:
        return None
    roles = match_matmul(
        nest.extents,
        [i.value for i in nest.iterators],
        nest.input_maps,
        nest.output_maps,
        [c.value for c in nest.combiner_kinds],
        nest.body.block,
    )
    if roles is None:
        return None
    types = [v.type for v in (*nest.inputs, *nest.outputs)]
    if not all(isinstance(t, MemRefType) for t in types):
        return None
    return roles, problem_of(nest.extents, roles, types, nest.maps, max_vector_bytes)


# --------------------------------------------------------------------------------------
# Candidates and the schedule's thread mapping (shared with the GPU schedule)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    bm: int
    bn: int
    bk: int
    tm: int
    tn: int
    stages: int = 2
    vec_a: int = 1
    vec_b: int = 1
    dim_a: str = "k"  # the dim A's global vectors run along: "k" or "m"
    dim_b: str = "n"  # "k" or "n"
    vec_c: int = 1
    swizzle: bool = True

    @property
    def threads(self) -> int:
        return (self.bm // self.tm) * (self.bn // self.tn)

    @property
    def warps(self) -> int:
        return self.threads // 32

    @property
    def threads_n(self) -> int:
        """Threads along n (consecutive thread ids)."""
        return self.bn // self.tn

    def loads_per_thread(self, which: str) -> int:
        r, v = (self.bm, self.vec_a) if which == "a" else (self.bn, self.vec_b)
        return (r * self.bk) // (self.threads * v)

    def smem_tile_bytes(self) -> int:
        """Shared tiles hold f32 (f16/bf16 are widened when staged)."""
        return self.stages * self.bk * (self.bm + self.bn) * 4

    def params(self) -> dict[str, int | str | bool]:
        return {
            "bm": self.bm, "bn": self.bn, "bk": self.bk, "tm": self.tm, "tn": self.tn,
            "threads": self.threads, "stages": self.stages,
            "vec_a": self.vec_a, "dim_a": self.dim_a, "vec_b": self.vec_b, "dim_b": self.dim_b,
            "vec_c": self.vec_c, "swizzle": self.swizzle,
        }

    def short(self) -> str:
        sw = "swz" if self.swizzle else "row"
        return (
            f"{self.bm}x{self.bn}x{self.bk} t{self.tm}x{self.tn} w{self.warps} s{self.stages} "
            f"vA{self.vec_a}{self.dim_a} vB{self.vec_b}{self.dim_b} {sw}"
        )


def load_coords(c: Candidate, which: str, tid: int, it: int) -> tuple[int, int]:
    """(k, r) of the first element that thread `tid` loads in its `it`-th global
    access of the A (r = m) or B (r = n) tile. Consecutive threads take consecutive
    vectors along the vector dim, so a warp's loads are coalesced."""
    r_ext, v, along = (c.bm, c.vec_a, c.dim_a) if which == "a" else (c.bn, c.vec_b, c.dim_b)
    lin = it * c.threads + tid
    if along == "k":
        per_row = c.bk // v
        return (lin % per_row) * v, lin // per_row
    per_row = r_ext // v
    return lin // per_row, (lin % per_row) * v


def frag_rows(c: Candidate, which: str, tid: int) -> list[int]:
    """First row (m for A, n for B) of each 4-wide fragment a thread reads from shared
    memory: TM/4 groups spaced BM/(TM/4) apart (so a warp's reads of one group are
    contiguous and conflict-free)."""
    if which == "a":
        t, ext, n = tid // c.threads_n, c.bm, c.tm
    else:
        t, ext, n = tid % c.threads_n, c.bn, c.tn
    groups = n // 4
    span = ext // groups
    return [g * span + t * 4 for g in range(groups)]


def smem_accesses(c: Candidate, which: str, warp: int = 0):
    """The warp accesses of one shared tile [stages, BK, R] in one k-tile, as
    (name, index_of_lane, vec, count per warp per k-tile) tuples."""
    v, along = (c.vec_a, c.dim_a) if which == "a" else (c.vec_b, c.dim_b)
    acc = []
    for it in range(c.loads_per_thread(which)):
        kr = [load_coords(c, which, warp * 32 + l, it) for l in range(32)]
        if along == "k":  # transposed: v scalar stores down k
            for j in range(v):
                tab = [(0, k + j, r) for k, r in kr]
                acc.append((f"store {which} (transposed) #{it}.{j}", tab.__getitem__, 1, 1))
        else:
            sv = min(v, 4)
            for j in range(0, v, sv):
                tab = [(0, k, r + j) for k, r in kr]
                acc.append((f"store {which} #{it}.{j}", tab.__getitem__, sv, 1))
    n_groups = (c.tm if which == "a" else c.tn) // 4
    for g in range(n_groups):
        tab = [(0, 0, frag_rows(c, which, warp * 32 + l)[g]) for l in range(32)]
        acc.append((f"read {which} fragment {g}", tab.__getitem__, 4, c.bk))
    return acc



# --------------------------------------------------------------------------------------
# The enumerable space
# --------------------------------------------------------------------------------------

BM_CHOICES = (32, 64, 128, 256)
BK_CHOICES = (8, 16, 32)
T_CHOICES = (4, 8)
STAGES = (2,)  # register-prefetch double buffering: what the schedule generates

def _vec_choice(p: MatmulProblem, which: str, rows: int, bk: int, threads: int) -> tuple[int, str]:
    """Widest vector that divides the tile among the threads, preferring the dim that
    is contiguous in shared memory (r) on a tie."""
    vecs = p.a_vec if which == "a" else p.b_vec
    r_name = "m" if which == "a" else "n"
    best = (1, "k")
    if threads < 1:  # tm > bm written by hand: check_candidate says why
        return best
    for dim_name, ext in ((r_name, rows), ("k", bk)):
        v = vecs[dim_name]
        while v > 1 and (ext % v or (rows * bk) % (threads * v)):
            v //= 2
        if v > best[0] or (v == best[0] and dim_name == r_name and v > 1):
            best = (v, dim_name)
    if best[0] == 1:
        # scalar loads: walk the operand's contiguous dim if it has one
        cont = r_name if vecs[r_name] > 1 else ("k" if vecs["k"] > 1 else r_name)
        best = (1, cont)
    return best


def candidates(p: MatmulProblem) -> list[Candidate]:
    out = []
    for bm in BM_CHOICES:
        for bn in BM_CHOICES:
            for bk in BK_CHOICES:
                for tm in T_CHOICES:
                    for tn in T_CHOICES:
                        threads = (bm // tm) * (bn // tn)
                        if threads < 32 or threads > 1024 or threads % 32:
                            continue
                        for st in STAGES:
                            va, da = _vec_choice(p, "a", bm, bk, threads)
                            vb, db = _vec_choice(p, "b", bn, bk, threads)
                            for sw in (True, False):
                                out.append(Candidate(bm, bn, bk, tm, tn, st, va, vb, da, db, p.c_vec, sw))
    return out



def candidate_from_params(params: dict, p: MatmulProblem) -> Candidate:
    """The candidate a schedule attribute names (missing keys: defaults of the problem)."""
    c = Candidate(
        bm=int(params["bm"]), bn=int(params["bn"]), bk=int(params["bk"]),
        tm=int(params["tm"]), tn=int(params["tn"]),
        stages=int(params.get("stages", 2)),
    )
    va, da = _vec_choice(p, "a", c.bm, c.bk, c.threads)
    vb, db = _vec_choice(p, "b", c.bn, c.bk, c.threads)
    return replace(
        c,
        vec_a=int(params.get("vec_a", va)), dim_a=str(params.get("dim_a", da)),
        vec_b=int(params.get("vec_b", vb)), dim_b=str(params.get("dim_b", db)),
        vec_c=int(params.get("vec_c", p.c_vec)), swizzle=bool(params.get("swizzle", True)),
    )


def check_candidate(c: Candidate, p: MatmulProblem) -> str:
    """Why the kernel cannot be built with this point ('' if it can): the tiles must
    divide among the threads in whole vectors and the vectors must be legal for the
    operands."""
    if c.tm % 4 or c.tn % 4:  # a hand-written tm = 6 computed 4 of its rows, tm = 1 divided by 0
        return f"tm = {c.tm}, tn = {c.tn}: the FMA loop reads the shared tiles in groups of 4, so both are multiples of 4"
    if c.bm % c.tm or c.bn % c.tn or c.threads < 1:
        return "the register tile does not divide the block tile"
    la, lb = c.loads_per_thread("a"), c.loads_per_thread("b")
    if la < 1 or lb < 1 or (c.bm * c.bk) % (c.threads * c.vec_a) or (c.bn * c.bk) % (c.threads * c.vec_b):
        return "the A/B tiles do not divide evenly among the threads"
    for which, v, d, vecs in (("A", c.vec_a, c.dim_a, p.a_vec), ("B", c.vec_b, c.dim_b, p.b_vec)):
        if v > 1 and (d not in vecs or vecs[d] % v):
            return f"{which} has no {v}-wide vectors along {d}"
    if c.vec_c > 1 and p.c_vec % c.vec_c:
        return f"C has no {c.vec_c}-wide vectors along n"
    return ""

