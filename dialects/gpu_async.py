"""Hopper's asynchronous machinery in `aicf_gpu`: mbarriers, bulk tensor copies (TMA),
warpgroup matrix multiply-accumulate (wgmma) and register reallocation.

These ops are what a tensor-core schedule (lowering/gpu_schedules/wgmma.py) is built
from; each prints as one call of a helper in the CUDA prelude (backend/cuda/emit.py).
A kernel that uses them is compiled for sm_90a.

    %bars = aicf_gpu.alloc_shared dynamic_offset = 196608 : memref<8xi64, #aicf_gpu.address_space<shared>>
    aicf_gpu.mbarrier_init %bars[%c0] count = 1 : memref<8xi64, ...>
    aicf_gpu.mbarrier_arrive %bars[%s] tx = 49152 : memref<8xi64, ...>
    aicf_gpu.tma_load %a[%k, %m] -> %tiles[%off], %bars[%s] {dims = array<i64: 1, 0>,
        box = array<i64: 64, 128>} : memref<4096x4096xf16>, memref<...xf16, ...>, memref<8xi64, ...>
    aicf_gpu.mbarrier_wait %bars[%s], %phase : memref<8xi64, ...>
    aicf_gpu.wgmma %acc, %tiles[%aoff], %tiles[%boff] {n = 256 : i64, a_major = "k", b_major = "mn",
        a_strides = array<i64: 16, 1024>, b_strides = array<i64: 8192, 1024>} : memref<128xf32>, ...

Tensor maps: a `tma_load` reads a kernel parameter (a global memref) through a tensor
map described entirely by the op: `dims` lists the memref's dims from the innermost
(unit stride) outwards, `box` the extents of the copied box along them, with the
128-byte swizzle. The emitter adds one `__grid_constant__` map parameter per distinct
(parameter, dims, box) after the kernel's ordinary parameters, and the runtime encodes
each one from the argument's pointer, shape and strides at launch
(backend/cuda/tensor_maps.py). Out-of-range box elements read as zero, so edges need no
guards on the load side.

wgmma operands: the A and B tiles are in shared memory with the 128-byte swizzle that
the TMA wrote, addressed by element offsets into a shared buffer; `a`/`b` say which
dim of each tile is contiguous (`k`, or `mn`: A stored K x M, B stored K x N), and
`*_strides = [leading, stride]` are the descriptor's byte offsets (PTX ISA, matrix
descriptor: for `k`-major tiles [ignored, between 8-row groups]; for `mn`-major tiles
[between 64-element column blocks, between 8-row groups of k]). The accumulator is a
register array (`memref.alloca`, f32) holding the m64nN fragment of the warpgroup:
thread t holds rows 16*(t/32) + (t%32)/4 (+8) and columns 8j + 2*(t%4) (+1), element
4j + 2*h + e for row offset 8h and column offset e.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseArrayBase,
    Float16Type,
    Float32Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    StringAttr,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import EffectInstance, MemoryEffect, MemoryEffectKind
from xdsl.utils.exceptions import VerifyException


def is_shared(t: Attribute) -> bool:
    # aicf_gpu's dialect object lists these ops, so gpu.py imports this module last
    from aicf.dialects.gpu import is_shared as shared

    return shared(t)

WGMMA_K = {"f16": 16, "bf16": 16, "tf32": 8}
SWIZZLE_BYTES = 128


def _dense(vals) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, [int(v) for v in vals])


def _bars_ok(t: Attribute) -> None:
    if not (isinstance(t, MemRefType) and is_shared(t) and t.get_element_type() == i64 and t.get_num_dims() == 1):
        raise VerifyException(f"mbarriers live in a 1-d shared memref of i64, got {t}")


@irdl_op_definition
class MbarrierInitOp(IRDLOperation):
    """`mbarrier.init`: the barrier completes a phase after `count` arrivals (and the
    transaction bytes announced by arrivals with `tx`)."""

    name = "aicf_gpu.mbarrier_init"
    bars = operand_def(MemRefType)
    index = operand_def(IndexType)
    count = prop_def(IntegerAttr)
    assembly_format = "$bars `[` $index `]` `count` `=` $count attr-dict `:` type($bars)"

    def __init__(self, bars: SSAValue, index: SSAValue, count: int):
        super().__init__(operands=[bars, index], properties={"count": IntegerAttr(count, i64)})

    def verify_(self) -> None:
        _bars_ok(self.bars.type)
        if self.count.value.data < 1:
            raise VerifyException("an mbarrier needs a count >= 1")


@irdl_op_definition
class MbarrierInitFenceOp(IRDLOperation):
    """`fence.mbarrier_init`: makes initialised barriers visible to the copy engine."""

    name = "aicf_gpu.mbarrier_init_fence"
    assembly_format = "attr-dict"


@irdl_op_definition
class MbarrierArriveOp(IRDLOperation):
    """One arrival on a barrier; with `tx = B`, also announces B bytes that bulk copies
    will complete on it (`mbarrier.arrive.expect_tx`)."""

    name = "aicf_gpu.mbarrier_arrive"
    bars = operand_def(MemRefType)
    index = operand_def(IndexType)
    tx = opt_prop_def(IntegerAttr)
    assembly_format = "$bars `[` $index `]` (`tx` `=` $tx^)? attr-dict `:` type($bars)"

    def __init__(self, bars: SSAValue, index: SSAValue, tx: int | None = None):
        props = {} if tx is None else {"tx": IntegerAttr(tx, i64)}
        super().__init__(operands=[bars, index], properties=props)

    def verify_(self) -> None:
        _bars_ok(self.bars.type)
        if self.tx is not None and not 0 < self.tx.value.data < 2**20:
            raise VerifyException("tx bytes must be in (0, 2^20)")


@irdl_op_definition
class MbarrierWaitOp(IRDLOperation):
    """Waits until the barrier's phase with parity `phase` (0 or 1) has completed."""

    name = "aicf_gpu.mbarrier_wait"
    bars = operand_def(MemRefType)
    index = operand_def(IndexType)
    phase = operand_def(IndexType)
    assembly_format = "$bars `[` $index `]` `,` $phase attr-dict `:` type($bars)"

    def __init__(self, bars: SSAValue, index: SSAValue, phase: SSAValue):
        super().__init__(operands=[bars, index, phase])

    def verify_(self) -> None:
        _bars_ok(self.bars.type)


