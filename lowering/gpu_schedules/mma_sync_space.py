"""What the `gpu.mma_sync` schedule can run, as facts the planner's guard and the
builder share: how each operand is copied into shared memory (which dim is contiguous,
how many elements one copy moves), and which tile parameters are legal. No cost here
(aicf/cost/tensor_core.py prices it).

A matmul nest (matmul_space.match_matmul) runs on sm_80's warp-level tensor cores when
- A and B are both f16 or both bf16 and the body widens them to f32 (f32
  accumulation); the output may be any float type;
- every operand index is a bare domain dim or a constant, with static strides.
Unlike `gpu.wgmma` (bulk tensor copies: 16-byte aligned strides), any strides go: each
operand is copied `vec` elements at a time, the widest of 16, 8 or 4 bytes (cp.async)
that divides its contiguous extent, its other strides and its offset, else one element
at a time through registers. Rows of the shared tiles are XOR-swizzled in 16-byte
chunks so that ldmatrix (8 rows of 16 bytes a phase) and the copies are free of bank
conflicts (see `swizzle`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects.builtin import AnyFloat, BFloat16Type, Float16Type, Float32Type, MemRefType
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap

from .matmul_space import MatmulRoles, TensorCoreProblem

KINDS = {Float16Type: "f16", BFloat16Type: "bf16"}
MMA_K = 16  # m16n8k16
WARP_TILES = ((64, 64), (32, 64), (64, 32), (32, 32))
CHUNK_BYTES = 16


@dataclass(frozen=True)
class CopyOperand:
    """How one input is copied: `major` is the role whose dim is contiguous in memory
    ("k", or "mn": A stored K x M / B stored K x N), `vec` the elements one copy moves
    (1: a plain load and store)."""

    major: str
    vec: int


@dataclass(frozen=True)
class MmaProblem(TensorCoreProblem):
    """kind "f16" or "bf16"; each operand copied as `a` and `b` say."""

    a: CopyOperand
    b: CopyOperand


def _operand(t: MemRefType, m: AffineMap, k_dim: int, own_dim: int, extents, eb: int) -> CopyOperand | str:
    from .view import layout_offset, strides_of

    res = m.results
    if not all(isinstance(r, AffineDimExpr | AffineConstantExpr) for r in res):
        return "an index that is neither a bare loop dim nor a constant"
    dims_of = [r.position if isinstance(r, AffineDimExpr) else None for r in res]
    if k_dim not in dims_of or own_dim not in dims_of:
        return "k or its own m/n dim does not index it"
    strides, off = strides_of(t), layout_offset(t)
    if strides is None or off is None or any(s is None for s in strides):
        return "dynamic strides or offset"
    pos_k, pos_own = dims_of.index(k_dim), dims_of.index(own_dim)
    if strides[pos_k] == 1 or (strides[pos_own] != 1 and extents[k_dim] <= 1):
        major, pos = "k", pos_k
    elif strides[pos_own] == 1:
        major, pos = "mn", pos_own
    else:
        major, pos = "k", pos_k  # neither contiguous: element by element
    along = extents[k_dim] if major == "k" else extents[own_dim]
    vec = 1
    if strides[pos] == 1:
        for v in (CHUNK_BYTES // eb, 8 // eb, 4 // eb):
            if v > 1 and along % v == 0 and off % v == 0 and all(
                    s % v == 0 for p, s in enumerate(strides) if p != pos):  # type: ignore[operator]
                vec = v
                break
    return CopyOperand(major, vec)


def problem_of(extents, roles: MatmulRoles, types, maps, acc_type) -> MmaProblem | str:
    """The problem of a matched matmul nest (types/maps: inputs then the output, in the
    nest's order), or the reason it has none."""
    A, B = types[roles.a], types[roles.b]
    ea, eb_ = A.get_element_type(), B.get_element_type()
    kind = KINDS.get(type(ea))
    if kind is None or type(ea) is not type(eb_):
        return f"inputs are {ea} and {eb_}, not both f16 or both bf16"
    if acc_type != Float32Type():
        return f"it accumulates in {acc_type}, not f32"
    if not isinstance(types[2].get_element_type(), AnyFloat):
        return "the output is not a float"
    a = _operand(A, maps[roles.a], roles.k, roles.m, extents, 2)
    if isinstance(a, str):
        return f"A: {a}"
    b = _operand(B, maps[roles.b], roles.k, roles.n, extents, 2)
    if isinstance(b, str):
        return f"B: {b}"
    return MmaProblem(tuple(roles.batch), tuple(extents[d] for d in roles.batch),
                      extents[roles.m], extents[roles.n], extents[roles.k], kind, a, b)


@dataclass(frozen=True)
class MmaConfig:
    """A block tile bm x bn, k-tiles of bk through `stages` shared buffers, warps of
    wm x wn each (m16n8k16 instructions: wm/16 x wn/8 of them per 16 of k)."""

    bm: int = 128
    bn: int = 128
    bk: int = 32
    wm: int = 64
    wn: int = 64
    stages: int = 4
    group_m: int = 8

    @property
    def warps_m(self) -> int:
        return self.bm // self.wm

    @property
    def warps_n(self) -> int:
        return self.bn // self.wn

    @property
    def warps(self) -> int:
        return self.warps_m * self.warps_n

    @property
    def threads(self) -> int:
        return 32 * self.warps

    @property
    def acc_regs(self) -> int:
        return self.wm * self.wn // 32

    def regs(self) -> int:
        """Registers a thread needs (an estimate): the accumulators, two k-steps of
        fragments (ptxas loads the next step's during this one's mma) and addressing."""
        frags = (self.wm // 16) * 4 + (self.wn // 8) * 2
        return self.acc_regs + 2 * frags + 40

    @property
    def stage_elems(self) -> int:
        return (self.bm + self.bn) * self.bk

    def stage_bytes(self, eb: int = 2) -> int:
        return self.stage_elems * eb

    def smem_bytes(self, eb: int = 2) -> int:
        return self.stages * self.stage_bytes(eb)

    def tiles(self, p: MmaProblem) -> int:
        return math.ceil(p.m / self.bm) * math.ceil(p.n / self.bn)

    def short(self) -> str:
        return f"mma.sync {self.bm}x{self.bn}x{self.bk} warp {self.wm}x{self.wn} s{self.stages}"

    @classmethod
    def from_params(cls, p) -> MmaConfig:
        d = cls()
        return cls(p["bm"], p["bn"], p["bk"], p["wm"], p["wn"], p["stages"], p.get("group_m", d.group_m))

    def params(self) -> dict:
        return {"bm": self.bm, "bn": self.bn, "bk": self.bk, "wm": self.wm, "wn": self.wn,
                "stages": self.stages, "group_m": self.group_m}


def row_ok(width: int, eb: int) -> bool:
    """A shared tile's row of `width` elements can be swizzled: 64 bytes (two rows
    share the 32 banks) or a multiple of 128."""
    return width * eb == 64 or (width * eb) % 128 == 0


def swizzle_key(row: int, width: int, eb: int) -> int:
    """The chunk XOR of a row (see `swizzle`)."""
    return (row >> 1) & 3 if width * eb == 64 else row & 7


def swizzle(row: int, col: int, width: int, eb: int = 2) -> int:
    """Element offset of (row, col) in a shared tile of rows `width` elements long: the
    16-byte chunk index of the column is XORed with the row's key (row % 8; (row/2) %
    4 for 64-byte rows), so 8 consecutive rows at one chunk (what ldmatrix reads in one
    phase) fall in 8 different 16-byte bank groups. Within a chunk, elements keep their
    place. The builder computes the same with arith ops."""
    ce = CHUNK_BYTES // eb
    return row * width + (col ^ (swizzle_key(row, width, eb) * ce))


def tile_widths(c: MmaConfig, p: MmaProblem) -> tuple[int, int]:
    """Row length (elements) of A's and B's shared tiles: bk when k-major, else bm / bn."""
    return (c.bk if p.a.major == "k" else c.bm), (c.bk if p.b.major == "k" else c.bn)


def check_config(c: MmaConfig, p: MmaProblem, smem_limit: int, regs_per_sm: int,
                 max_regs_per_thread: int = 255, max_threads: int = 1024) -> str | None:
    """Why `c` cannot run `p` (None when it can)."""
    eb = p.elem_bytes
    for name, v in (("wm", c.wm), ("wn", c.wn)):
        if v not in (16, 32, 64, 128) or (name == "wn" and v < 16):
            return f"{name} = {v}: a power of two in 16..128 (ldmatrix.x4 loads 16 of m or n)"
    if c.bm % c.wm or c.bn % c.wn:
        return f"the warp tile {c.wm}x{c.wn} does not divide the block tile {c.bm}x{c.bn}"
    if c.bk % MMA_K or c.bk < MMA_K:
        return f"bk = {c.bk}: a multiple of {MMA_K} (m16n8k16)"
    wa, wb = tile_widths(c, p)
    for op, w in (("A", wa), ("B", wb)):
        if not row_ok(w, eb):
            return f"{op}'s shared rows of {w} elements: 64 bytes or a multiple of 128 (the swizzle)"
    if c.threads > max_threads:
        return f"{c.warps} warps: more than {max_threads} threads"
    if c.stages < 2:
        return "stages >= 2"
    if c.smem_bytes(eb) > smem_limit:
        return f"{c.smem_bytes(eb)} bytes of shared memory > {smem_limit}"
    regs = c.regs()
    if regs > max_regs_per_thread:
        return f"about {regs} registers a thread (the {c.acc_regs} accumulators of a {c.wm}x{c.wn} warp tile) > {max_regs_per_thread}"
    if c.threads * regs > regs_per_sm:
        return f"{c.threads} threads x {regs} registers > the {regs_per_sm} of an SM"
    if c.group_m < 1:
        return "group_m >= 1"
    return None


def space(p: MmaProblem) -> list[MmaConfig]:
    """The configurations the planner (and calibration) enumerate."""
    out = []
    for bm in (256, 128, 64):
        for bn in (256, 128, 64):
            for wm, wn in WARP_TILES:
                if bm % wm or bn % wn or (bm // wm) * (bn // wn) > 8:
                    continue
                for bk in (32, 64):
                    for stages in (2, 3, 4, 5):
                        out.append(MmaConfig(bm, bn, bk, wm, wn, stages))
    return out
