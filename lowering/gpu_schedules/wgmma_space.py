"""What the `gpu.wgmma` schedule can run, as facts the planner's guard and the builder
share: how each operand is read by bulk tensor copies (which dim is contiguous, the
tensor map's dims), and which tile parameters are legal for a problem. No cost here
(aicf/cost/tensor_core.py prices it).

A matmul nest (matmul_space.match_matmul) runs on the tensor cores when
- A and B are both f16 or both bf16 and the body widens them to f32 (f32
  accumulation); the output may be any float type;
- every operand index is a bare domain dim, and A and B each have unit stride along
  k or along their own m/n dim (k-major or mn-major: wgmma reads either), with the
  other strides static multiples of 16 bytes (the copy engine's rule);
- at most 3 batch dims (a tensor map has at most 5).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects.builtin import AnyFloat, BFloat16Type, Float16Type, Float32Type, MemRefType
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap

from .matmul_space import MatmulRoles, TensorCoreProblem

SWIZZLE_BYTES = 128
TMA_STRIDE_ALIGN = 16
MAX_TMA_RANK = 5
KINDS = {Float16Type: "f16", BFloat16Type: "bf16"}
STORES = ("fragment", "smem")
# the staged epilogue: per consumer warpgroup, 64 rows of STAGE_COLS f32 columns, rows
# STAGE_PITCH floats apart (8 more than the columns: the fragment's float2 writes of a
# half-warp, 4 rows x 4 column pairs, then fall in 32 distinct banks)
STAGE_COLS = 32
STAGE_PITCH = STAGE_COLS + 8
STAGING_BYTES_PER_CONSUMER = 64 * STAGE_PITCH * 4


@dataclass(frozen=True)
class TmaOperand:
    """How one input is copied: `major` is the contiguous role ("k" or "mn"); `dims`
    the memref dims innermost-first (the tensor map's order) and `roles` the domain dim
    each one indexes."""

    major: str
    dims: tuple[int, ...]
    roles: tuple[int | None, ...]  # None: the memref dim is indexed by a constant
    consts: tuple[int, ...] = ()  # that constant, per dim (0 where `roles` names a dim)


@dataclass(frozen=True)
class WgmmaProblem(TensorCoreProblem):
    """kind "f16", "bf16" or "tf32"; each operand read by bulk copies as `a` and `b` say."""

    a: TmaOperand
    b: TmaOperand
    # tf32 reads B k-major only: an n-major B (stored K x N) is first copied to N x K
    # (a workspace; `b` then describes the copy)
    transpose_b: bool = False


def _strides(t: MemRefType) -> list[int | None]:
    from .view import strides_of

    return strides_of(t) or [None] * t.get_num_dims()


def _operand(t: MemRefType, m: AffineMap, k_dim: int, own_dim: int, eb: int) -> TmaOperand | str:
    res = m.results
    if not all(isinstance(r, AffineDimExpr | AffineConstantExpr) for r in res):
        return "an index that is neither a bare loop dim nor a constant"
    dims_of = [r.position if isinstance(r, AffineDimExpr) else None for r in res]
    consts = [r.value if isinstance(r, AffineConstantExpr) else 0 for r in res]
    if k_dim not in dims_of or own_dim not in dims_of:
        return "k or its own m/n dim does not index it"
    strides = _strides(t)
    if any(s is None for s in strides):
        return "dynamic strides"
    if t.get_num_dims() > MAX_TMA_RANK:
        return f"rank {t.get_num_dims()} > {MAX_TMA_RANK}"
    unit = [p for p, s in enumerate(strides) if s == 1 and t.get_shape()[p] > 1]
    pos_k, pos_own = dims_of.index(k_dim), dims_of.index(own_dim)
    if pos_k in unit or (not unit and t.get_shape()[pos_k] <= 1):
        major, inner, outer = "k", pos_k, pos_own
    elif pos_own in unit:
        major, inner, outer = "mn", pos_own, pos_k
    else:
        return "no unit stride along k or along its own m/n dim"
    rest = [p for p in reversed(range(t.get_num_dims())) if p not in (inner, outer)]
    order = (inner, outer, *rest)
    for p in order[1:]:
        if (strides[p] * eb) % TMA_STRIDE_ALIGN or strides[p] <= 0:  # type: ignore[operator]
            return (f"stride {strides[p]} of dim {p} is not a positive multiple of "
                    f"{TMA_STRIDE_ALIGN} bytes (bulk copies need that)")
    return TmaOperand(major, order, tuple(dims_of[p] for p in order), tuple(consts[p] for p in order))


def problem_of(extents, roles: MatmulRoles, types, maps, acc_type, allow_tf32: bool = False) -> WgmmaProblem | str:
    """The tensor-core problem of a matched matmul nest (types/maps: inputs then the
    output, in the nest's order), or the reason it has none. f32 inputs qualify only
    when TF32 is allowed (aicf/math_precision.py)."""
    A, B = types[roles.a], types[roles.b]
    ea, eb_ = A.get_element_type(), B.get_element_type()
    kind = KINDS.get(type(ea))
    if isinstance(ea, Float32Type) and isinstance(eb_, Float32Type):
        if not allow_tf32:
            return "inputs are f32 and matmul_precision is 'highest' ('high' allows TF32)"
        kind = "tf32"
    if kind is None or type(ea) is not type(eb_):
        return f"inputs are {ea} and {eb_}, not both f16 or both bf16"
    if acc_type != Float32Type():
        return f"it accumulates in {acc_type}, not f32"
    if not isinstance(types[2].get_element_type(), AnyFloat):
        return "the output is not a float"
    if len(roles.batch) > MAX_TMA_RANK - 2:
        return f"{len(roles.batch)} batch dims (at most {MAX_TMA_RANK - 2})"
    eb = 4 if kind == "tf32" else 2
    a = _operand(A, maps[roles.a], roles.k, roles.m, eb)
    if isinstance(a, str):
        return f"A: {a}"
    b = _operand(B, maps[roles.b], roles.k, roles.n, eb)
    if isinstance(b, str):
        return f"B: {b}"
    transpose_b = False
    if kind == "tf32":
        if a.major != "k":
            return "tf32 reads A k-major only (stored M x K)"
        if b.major != "k":
            if B.get_num_dims() != 2 or (extents[roles.k] * eb) % TMA_STRIDE_ALIGN:
                return "tf32 reads B k-major only, and only a 2-d B with 16-byte rows of k is copied to it"
            b, transpose_b = TmaOperand("k", (1, 0), (roles.k, roles.n), (0, 0)), True
    return WgmmaProblem(
        tuple(roles.batch), tuple(extents[d] for d in roles.batch),
        extents[roles.m], extents[roles.n], extents[roles.k], kind, a, b, transpose_b,
    )


@dataclass(frozen=True)
class WgmmaConfig:
    bm: int = 128
    bn: int = 256
    bk: int = 64
    stages: int = 4
    group_m: int = 8
    producer_regs: int = 40
    consumer_regs: int = 232
    # "fragment": each thread stores its accumulator fragment where it lies (column
    # pairs where C's rows allow them); "smem": each consumer stages STAGE_COLS columns
    # of its 64 rows at a time in shared memory (f32) and stores them row by row, a
    # warp writing consecutive elements: coalesced whatever C's alignment
    store: str = "fragment"

    @property
    def consumers(self) -> int:
        return self.bm // 64

    @property
    def threads(self) -> int:
        return 128 * (self.consumers + 1)

    def stage_bytes(self, eb: int = 2) -> int:
        return (self.bm + self.bn) * self.bk * eb

    def staging_offset(self, eb: int = 2) -> int:
        """Byte offset of the epilogue's staging buffer (after the ring and the mbarriers)."""
        return -(-(self.stages * self.stage_bytes(eb) + 2 * self.stages * 8) // 16) * 16

    def smem_bytes(self, eb: int = 2) -> int:
        if self.store == "smem":
            return self.staging_offset(eb) + self.consumers * STAGING_BYTES_PER_CONSUMER
        return self.stages * self.stage_bytes(eb) + 2 * self.stages * 8

    def tiles(self, p: WgmmaProblem) -> int:
        return math.ceil(p.m / self.bm) * math.ceil(p.n / self.bn)

    def short(self) -> str:
        return f"wgmma {self.bm}x{self.bn}x{self.bk} s{self.stages}" + (" smem-store" if self.store == "smem" else "")

    @classmethod
    def from_params(cls, p) -> WgmmaConfig:
        d = cls()
        return cls(
            p["bm"], p["bn"], p["bk"], p["stages"], p.get("group_m", d.group_m),
            p.get("producer_regs", d.producer_regs), p.get("consumer_regs", d.consumer_regs),
            p.get("store", d.store),
        )

    def params(self) -> dict:
        out = {"bm": self.bm, "bn": self.bn, "bk": self.bk, "stages": self.stages, "group_m": self.group_m,
               "producer_regs": self.producer_regs, "consumer_regs": self.consumer_regs}
        if self.store != "fragment":
            out["store"] = self.store
        return out


def check_config(c: WgmmaConfig, p: WgmmaProblem, smem_limit: int, regs_per_sm: int) -> str | None:
    """Why `c` cannot run `p` (None when it can)."""
    if c.store not in STORES:
        return f"store = '{c.store}': one of {', '.join(repr(x) for x in STORES)}"
    if c.store == "smem" and c.bn % STAGE_COLS:
        return f"bn = {c.bn}: the staged epilogue takes {STAGE_COLS} columns at a time"
    if c.bk * p.elem_bytes != SWIZZLE_BYTES:
        return f"bk = {c.bk}: a k-tile row must be one {SWIZZLE_BYTES}-byte swizzle row ({SWIZZLE_BYTES // p.elem_bytes} elements)"
    if c.bm % 64 or not 64 <= c.bm <= 256:
        return f"bm = {c.bm}: 64 rows per consumer warpgroup, 1 to 4 of them"
    if c.bn % 8 or not 8 <= c.bn <= 256:
        return f"bn = {c.bn}: wgmma's n is a multiple of 8 up to 256"
    if p.b.major == "mn" and c.bn % 64:
        return f"bn = {c.bn}: an n-major B is copied in 64-column boxes"
    if c.smem_bytes(p.elem_bytes) > smem_limit:
        return f"{c.smem_bytes(p.elem_bytes)} bytes of shared memory > {smem_limit}"
    if 128 * c.producer_regs + 128 * c.consumers * c.consumer_regs > regs_per_sm:
        return (f"register budgets {c.producer_regs} + {c.consumers} x {c.consumer_regs} per thread "
                f"exceed the {regs_per_sm} registers of an SM")
    if c.consumer_regs < c.bn // 2 + 40:
        return f"consumer_regs = {c.consumer_regs} cannot hold the {c.bn // 2} accumulator registers"
    if c.producer_regs % 8 or c.consumer_regs % 8:
        return "register budgets are multiples of 8"
    return None


def space(p: WgmmaProblem) -> list[WgmmaConfig]:
    """The configurations the planner (and calibration) enumerate."""
    out = []
    for bm in (128, 64):
        for bn in (256, 192, 128, 64):
            for stages in (3, 4, 5, 6):
                for store in STORES:
                    out.append(WgmmaConfig(bm, bn, SWIZZLE_BYTES // p.elem_bytes, stages, store=store))
    return out