@irdl_op_definition
class TmaLoadOp(IRDLOperation):
    """A bulk tensor copy of one box of a global memref into shared memory, completing
    on an mbarrier (`cp.async.bulk.tensor...mbarrier::complete_tx::bytes`)."""

    name = "aicf_gpu.tma_load"
    source = operand_def(MemRefType)
    coords = var_operand_def(IndexType)
    dest = operand_def(MemRefType)
    offset = operand_def(IndexType)
    bars = operand_def(MemRefType)
    bar = operand_def(IndexType)
    dims = prop_def(DenseArrayBase)
    box = prop_def(DenseArrayBase)
    assembly_format = (
        "$source `[` $coords `]` `->` $dest `[` $offset `]` `,` $bars `[` $bar `]` "
        "attr-dict `:` type($source) `,` type($dest) `,` type($bars)"
    )
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, source, coords, dest, offset, bars, bar, dims, box):
        super().__init__(
            operands=[source, list(coords), dest, offset, bars, bar],
            properties={"dims": _dense(dims), "box": _dense(box)},
        )

    @property
    def dim_list(self) -> list[int]:
        return list(self.dims.get_values())

    @property
    def box_list(self) -> list[int]:
        return list(self.box.get_values())

    def box_bytes(self) -> int:
        n = 1
        for b in self.box_list:
            n *= b
        return n * _elem_bytes(self.dest.type.get_element_type())  # type: ignore[attr-defined]

    def verify_(self) -> None:
        src, dst = self.source.type, self.dest.type
        assert isinstance(src, MemRefType) and isinstance(dst, MemRefType)
        if is_shared(src) or not is_shared(dst):
            raise VerifyException("tma_load copies a global memref into a shared one")
        _bars_ok(self.bars.type)
        if src.get_element_type() != dst.get_element_type():
            raise VerifyException("source and destination element types differ")
        dims, box = self.dim_list, self.box_list
        rank = src.get_num_dims()
        if not 1 <= len(dims) <= 5 or sorted(dims) != sorted(set(dims)) or any(not 0 <= d < rank for d in dims):
            raise VerifyException(f"dims {dims} must name 1..5 distinct dims of the rank-{rank} source")
        if len(box) != len(dims) or len(self.coords) != len(dims):
            raise VerifyException("dims, box and coordinates must have the same length")
        if any(not 1 <= b <= 256 for b in box):
            raise VerifyException(f"box extents must be in 1..256, got {box}")
        eb = _elem_bytes(src.get_element_type())
        if box[0] * eb != SWIZZLE_BYTES:
            raise VerifyException(
                f"the innermost box extent must span the {SWIZZLE_BYTES}-byte swizzle ({SWIZZLE_BYTES // eb} elements)"
            )


def _elem_bytes(t: Attribute) -> int:
    if isinstance(t, Float16Type | BFloat16Type):
        return 2
    if isinstance(t, Float32Type):
        return 4
    if isinstance(t, IntegerType):
        return max(1, t.width.data // 8)
    raise VerifyException(f"unsupported element type {t}")


@irdl_op_definition
class WgmmaFenceOp(IRDLOperation):
    """`wgmma.fence`: orders register accesses of the accumulator before a wgmma."""

    name = "aicf_gpu.wgmma_fence"
    assembly_format = "attr-dict"


@irdl_op_definition
class WgmmaCommitOp(IRDLOperation):
    """`wgmma.commit_group`: closes the group of wgmma ops issued so far."""

    name = "aicf_gpu.wgmma_commit"
    assembly_format = "attr-dict"


class _WaitGroupOp(IRDLOperation):
    """A `wait_group N` of wgmma or cp.async: what they share is the count of
    committed groups that may still be pending."""

    pending = prop_def(IntegerAttr)
    assembly_format = "`pending` `=` $pending attr-dict"

    def __init__(self, pending: int = 0):
        super().__init__(properties={"pending": IntegerAttr(pending, i64)})

    def verify_(self) -> None:
        if not 0 <= self.pending.value.data <= 7:
            raise VerifyException("pending must be in 0..7")


@irdl_op_definition
class WgmmaWaitOp(_WaitGroupOp):
    """`wgmma.wait_group N`: waits until at most N committed groups are pending."""

    name = "aicf_gpu.wgmma_wait"


@irdl_op_definition
class WgmmaOp(IRDLOperation):
    """One `wgmma.mma_async` m64nNkK of a warpgroup: acc += A(64 x K) * B(K x N), A and
    B from swizzled shared tiles at element offsets `a_offset`/`b_offset`."""

    name = "aicf_gpu.wgmma"
    acc = operand_def(MemRefType)
    a = operand_def(MemRefType)
    a_offset = operand_def(IndexType)
    b = operand_def(MemRefType)
    b_offset = operand_def(IndexType)
    n = prop_def(IntegerAttr)
    a_major = prop_def(StringAttr)
    b_major = prop_def(StringAttr)
    a_strides = prop_def(DenseArrayBase)
    b_strides = prop_def(DenseArrayBase)
    assembly_format = (
        "$acc `,` $a `[` $a_offset `]` `,` $b `[` $b_offset `]` attr-dict `:` type($acc) `,` type($a) `,` type($b)"
    )
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, acc, a, a_offset, b, b_offset, *, n: int, a_major: str, b_major: str, a_strides, b_strides):
        super().__init__(
            operands=[acc, a, a_offset, b, b_offset],
            properties={
                "n": IntegerAttr(n, i64),
                "a_major": StringAttr(a_major),
                "b_major": StringAttr(b_major),
                "a_strides": _dense(a_strides),
                "b_strides": _dense(b_strides),
            },
        )

    @property
    def input_kind(self) -> str:
        t = self.a.type.get_element_type()  # type: ignore[attr-defined]
        return "f16" if isinstance(t, Float16Type) else "bf16" if isinstance(t, BFloat16Type) else "tf32"

    def verify_(self) -> None:
        acc, a, b = self.acc.type, self.a.type, self.b.type
        assert isinstance(acc, MemRefType) and isinstance(a, MemRefType) and isinstance(b, MemRefType)
        n = self.n.value.data
        if not (8 <= n <= 256 and n % 8 == 0):
            raise VerifyException(f"n must be a multiple of 8 in 8..256, got {n}")
        if is_shared(acc) or acc.get_element_type() != Float32Type() or acc.get_shape() != (n // 2,):
            raise VerifyException(f"the accumulator is a register array memref<{n // 2}xf32>, got {acc}")
        if not (is_shared(a) and is_shared(b)):
            raise VerifyException("A and B tiles are in shared memory")
        if a.get_element_type() != b.get_element_type() or not isinstance(
            a.get_element_type(), Float16Type | BFloat16Type | Float32Type
        ):
            raise VerifyException("A and B are both f16, both bf16 or both f32 (as tf32)")
        for m in (self.a_major.data, self.b_major.data):
            if m not in ("k", "mn"):
                raise VerifyException(f"operand major must be 'k' or 'mn', got '{m}'")
        if self.input_kind == "tf32" and (self.a_major.data, self.b_major.data) != ("k", "k"):
            raise VerifyException("tf32 wgmma takes k-major A and B only")
        for s in (self.a_strides, self.b_strides):
            v = list(s.get_values())
            if len(v) != 2 or any(x < 0 or x % 16 or x >= 2**18 for x in v):
                raise VerifyException(f"descriptor strides are 2 byte offsets, multiples of 16 below 2^18, got {v}")


@irdl_op_definition
class SetMaxNRegOp(IRDLOperation):
    """`setmaxnreg.{inc,dec}`: a warpgroup's register budget after warp specialisation
    (the producer gives registers up, the consumers take them)."""

    name = "aicf_gpu.setmaxnreg"
    action = prop_def(StringAttr)
    count = prop_def(IntegerAttr)
    assembly_format = "$action $count attr-dict"

    def __init__(self, action: str, count: int):
        super().__init__(properties={"action": StringAttr(action), "count": IntegerAttr(count, i64)})

    def verify_(self) -> None:
        if self.action.data not in ("inc", "dec"):
            raise VerifyException("action is 'inc' or 'dec'")
        c = self.count.value.data
        if not (24 <= c <= 256 and c % 8 == 0):
            raise VerifyException(f"register count must be a multiple of 8 in 24..256, got {c}")


# --------------------------------------------------------------------------------------
# sm_80's asynchronous copies and warp-level tensor cores (the `gpu.mma_sync` schedule,
# lowering/gpu_schedules/mma_sync.py). A kernel using only these runs on sm_80 and on.
#
#     aicf_gpu.cp_async %a[%m, %k] -> %tiles[%off] if %ok bytes = 16 : memref<...xf16>, memref<...xf16, ...>
#     aicf_gpu.cp_async_commit
#     aicf_gpu.cp_async_wait pending = 2
#     aicf_gpu.ldmatrix %tiles[%off] -> %afrag[%c0] {num = 4 : i64, trans = false} : memref<...xf16, ...>, memref<16xi32>
#     aicf_gpu.mma_sync %acc[%c0], %afrag[%c0], %bfrag[%c0] {kind = "f16"} : memref<128xf32>, memref<16xi32>, memref<16xi32>
#
# Fragments live in register arrays (`memref.alloca`): A and B fragments as i32 (two
# 16-bit elements a register, the low half first), the accumulator as f32. For
# m16n8k16 with g = lane / 4, t = lane % 4 (PTX ISA, "Matrix Fragments for mma.m16n8k16"):
#   A (16x16, row): register i holds row g + 8*(i & 1), columns 2t + 8*(i >> 1) (+1)
#   B (16x8, col):  register i holds rows (k) 2t + 8*i (+1), column (n) g
#   C (16x8, f32):  element j holds row g + 8*(j >> 1), column 2t + (j & 1)
# `ldmatrix .x4` loads four 8x8 matrices of 16-bit elements: lanes 8q..8q+7 give the
# shared addresses of matrix q's 8 rows (16 bytes each); register q of lane l receives
# row l/4, columns 2(l%4) (+1) of matrix q (`.trans`: of matrix q transposed).
# --------------------------------------------------------------------------------------

MMA_SHAPES = {"f16": (16, 8, 16), "bf16": (16, 8, 16), "tf32": (16, 8, 8)}
CP_ASYNC_BYTES = (4, 8, 16)


def _reads_writes(reads: tuple[str, ...], writes: tuple[str, ...]) -> type[MemoryEffect]:
    """The effects trait of an op that reads the memrefs named `reads` and writes those
    named `writes` (its operands' names), nothing else."""

    class _Effects(MemoryEffect):
        @classmethod
        def get_effects(cls, op):
            return frozenset(
                [EffectInstance(MemoryEffectKind.READ, getattr(op, n)) for n in reads]
                + [EffectInstance(MemoryEffectKind.WRITE, getattr(op, n)) for n in writes]
            )

    return _Effects


class _Orders(MemoryEffect):
    """A fence for the asynchronous copies: reads and writes memory it does not name,
    so nothing moves across it and it is never dead."""

    @classmethod
    def get_effects(cls, op):
        return frozenset([EffectInstance(MemoryEffectKind.READ), EffectInstance(MemoryEffectKind.WRITE)])


def _const_index(v: SSAValue) -> int | None:
    """The value of an index defined by `arith.constant`, else None."""
    from xdsl.dialects.arith import ConstantOp

    op = v.owner
    if isinstance(op, ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None


def _span(t: MemRefType, offset: SSAValue, count: int, what: str) -> None:
    """`count` elements of the 1-d memref `t` from `offset` lie inside it, where the
    offset is a constant and the size static."""
    off = _const_index(offset)
    if off is None:
        return
    size = t.get_shape()[0]
    if off < 0 or (size >= 0 and off + count > size):
        raise VerifyException(
            f"{what} [{off}, {off + count}) lie outside {t} ({size} elements)"
        )


def _registers(t: Attribute, elt: Attribute, what: str, count: int | None = None,
               offset: SSAValue | None = None) -> None:
    """`t` is a 1-d register array of `elt`; with `count`, of a static size holding
    `count` registers (from `offset` where that is a constant)."""
    if not (isinstance(t, MemRefType) and not is_shared(t) and t.get_num_dims() == 1
            and t.get_element_type() == elt):
        raise VerifyException(f"{what} is a 1-d register array of {elt}, got {t}")
    if count is None:
        return
    size = t.get_shape()[0]
    if size < 0:
        raise VerifyException(f"{what} is a register array of static size, got {t}")
    if size < count:
        raise VerifyException(f"{what} needs {count} registers of {elt}, got {t} ({size})")
    if offset is not None:
        _span(t, offset, count, f"{what}'s registers")


@irdl_op_definition
class CpAsyncOp(IRDLOperation):
    """`cp.async`: `bytes` (4, 8 or 16) from a global memref at `indices` into a shared
    buffer at element offset `dest_offset`, without a register round trip; when `pred`
    is false nothing is read and the destination is zero-filled (src-size 0). Completes
    by groups (`cp_async_commit`, `cp_async_wait`). Both addresses must be aligned to
    `bytes`: the runtime aligns the argument (backend/cuda/program.py), the schedule
    its offsets."""

    name = "aicf_gpu.cp_async"
    source = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    dest = operand_def(MemRefType)
    dest_offset = operand_def(IndexType)
    pred = operand_def(IntegerType(1))
    bytes = prop_def(IntegerAttr)
    assembly_format = (
        "$source `[` $indices `]` `->` $dest `[` $dest_offset `]` `if` $pred `bytes` `=` $bytes "
        "attr-dict `:` type($source) `,` type($dest)"
    )
    traits = traits_def(_reads_writes(("source",), ("dest",))())

    def __init__(self, source: SSAValue, indices, dest: SSAValue, dest_offset: SSAValue, pred: SSAValue,
                 nbytes: int):
        super().__init__(operands=[source, list(indices), dest, dest_offset, pred],
                         properties={"bytes": IntegerAttr(nbytes, i64)})

    @property
    def num_bytes(self) -> int:
        return self.bytes.value.data

    def verify_(self) -> None:
        src, dst = self.source.type, self.dest.type
        assert isinstance(src, MemRefType) and isinstance(dst, MemRefType)
        if is_shared(src) or not is_shared(dst) or dst.get_num_dims() != 1:
            raise VerifyException("cp_async copies from a global memref into a 1-d shared one")
        if src.get_element_type() != dst.get_element_type():
            raise VerifyException("source and destination element types differ")
        if len(self.indices) != src.get_num_dims():
            raise VerifyException(f"{len(self.indices)} indices for a rank-{src.get_num_dims()} source")
        if self.pred.type != IntegerType(1):
            raise VerifyException("the predicate is an i1")
        nb, eb = self.num_bytes, _elem_bytes(src.get_element_type())
        if nb not in CP_ASYNC_BYTES or nb % eb:
            raise VerifyException(f"cp.async moves 4, 8 or 16 bytes (whole elements), got {nb}")
        n = nb // eb
        off = _const_index(self.dest_offset)
        if off is not None and off % n:
            raise VerifyException(
                f"the shared destination of a {nb}-byte cp.async must be {nb}-byte aligned, "
                f"got element offset {off} ({off * eb} bytes)"
            )
        _span(dst, self.dest_offset, n, f"the {nb}-byte copy's destination elements")
        idx = [_const_index(i) for i in self.indices]
        shape = src.get_shape()
        for d, (i, extent) in enumerate(zip(idx, shape)):
            if i is not None and (i < 0 or (extent >= 0 and i >= extent)):
                raise VerifyException(f"source index {i} is out of bounds of dim {d} of {src}")
        if idx and None not in idx and all(e >= 0 for e in shape) and isinstance(src.layout, NoneAttr):
            strides = MemRefType.strides_for_shape(shape)
            lin = sum(i * st for i, st in zip(idx, strides))
            if lin % n:
                raise VerifyException(
                    f"the global source of a {nb}-byte cp.async must be {nb}-byte aligned, "
                    f"got element {lin} of {src} ({lin * eb} bytes)"
                )
            total = 1
            for e in shape:
                total *= e
            if lin + n > total:
                raise VerifyException(
                    f"the {nb}-byte copy from element {lin} runs past the end of {src} ({total} elements)"
                )


@irdl_op_definition
class CpAsyncCommitOp(IRDLOperation):
    """`cp.async.commit_group`: closes the group of this thread's copies issued so far."""

    name = "aicf_gpu.cp_async_commit"
    assembly_format = "attr-dict"
    traits = traits_def(_Orders())


@irdl_op_definition
class CpAsyncWaitOp(_WaitGroupOp):
    """`cp.async.wait_group N`: waits until at most N of this thread's committed groups
    are pending (their copies are then visible to this thread; a barrier makes them
    visible to the block)."""

    name = "aicf_gpu.cp_async_wait"
    traits = traits_def(_Orders())


@irdl_op_definition
class LdmatrixOp(IRDLOperation):
    """`ldmatrix.sync.aligned.m8n8.x{num}[.trans].shared.b16`: a warp loads `num` 8x8
    matrices of 16-bit elements (or 8x4 of 32-bit ones, without `trans`) from shared
    memory; each lane passes the address of one row (`source[source_offset]`, 16-byte
    aligned) and receives `num` registers into `dest[dest_offset ..]`."""

    name = "aicf_gpu.ldmatrix"
    source = operand_def(MemRefType)
    source_offset = operand_def(IndexType)
    dest = operand_def(MemRefType)
    dest_offset = operand_def(IndexType)
    num = prop_def(IntegerAttr)
    trans = prop_def(IntegerAttr)
    assembly_format = (
        "$source `[` $source_offset `]` `->` $dest `[` $dest_offset `]` attr-dict `:` type($source) `,` type($dest)"
    )
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(_reads_writes(("source",), ("dest",))())

    def __init__(self, source: SSAValue, source_offset: SSAValue, dest: SSAValue, dest_offset: SSAValue,
                 num: int = 4, trans: bool = False):
        super().__init__(operands=[source, source_offset, dest, dest_offset],
                         properties={"num": IntegerAttr(num, i64), "trans": IntegerAttr(int(trans), i64)})

    @property
    def is_trans(self) -> bool:
        return bool(self.trans.value.data)

    def verify_(self) -> None:
        src = self.source.type
        if not (isinstance(src, MemRefType) and is_shared(src) and src.get_num_dims() == 1):
            raise VerifyException("ldmatrix reads a 1-d shared memref")
        if self.num.value.data not in (1, 2, 4):
            raise VerifyException(f"ldmatrix loads 1, 2 or 4 matrices, got {self.num.value.data}")
        num = self.num.value.data
        _registers(self.dest.type, IntegerType(32), f"the destination of ldmatrix.x{num}", num, self.dest_offset)
        if self.trans.value.data not in (0, 1):
            raise VerifyException("trans is 0 or 1")
        eb = _elem_bytes(src.get_element_type())
        if eb not in (2, 4) or (self.is_trans and eb != 2):
            raise VerifyException("ldmatrix reads 16-bit elements (32-bit ones without trans)")
        off = _const_index(self.source_offset)
        if off is not None and (off * eb) % 16:
            raise VerifyException(
                f"an ldmatrix row address must be 16-byte aligned, got element offset {off} ({off * eb} bytes)"
            )
        _span(src, self.source_offset, 16 // eb, "the source row (16 bytes) at elements")


@irdl_op_definition
class MmaSyncOp(IRDLOperation):
    """`mma.sync.aligned.m16n8k{16,8}.row.col.f32.{kind}.{kind}.f32` of one warp:
    acc[acc_offset .. +4] += A * B, A's 4 registers at a[a_offset], B's 2 at
    b[b_offset] (fragment layouts above; `kind`: f16, bf16, or tf32 with k = 8)."""

    name = "aicf_gpu.mma_sync"
    acc = operand_def(MemRefType)
    acc_offset = operand_def(IndexType)
    a = operand_def(MemRefType)
    a_offset = operand_def(IndexType)
    b = operand_def(MemRefType)
    b_offset = operand_def(IndexType)
    kind = prop_def(StringAttr)
    assembly_format = (
        "$acc `[` $acc_offset `]` `,` $a `[` $a_offset `]` `,` $b `[` $b_offset `]` attr-dict "
        "`:` type($acc) `,` type($a) `,` type($b)"
    )
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(_reads_writes(("acc", "a", "b"), ("acc",))())

    def __init__(self, acc, acc_offset, a, a_offset, b, b_offset, kind: str):
        super().__init__(operands=[acc, acc_offset, a, a_offset, b, b_offset],
                         properties={"kind": StringAttr(kind)})

    @property
    def shape(self) -> tuple[int, int, int]:
        return MMA_SHAPES[self.kind.data]

    def verify_(self) -> None:
        if self.kind.data not in MMA_SHAPES:
            raise VerifyException(f"kind is one of {', '.join(MMA_SHAPES)}, got '{self.kind.data}'")
        # every kind is m16n8kK with 4 f32 accumulators, 4 A and 2 B registers a thread
        # (the emitter's aicf_mma_* helpers read c[0..4), a[0..4), b[0..2))
        _registers(self.acc.type, Float32Type(), "the accumulator", 4, self.acc_offset)
        _registers(self.a.type, IntegerType(32), "A's fragment", 4, self.a_offset)
        _registers(self.b.type, IntegerType(32), "B's fragment", 2, self.b_offset)


ASYNC_OPS = [
    MbarrierInitOp,
    MbarrierInitFenceOp,
    MbarrierArriveOp,
    MbarrierWaitOp,
    TmaLoadOp,
    WgmmaFenceOp,
    WgmmaCommitOp,
    WgmmaWaitOp,
    WgmmaOp,
    SetMaxNRegOp,
    CpAsyncOp,
    CpAsyncCommitOp,
    CpAsyncWaitOp,
    LdmatrixOp,
    MmaSyncOp,
]

HOPPER_OPS = (TmaLoadOp, WgmmaOp, SetMaxNRegOp, WgmmaFenceOp, WgmmaCommitOp, WgmmaWaitOp)
"""Ops that need sm_90a (the runtime compiles a module using any of them for it)."""

SM80_OPS = (CpAsyncOp, CpAsyncCommitOp, CpAsyncWaitOp, LdmatrixOp, MmaSyncOp)
"""Ops of sm_80 and on (their helpers are a prelude of their own)."""
