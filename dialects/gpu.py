"""The `aicf_gpu` dialect: CUDA kernels, their launch configuration, and the host plan.

A module at this level holds two kinds of functions:

- `aicf_gpu.kernel` ops: device functions over global buffers (memrefs). A kernel
  carries its launch configuration as properties (grid and block extents, dynamic
  shared memory bytes, `__launch_bounds__`, and the bit width of its index
  arithmetic), so the emitter prints it and the runtime launches it without making
  any decision of its own. The body is scf/arith/math/memref/vector plus the ops of
  this dialect (thread ids, shared buffers, barriers, warp shuffles, vector accesses).
- the host function (`func.func`, destination-passing style as at the loop level)
  whose body allocates intermediates and workspace (`memref.alloc`/`memref.dealloc`),
  takes views (`memref.collapse_shape`) and launches kernels in order with
  `aicf_gpu.launch`.

Kernel ABI (what the emitter prints and the runtime passes), per kernel parameter:
- a memref parameter is a pointer to its first element (the runtime applies the
  memref's offset, static or dynamic, to the pointer), followed by one 64-bit integer
  per dynamic (`?`) stride, in elements, in dimension order. Static shapes and strides
  are in the type. Memrefs without a memory space are global memory.
- an integer or index parameter is passed by value (64-bit).

Memory spaces: `#aicf_gpu.address_space<global>` (the default for kernel parameters)
and `#aicf_gpu.address_space<shared>` (buffers from `aicf_gpu.alloc_shared`). A shared
buffer's layout may be `#aicf_gpu.swizzle<vec = V, per_phase = P, max_phase = M>`
(Triton's XOR swizzle over 2-D tiles) or `#aicf_gpu.padded<interval = I, pad = P>`;
`aicf-lower-smem-layouts` lowers both to flat buffers indexed by arith (generated from
the layout's `offset()`) before the emitter, which prints no layout.

Example:

    aicf_gpu.kernel @scale(%x : memref<1024xf32>, %y : memref<1024xf32>)
        grid = [4, 1, 1] block = [256, 1, 1] smem = 0 bounds = [256, 1] index = 32 {
      %b = aicf_gpu.block_id x
      %t = aicf_gpu.thread_id x
      %n = aicf_gpu.block_dim x
      %o = arith.muli %b, %n : index
      %i = arith.addi %o, %t : index
      %v = memref.load %x[%i] : memref<1024xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %y[%i] : memref<1024xf32>
      aicf_gpu.return
    }
    func.func @main(%x : memref<1024xf32>, %y : memref<1024xf32>) attributes {aicf.num_outputs = 1 : i64} {
      aicf_gpu.launch @scale(%x, %y) grid = [4, 1, 1] block = [256, 1, 1] smem = 0
          : memref<1024xf32>, memref<1024xf32>
      func.return
    }
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    DenseArrayBase,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    FunctionType,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefLayoutAttr,
    MemRefType,
    NoneAttr,
    StridedLayoutAttr,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    VectorType,
    i64,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, OpResult, ParametrizedAttribute, Region, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import (
    EffectInstance,
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    MemoryEffect,
    MemoryEffectKind,
    NoMemoryEffect,
    Pure,
    SymbolOpInterface,
    SymbolTable,
    SymbolUserOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from aicf.dialects.tensor import attach_attributes

# --------------------------------------------------------------------------------------
# Attributes
# --------------------------------------------------------------------------------------

GLOBAL = "global"
SHARED = "shared"

FIXED_LAYOUTS_ATTR = "aicf_gpu.fixed_layouts"
"""A unit attribute on a kernel whose schedule chose its shared buffers' layouts
(row-major where none is given): `aicf-swizzle-smem` leaves them alone."""


@irdl_attr_definition
class AddressSpaceAttr(ParametrizedAttribute):
    """Where a memref lives: `#aicf_gpu.address_space<global>` or `<shared>`."""

    name = "aicf_gpu.address_space"
    space: StringAttr

    def __init__(self, space: str):
        super().__init__(StringAttr(space))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            pos = parser.pos
            word = parser.parse_identifier()
            if word not in (GLOBAL, SHARED):
                parser.raise_error(f"unknown address space '{word}'", pos, parser.pos)
        return (StringAttr(word),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.space.data}>")


def shared_space() -> AddressSpaceAttr:
    return AddressSpaceAttr(SHARED)


def is_shared(t: Attribute) -> bool:
    return (
        isinstance(t, MemRefType)
        and isinstance(t.memory_space, AddressSpaceAttr)
        and t.memory_space.space.data == SHARED
    )


def _parse_int_params(parser: AttrParser, names: Sequence[str]) -> list[int]:
    vals = []
    with parser.in_angle_brackets():
        for k, nm in enumerate(names):
            if k:
                parser.parse_punctuation(",")
            parser.parse_keyword(nm)
            parser.parse_punctuation("=")
            vals.append(parser.parse_integer(allow_boolean=False))
    return vals


def _row_major_map(rank: int, shape: Sequence[int]) -> AffineMap:
    expr = AffineConstantExpr(0)
    stride = 1
    for d in reversed(range(rank)):
        expr = expr + AffineDimExpr(d) * stride
        stride *= shape[d] if d < len(shape) else 1
    return AffineMap(rank, 0, (expr,))


def _row_major(index: Sequence, shape: Sequence[int]):
    lin = index[0]
    for i, e in zip(index[1:], shape[1:]):
        lin = lin * e + i
    return lin


def layout_offset(layout: Attribute, index: Sequence, shape: Sequence[int]):
    """Element offset of `index` in a shared buffer of `shape` with `layout` (row-major
    where it has none). The one index function of every shared-memory layout, written
    with + * // % ^ only (indices are non-negative), so it is evaluated on ints
    (verification, tests), on NumPy arrays (the layout search's bank-conflict prices,
    passes/gpu/bank_conflicts.py) and on arith values: `aicf-lower-smem-layouts`
    (passes/gpu/lower_smem_layouts.py) generates each access's index as `arith` ops on
    `index` from it, and the emitter and the per-lane conflict counter read those ops."""
    if not index:
        return 0
    if isinstance(layout, SwizzleLayoutAttr | PaddedLayoutAttr):
        return layout.offset(index, shape)
    if isinstance(layout, NoneAttr):
        return _row_major(index, shape)
    raise ValueError(f"no index function for layout {layout}")


def layout_footprint(layout: Attribute, shape: Sequence[int]) -> int:
    """Elements a shared buffer of `shape` with `layout` occupies: one past its largest
    offset (the flat buffer `aicf-lower-smem-layouts` puts in its place)."""
    n = math.prod(shape)
    if isinstance(layout, PaddedLayoutAttr):
        return layout.footprint(n)
    if isinstance(layout, SwizzleLayoutAttr | NoneAttr):
        return n  # the XOR permutes inside each row
    raise ValueError(f"no footprint for layout {layout}")


@irdl_attr_definition
class SwizzleLayoutAttr(MemRefLayoutAttr, ParametrizedAttribute):
    """XOR swizzle of a 2-D shared tile, Triton's parameters.

    `#aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8>`: element (r, c) of a
    [R, C] tile is stored at `r*C + (((c / vec) ^ ((r / per_phase) % max_phase)) * vec
    + c % vec)`. Groups of `vec` contiguous elements stay together (so 16-byte
    accesses still work); successive rows permute their groups, so a column walk
    spreads over banks. Rank > 2: the leading dims are batch (row-major), the last two
    are swizzled. See `offset()`: the index function `aicf-lower-smem-layouts` lowers
    to arith (what the emitter prints) and the layout search prices.
    """

    name = "aicf_gpu.swizzle"
    vec: IntAttr
    per_phase: IntAttr
    max_phase: IntAttr

    def __init__(self, vec: int, per_phase: int, max_phase: int):
        super().__init__(IntAttr(vec), IntAttr(per_phase), IntAttr(max_phase))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        v, p, m = _parse_int_params(parser, ("vec", "per_phase", "max_phase"))
        return (IntAttr(v), IntAttr(p), IntAttr(m))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(
            f"<vec = {self.vec.data}, per_phase = {self.per_phase.data}, "
            f"max_phase = {self.max_phase.data}>"
        )

    def verify(self) -> None:
        for nm, v in (("vec", self.vec), ("per_phase", self.per_phase), ("max_phase", self.max_phase)):
            if v.data < 1:
                raise VerifyException(f"swizzle {nm} must be >= 1, got {v.data}")
        if self.max_phase.data & (self.max_phase.data - 1):
            raise VerifyException("swizzle max_phase must be a power of two")

    def get_affine_map(self) -> AffineMap:
        # The XOR permutes elements inside each row: the footprint is row-major.
        return AffineMap(2, 0, (AffineDimExpr(0) * 0 + AffineDimExpr(1),))

    def offset(self, index: Sequence, shape: Sequence[int]):
        """Element offset of `index` in a tile of `shape` (row-major + XOR on the last
        two dims)."""
        *batch, r, c = index
        *bshape, rows, cols = shape
        v, p, m = self.vec.data, self.per_phase.data, self.max_phase.data
        phase = (r // p) % m
        cs = (((c // v) ^ phase) * v) + c % v
        if not batch:
            return r * cols + cs
        return (_row_major(batch, bshape) * rows + r) * cols + cs


@irdl_attr_definition
class PaddedLayoutAttr(MemRefLayoutAttr, ParametrizedAttribute):
    """Padding of a shared buffer: `pad` elements after every `interval` elements.

    `#aicf_gpu.padded<interval = 32, pad = 1>`: element at row-major linear index `l`
    is stored at `l + (l / interval) * pad` (Triton's padded shared layout)."""

    name = "aicf_gpu.padded"
    interval: IntAttr
    pad: IntAttr

    def __init__(self, interval: int, pad: int):
        super().__init__(IntAttr(interval), IntAttr(pad))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        i, p = _parse_int_params(parser, ("interval", "pad"))
        return (IntAttr(i), IntAttr(p))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<interval = {self.interval.data}, pad = {self.pad.data}>")

    def verify(self) -> None:
        if self.interval.data < 1 or self.pad.data < 0:
            raise VerifyException("padded layout needs interval >= 1 and pad >= 0")

    def get_affine_map(self) -> AffineMap:
        return AffineMap(1, 0, (AffineDimExpr(0),))

    def offset(self, index: Sequence, shape: Sequence[int]):
        iv, pad = self.interval.data, self.pad.data
        if len(index) >= 2 and iv == shape[-1]:
            # padded rows: row * (cols + pad) + col, affine (folds into immediate
            # offsets in the emitted code); equal to the general form for col < cols
            row = _row_major(index[:-1], shape[:-1])
            return row * (shape[-1] + pad) + index[-1]
        lin = _row_major(index, shape)
        return lin + (lin // iv) * pad

    def footprint(self, num_elements: int) -> int:
        """Elements the padded buffer occupies."""
        if num_elements == 0:
            return 0
        return num_elements + ((num_elements - 1) // self.interval.data) * self.pad.data


# --------------------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------------------


def _dense(vals: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(vals))


def _print_ints(printer: Printer, vals: Sequence[int]) -> None:
    printer.print_string("[" + ", ".join(str(v) for v in vals) + "]")


def _parse_ints(parser: Parser) -> list[int]:
    return parser.parse_comma_separated_list(
        Parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
    )


MAX_SMEM_PER_BLOCK = 227 * 1024
"""The most shared memory a block can opt in to on any CUDA GPU (sm_90: 227 KiB)."""


def _check_launch(grid: Sequence[int], block: Sequence[int], smem: int) -> None:
    if len(grid) != 3 or len(block) != 3:
        raise VerifyException("grid and block must have 3 extents (x, y, z)")
    if any(g < 1 for g in grid) or any(b < 1 for b in block):
        raise VerifyException(f"grid {list(grid)} and block {list(block)} extents must be >= 1")
    if block[0] * block[1] * block[2] > 1024:
        raise VerifyException(f"block {list(block)} has more than 1024 threads")
    if grid[0] > 2**31 - 1 or grid[1] > 65535 or grid[2] > 65535:
        raise VerifyException(f"grid {list(grid)} exceeds the CUDA grid limits")
    if smem < 0:
        raise VerifyException("dynamic shared memory bytes must be >= 0")
    if smem > MAX_SMEM_PER_BLOCK:
        raise VerifyException(
            f"dynamic shared memory of {smem} bytes exceeds the {MAX_SMEM_PER_BLOCK} a "
            "block can have"
        )


MAX_STATIC_SMEM = 48 * 1024
MAX_BLOCKS_PER_SM = 32
"""Bytes of static `__shared__` arrays a block may have (CUDA's limit; more only as
dynamic shared memory, opted into)."""


def _shared_bytes(t: MemRefType) -> int:
    """The bytes a shared buffer takes: its layout's footprint in elements."""
    bits = getattr(t.get_element_type(), "bitwidth", None)
    return layout_footprint(t.layout, t.get_shape()) * ((bits + 7) // 8 if bits is not None else 1)


def _elements(t: MemRefType) -> int:
    n = 1
    for d in t.get_shape():
        n *= max(d, 1)
    return n


VECTOR_ACCESS_BYTES = (4, 8, 16)
"""The sizes of a vector load or store (ld/st.global.v2/v4 of 32-bit words, and one
32-bit word): narrower runs of elements (two bools, one f16) are accessed lane by lane."""


@irdl_op_definition
class KernelOp(IRDLOperation):
    """A CUDA kernel (`__global__` function) with its launch configuration.

        aicf_gpu.kernel @k(%x : memref<64xf32>) grid = [1, 1, 1] block = [64, 1, 1]
            smem = 0 bounds = [64, 1] index = 32 {
          ...
          aicf_gpu.return
        }

    `grid`/`block`: launch extents (x, y, z); `smem`: dynamic shared memory bytes;
    `bounds`: `__launch_bounds__(max_threads, min_blocks_per_sm)`; `index`: bit width
    of index arithmetic (32, or 64 when a buffer has >= 2^31 elements).
    """

    name = "aicf_gpu.kernel"

    body = region_def("single_block")
    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    grid = prop_def(DenseArrayBase)
    block = prop_def(DenseArrayBase)
    dynamic_smem = prop_def(IntegerAttr)
    launch_bounds = prop_def(DenseArrayBase)
    index_bitwidth = prop_def(IntegerAttr)

    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface())

    def __init__(
        self,
        name: str,
        arg_types: Sequence[Attribute],
        grid: Sequence[int],
        block: Sequence[int],
        *,
        smem: int = 0,
        launch_bounds: Sequence[int] | None = None,
        index_bitwidth: int = 32,
        region: Region | None = None,
    ):
        if region is None:
            region = Region(Block(arg_types=list(arg_types)))
        threads = block[0] * block[1] * block[2]
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "function_type": FunctionType.from_lists(list(arg_types), []),
                "grid": _dense(grid),
                "block": _dense(block),
                "dynamic_smem": IntegerAttr(smem, i64),
                "launch_bounds": _dense(launch_bounds or (threads, 1)),
                "index_bitwidth": IntegerAttr(index_bitwidth, i64),
            },
            regions=[region],
        )

    @property
    def grid_dims(self) -> tuple[int, int, int]:
        return tuple(self.grid.get_values())  # type: ignore[return-value]

    @property
    def block_dims(self) -> tuple[int, int, int]:
        return tuple(self.block.get_values())  # type: ignore[return-value]

    @property
    def smem_bytes(self) -> int:
        return self.dynamic_smem.value.data

    @property
    def bounds(self) -> tuple[int, int]:
        return tuple(self.launch_bounds.get_values())  # type: ignore[return-value]

    @property
    def index_bits(self) -> int:
        return self.index_bitwidth.value.data

    @property
    def args(self):
        return self.body.block.args

    @property
    def kernel_name(self) -> str:
        return self.sym_name.data

    def verify_(self) -> None:
        _check_launch(self.grid_dims, self.block_dims, self.smem_bytes)
        if self.function_type.outputs.data:
            raise VerifyException("a kernel returns no values")
        if tuple(self.body.block.arg_types) != self.function_type.inputs.data:
            raise VerifyException("entry block argument types differ from the kernel's")
        for t in self.function_type.inputs.data:
            if isinstance(t, MemRefType):
                if is_shared(t):
                    raise VerifyException("a kernel parameter cannot be a shared memref")
            elif not isinstance(t, IntegerType | IndexType | AnyFloat):
                raise VerifyException(f"unsupported kernel parameter type {t}")
        b = self.bounds
        threads = self.block_dims[0] * self.block_dims[1] * self.block_dims[2]
        # past 1024 threads or 32 resident blocks an SM (sm_80, sm_90) nvcc drops the
        # hint with at most a ptxas warning (2^62 max_threads dropped the min_blocks too)
        if len(b) != 2 or not threads <= b[0] <= 1024 or not 0 <= b[1] <= MAX_BLOCKS_PER_SM:
            raise VerifyException(
                f"launch bounds {list(b)} must be [max_threads in block size..1024, "
                f"min_blocks in 0..{MAX_BLOCKS_PER_SM}]"
            )
        if self.index_bits not in (32, 64):
            raise VerifyException("index bit width must be 32 or 64")
        if self.index_bits == 32:
            for i, t in enumerate(self.function_type.inputs.data):
                if isinstance(t, MemRefType) and (n := _elements(t)) >= 2**31:
                    raise VerifyException(
                        f"index = 32 but parameter #{i} ({t}) has {n} elements: 32-bit "
                        "indices would wrap"
                    )
        static = 0
        for op in self.body.walk():
            _check_constant_access(op)
            if isinstance(op, AllocSharedOp) and op.dynamic_offset is None:
                static += _shared_bytes(op.result.type)
        # static `__shared__` arrays: ptxas refuses more than 48 KiB ("uses too much
        # shared data"), a raw build failure where the verifier can say which kernel
        if static > MAX_STATIC_SMEM:
            raise VerifyException(
                f"static shared buffers of {static} bytes exceed the {MAX_STATIC_SMEM} a "
                "block can have (carve larger ones from dynamic shared memory: "
                "alloc_shared dynamic_offset = N)"
            )
        if static + self.smem_bytes > MAX_SMEM_PER_BLOCK:
            raise VerifyException(
                f"static shared buffers of {static} bytes and dynamic shared memory of "
                f"{self.smem_bytes} exceed the {MAX_SMEM_PER_BLOCK} a block can have"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string("(")
        printer.print_list(
            self.body.block.args,
            lambda a: (printer.print_ssa_value(a), printer.print_string(" : "), printer.print_attribute(a.type)),
        )
        printer.print_string(") grid = ")
        _print_ints(printer, self.grid_dims)
        printer.print_string(" block = ")
        _print_ints(printer, self.block_dims)
        printer.print_string(f" smem = {self.smem_bytes} bounds = ")
        _print_ints(printer, self.bounds)
        printer.print_string(f" index = {self.index_bits}")
        if self.attributes:
            printer.print_string(" attributes ")
            printer.print_attr_dict(self.attributes)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)

    @classmethod
    def parse(cls, parser: Parser) -> KernelOp:
        name = parser.parse_symbol_name().data

        def arg():
            a = parser.parse_argument()
            return a

        args = parser.parse_comma_separated_list(Parser.Delimiter.PAREN, arg)
        parser.parse_keyword("grid")
        parser.parse_punctuation("=")
        grid = _parse_ints(parser)
        parser.parse_keyword("block")
        parser.parse_punctuation("=")
        block = _parse_ints(parser)
        parser.parse_keyword("smem")
        parser.parse_punctuation("=")
        smem = parser.parse_integer(allow_boolean=False)
        bounds = None
        if parser.parse_optional_keyword("bounds"):
            parser.parse_punctuation("=")
            bounds = _parse_ints(parser)
        bits = 32
        if parser.parse_optional_keyword("index"):
            parser.parse_punctuation("=")
            bits = parser.parse_integer(allow_boolean=False)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        region = parser.parse_region(args)
        if len(grid) != 3 or len(block) != 3:
            parser.raise_error("grid and block take 3 extents (x, y, z)")
        op = cls(
            name,
            [a.type for a in args],
            grid,
            block,
            smem=smem,
            launch_bounds=bounds,
            index_bitwidth=bits,
            region=region,
        )
        return attach_attributes(op, dict(attrs.data) if attrs else {})


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """Ends a kernel: `aicf_gpu.return`."""

    name = "aicf_gpu.return"
    traits = traits_def(IsTerminator(), HasParent(KernelOp))
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()


# --------------------------------------------------------------------------------------
# Thread ids
# --------------------------------------------------------------------------------------

_DIMS = ("x", "y", "z")


class _DimIdOp(IRDLOperation):
    dimension = prop_def(StringAttr)
    result = result_def(IndexType)
    traits = traits_def(Pure())

    def __init__(self, dim: str):
        super().__init__(properties={"dimension": StringAttr(dim)}, result_types=[IndexType()])

    @property
    def dim(self) -> str:
        return self.dimension.data

    def verify_(self) -> None:
        if self.dimension.data not in _DIMS:
            raise VerifyException(f"dimension must be x, y or z, got '{self.dimension.data}'")

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.dimension.data}")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        d = parser.parse_identifier()
        if d not in _DIMS:
            parser.raise_error(f"expected x, y or z, got '{d}'", pos, parser.pos)
        attrs = parser.parse_optional_attr_dict()
        return attach_attributes(cls(d), attrs)


@irdl_op_definition
class BlockIdOp(_DimIdOp):
    """`%b = aicf_gpu.block_id x`: blockIdx.x, as an index."""

    name = "aicf_gpu.block_id"


@irdl_op_definition
class ThreadIdOp(_DimIdOp):
    """`%t = aicf_gpu.thread_id x`: threadIdx.x, as an index."""

    name = "aicf_gpu.thread_id"


@irdl_op_definition
class BlockDimOp(_DimIdOp):
    """`%n = aicf_gpu.block_dim x`: blockDim.x, as an index."""

    name = "aicf_gpu.block_dim"


@irdl_op_definition
class GridDimOp(_DimIdOp):
    """`%g = aicf_gpu.grid_dim x`: gridDim.x, as an index."""

    name = "aicf_gpu.grid_dim"


@irdl_op_definition
class LaneIdOp(IRDLOperation):
    """`%l = aicf_gpu.lane_id`: the thread's lane in its warp (0..31)."""

    name = "aicf_gpu.lane_id"
    result = result_def(IndexType)
    traits = traits_def(Pure())
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__(result_types=[IndexType()])


# --------------------------------------------------------------------------------------
# Memory
# --------------------------------------------------------------------------------------


@irdl_op_definition
class AllocSharedOp(IRDLOperation):
    """A shared-memory buffer of the block.

        %s = aicf_gpu.alloc_shared : memref<64x32xf32, #aicf_gpu.swizzle<vec = 4,
               per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>>

    Static shape; memory space `shared`; layout identity, swizzle or padded. With
    `dynamic_offset = N` the buffer is carved from the kernel's dynamic shared memory
    at byte offset N (else it is a static `__shared__` array).
    """

    name = "aicf_gpu.alloc_shared"
    dynamic_offset = opt_prop_def(IntegerAttr)
    result = result_def(MemRefType)

    def __init__(self, type: MemRefType, dynamic_offset: int | None = None):
        props = {}
        if dynamic_offset is not None:
            props["dynamic_offset"] = IntegerAttr(dynamic_offset, i64)
        super().__init__(result_types=[type], properties=props)

    def verify_(self) -> None:
        t = self.result.type
        assert isinstance(t, MemRefType)
        if not is_shared(t):
            raise VerifyException(
                "result must be in #aicf_gpu.address_space<shared>"
            )
        if any(d < 0 for d in t.get_shape()):
            raise VerifyException("a shared buffer has a static shape")
        lay = t.layout
        if isinstance(lay, SwizzleLayoutAttr) and t.get_num_dims() < 2:
            raise VerifyException("a swizzled shared buffer needs rank >= 2")
        if isinstance(lay, SwizzleLayoutAttr):
            # (c / vec) ^ phase, phase < max_phase (a power of two), stays inside the
            # row (a permutation of it) only if the row holds whole blocks of
            # max_phase vec-groups
            cols, blk = t.get_shape()[-1], lay.vec.data * lay.max_phase.data
            if cols % blk != 0:
                raise VerifyException(
                    f"swizzle vec * max_phase ({lay.vec.data} * {lay.max_phase.data} = {blk}) "
                    f"must divide the row length {cols} (else the layout is not a permutation of the row)"
                )
        if not isinstance(lay, NoneAttr | SwizzleLayoutAttr | PaddedLayoutAttr):
            raise VerifyException(f"unsupported shared layout {lay}")
        if self.dynamic_offset is not None:
            self._verify_dynamic_offset(t)

    def _verify_dynamic_offset(self, t: MemRefType) -> None:
        """`dynamic_offset = N`: N >= 0, aligned to the element, and the buffer (its
        layout's footprint) within the enclosing kernel's dynamic shared memory."""
        assert self.dynamic_offset is not None
        off = self.dynamic_offset.value.data
        bits = getattr(t.get_element_type(), "bitwidth", None)
        eb = (bits + 7) // 8 if bits is not None else 1
        if off < 0:
            raise VerifyException(f"dynamic_offset must be >= 0, got {off}")
        if off % eb:
            raise VerifyException(
                f"dynamic_offset {off} is not aligned to the element size ({eb} bytes)"
            )
        kernel = self.parent_op()
        while kernel is not None and not isinstance(kernel, KernelOp):
            kernel = kernel.parent_op()
        if kernel is None:
            return  # not (yet) inside a kernel: checked once it is
        smem = kernel.dynamic_smem.value.data
        size = layout_footprint(t.layout, t.get_shape()) * eb
        if off + size > smem:
            raise VerifyException(
                f"dynamic_offset {off} + {size} bytes of the buffer exceeds the kernel's "
                f"dynamic shared memory (smem = {smem})"
            )

    def print(self, printer: Printer) -> None:
        if self.dynamic_offset is not None:
            printer.print_string(f" dynamic_offset = {self.dynamic_offset.value.data}")
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> AllocSharedOp:
        off = None
        if parser.parse_optional_keyword("dynamic_offset"):
            parser.parse_punctuation("=")
            off = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(":")
        t = parser.parse_type()
        if not isinstance(t, MemRefType):
            parser.raise_error("expected a memref type")
        return cls(t, off)


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """`aicf_gpu.barrier`: __syncthreads(), orders shared-memory accesses of the block."""

    name = "aicf_gpu.barrier"
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()


@irdl_op_definition
class NamedBarrierOp(IRDLOperation):
    """`aicf_gpu.named_barrier id = I, threads = T`: `bar.sync I, T`, a barrier among
    the T threads (whole warps) that name barrier I, so that one warpgroup can order
    its own shared-memory accesses while the block's other warps run on. Barrier 0 is
    __syncthreads'."""

    name = "aicf_gpu.named_barrier"
    id = prop_def(IntegerAttr)
    threads = prop_def(IntegerAttr)
    assembly_format = "`id` `=` $id `,` `threads` `=` $threads attr-dict"

    def __init__(self, id: int, threads: int):
        super().__init__(properties={"id": IntegerAttr(id, i64), "threads": IntegerAttr(threads, i64)})

    def verify_(self) -> None:
        i, t = self.id.value.data, self.threads.value.data
        if not 1 <= i <= 15:
            raise VerifyException(f"named barrier id must be in 1..15 (0 is __syncthreads'), got {i}")
        if t <= 0 or t % 32 or t > 1024:
            raise VerifyException(f"threads must be a positive multiple of 32 up to 1024, got {t}")


def _constant_index(v: SSAValue) -> int | None:
    if isinstance(v, OpResult) and isinstance(v.op, arith.ConstantOp) and isinstance(v.op.value, IntegerAttr):
        return v.op.value.value.data
    return None


def _check_constant_access(op: Operation) -> None:
    """An access of a buffer at constant indices lies inside it: the generated kernels
    index through thread ids, but a hand-written one at `%c = arith.constant 5000` of
    a memref<1024xf32> wrote past the buffer (an illegal address on the GPU). A vector
    access also needs all its elements inside the row."""
    from xdsl.dialects import memref as upstream_memref

    if isinstance(op, upstream_memref.LoadOp | upstream_memref.StoreOp):
        buf, indices, width = op.memref, op.indices, 1
    elif isinstance(op, LoadVectorOp):
        buf, indices, width = op.memref, op.indices, op.result.type.get_shape()[0]
    elif isinstance(op, StoreVectorOp):
        buf, indices, width = op.memref, op.indices, op.value.type.get_shape()[0]
    else:
        return
    t = buf.type
    consts = [_constant_index(i) for i in indices]
    if not isinstance(t, MemRefType) or None in consts or len(consts) != t.get_num_dims():
        return
    shape = t.get_shape()
    for k, (i, n) in enumerate(zip(consts, shape)):
        last = i + (width - 1 if k == len(shape) - 1 else 0)
        if n >= 0 and not (0 <= i and last < n):
            from aicf.errors import VerifyAtOp

            what = f"elements {i}..{last} of dimension {k} are" if last != i else f"index {i} of dimension {k} is"
            raise VerifyAtOp(op, f"{what} outside {t} (extent {n})")
    flat = _static_element_offset(t, consts) if width > 1 else None
    if flat is not None and flat % width:
        from aicf.errors import VerifyAtOp

        raise VerifyAtOp(
            op, f"a vector<{width}> access at element {flat} of {t} is not aligned to its width "
            "(buffers start aligned, so this is a misaligned address on the GPU)"
        )


def _static_element_offset(t: MemRefType, indices: Sequence[int]) -> int | None:
    """The element offset of `indices` from the buffer's aligned start, where the layout
    fixes it (none or static strides); swizzled and padded buffers check their runs in
    _check_laid_out_vector."""
    lay = t.layout
    if isinstance(lay, NoneAttr):
        base = 0
    elif isinstance(lay, StridedLayoutAttr) and isinstance(lay.offset, IntAttr):
        base = lay.offset.data
    else:
        return None
    strides = t.get_strides()
    if strides is None or None in strides:
        return None
    return base + sum(i * s for i, s in zip(indices, strides))


def _check_vector_access(
    vt: Attribute, mt: Attribute, nidx: int, memref: SSAValue | None = None,
    indices: Sequence[SSAValue] | None = None,
) -> None:
    assert isinstance(mt, MemRefType)
    if not isinstance(vt, VectorType) or vt.get_num_dims() != 1:
        raise VerifyException(f"expected a 1-d vector type, got {vt}")
    if vt.get_element_type() != mt.get_element_type():
        raise VerifyException(
            f"vector element type {vt.get_element_type()} differs from the buffer's "
            f"{mt.get_element_type()}"
        )
    if nidx != mt.get_num_dims():
        raise VerifyException(f"expected {mt.get_num_dims()} indices, got {nidx}")
    elt = mt.get_element_type()
    bits = getattr(elt, "bitwidth", None)
    if bits is None:
        raise VerifyException(f"no vector access for element type {elt}")
    nbytes = vt.get_shape()[0] * ((bits + 7) // 8)  # i1 is stored in a byte
    if nbytes not in VECTOR_ACCESS_BYTES:
        raise VerifyException(f"a vector access moves 4, 8 or 16 bytes, not {nbytes}")
    lay = mt.layout
    if isinstance(lay, SwizzleLayoutAttr | PaddedLayoutAttr):
        _check_laid_out_vector(vt.get_shape()[0], mt, indices)
    else:
        strides = mt.get_strides()
        if strides and strides[-1] != 1:
            raise VerifyException("a vector access needs a unit innermost stride")
    if memref is not None and isinstance(memref, OpResult) and isinstance(memref.op, AllocSharedOp):
        dyn = memref.op.dynamic_offset
        if dyn is not None and dyn.value.data % nbytes:
            raise VerifyException(
                f"a {nbytes}-byte vector access of a shared buffer at dynamic_offset "
                f"{dyn.value.data}: the offset must be aligned to {nbytes} bytes"
            )


def _check_laid_out_vector(w: int, mt: MemRefType, indices: Sequence[SSAValue] | None) -> None:
    """A vector of `w` elements of a swizzled or padded buffer must lie in one contiguous
    run of the layout, aligned to its width (it is accessed as one vector at the
    offset of its first element, `aicf-lower-smem-layouts`): padded: `w` divides
    `interval` and `pad` (and the row), swizzle: `w` divides `vec`; a constant
    innermost index must be a multiple of `w`."""
    lay = mt.layout
    shape = mt.get_shape()
    if isinstance(lay, PaddedLayoutAttr):
        iv, pad = lay.interval.data, lay.pad.data
        if iv % w or pad % w or shape[-1] % w:
            raise VerifyException(
                f"a vector<{w}> access of a buffer with {lay} needs the width to divide the "
                f"interval, the pad and the row ({shape[-1]}): the vector must stay in one "
                "contiguous, aligned run of the layout"
            )
    elif isinstance(lay, SwizzleLayoutAttr):
        if lay.vec.data % w:
            raise VerifyException(
                f"a vector<{w}> access of a buffer with {lay} needs the width to divide vec: "
                "the vector must stay in one contiguous group of the swizzle"
            )
    if indices:
        last = indices[-1]
        if isinstance(last, OpResult) and isinstance(last.op, arith.ConstantOp):
            v = last.op.value
            if isinstance(v, IntegerAttr) and v.value.data % w:
                raise VerifyException(
                    f"a vector<{w}> access of a buffer with {lay} at innermost index "
                    f"{v.value.data}: the index must be a multiple of {w}"
                )


@irdl_op_definition
class LoadVectorOp(IRDLOperation):
    """A vector load of contiguous elements (16 bytes at most, aligned to its size).

        %v = aicf_gpu.load_vector %x[%i] : memref<1024xf32> -> vector<4xf32>

    The address of element `%x[%i]` must be aligned to the vector's byte size; the
    lowering guarantees it (and the runtime checks the base pointer's alignment).
    """

    name = "aicf_gpu.load_vector"
    memref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    result = result_def(VectorType)

    assembly_format = "$memref `[` $indices `]` attr-dict `:` type($memref) `->` type($result)"

    def __init__(self, memref: SSAValue, indices: Sequence[SSAValue], type: VectorType):
        super().__init__(operands=[memref, list(indices)], result_types=[type])

    def verify_(self) -> None:
        _check_vector_access(self.result.type, self.memref.type, len(self.indices), self.memref, self.indices)


@irdl_op_definition
class StoreVectorOp(IRDLOperation):
    """A vector store of contiguous elements (16 bytes at most, aligned to its size).

        aicf_gpu.store_vector %v, %y[%i] : vector<4xf32>, memref<1024xf32>
    """

    name = "aicf_gpu.store_vector"
    value = operand_def(VectorType)
    memref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)

    assembly_format = "$value `,` $memref `[` $indices `]` attr-dict `:` type($value) `,` type($memref)"

    def __init__(self, value: SSAValue, memref: SSAValue, indices: Sequence[SSAValue]):
        super().__init__(operands=[value, memref, list(indices)])

    def verify_(self) -> None:
        _check_vector_access(self.value.type, self.memref.type, len(self.indices), self.memref, self.indices)


# --------------------------------------------------------------------------------------
# Warp-level
# --------------------------------------------------------------------------------------

SHUFFLE_MODES = ("xor", "down", "up", "idx")
REDUCE_KINDS = ("add", "max", "min", "mul")


def _check_width(width: int) -> None:
    if width < 1 or width > 32 or width & (width - 1):
        raise VerifyException(f"width must be a power of two in 1..32, got {width}")


@irdl_op_definition
class ShuffleOp(IRDLOperation):
    """A warp shuffle (`__shfl_xor_sync`/`__shfl_down_sync`/... over the full mask).

        %r = aicf_gpu.shuffle xor %v, 16 width = 32 : f32
    """

    name = "aicf_gpu.shuffle"
    mode = prop_def(StringAttr)
    offset = prop_def(IntegerAttr)
    width = prop_def(IntegerAttr)
    value = operand_def()
    result = result_def()
    traits = traits_def(NoMemoryEffect())

    def __init__(self, mode: str, value: SSAValue, offset: int, width: int = 32):
        super().__init__(
            operands=[value],
            result_types=[value.type],
            properties={
                "mode": StringAttr(mode),
                "offset": IntegerAttr(offset, i64),
                "width": IntegerAttr(width, i64),
            },
        )

    def verify_(self) -> None:
        if self.mode.data not in SHUFFLE_MODES:
            raise VerifyException(f"unknown shuffle mode '{self.mode.data}'")
        _check_width(self.width.value.data)
        if self.result.type != self.value.type:
            raise VerifyException("result type must equal the value type")
        if not isinstance(self.value.type, AnyFloat | IntegerType):
            raise VerifyException(f"cannot shuffle {self.value.type}")

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.mode.data} ")
        printer.print_ssa_value(self.value)
        printer.print_string(f", {self.offset.value.data} width = {self.width.value.data} : ")
        printer.print_attribute(self.value.type)

    @classmethod
    def parse(cls, parser: Parser) -> ShuffleOp:
        pos = parser.pos
        mode = parser.parse_identifier()
        if mode not in SHUFFLE_MODES:
            parser.raise_error(f"unknown shuffle mode '{mode}'", pos, parser.pos)
        v = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        off = parser.parse_integer(allow_boolean=False)
        width = 32
        if parser.parse_optional_keyword("width"):
            parser.parse_punctuation("=")
            width = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(":")
        t = parser.parse_type()
        return cls(mode, parser.resolve_operand(v, t), off, width)


@irdl_op_definition
class WarpReduceOp(IRDLOperation):
    """Reduce a value over groups of `width` consecutive lanes (butterfly of xor
    shuffles, so every lane of the group gets the result; fixed order, deterministic).

        %s = aicf_gpu.warp_reduce add %v width = 32 : f32
    """

    name = "aicf_gpu.warp_reduce"
    kind = prop_def(StringAttr)
    width = prop_def(IntegerAttr)
    value = operand_def()
    result = result_def()
    traits = traits_def(NoMemoryEffect())

    def __init__(self, kind: str, value: SSAValue, width: int = 32):
        super().__init__(
            operands=[value],
            result_types=[value.type],
            properties={"kind": StringAttr(kind), "width": IntegerAttr(width, i64)},
        )

    def verify_(self) -> None:
        if self.kind.data not in REDUCE_KINDS:
            raise VerifyException(f"unknown warp reduction '{self.kind.data}'")
        _check_width(self.width.value.data)
        if self.result.type != self.value.type:
            raise VerifyException("result type must equal the value type")
        if not isinstance(self.value.type, AnyFloat | IntegerType):
            raise VerifyException(f"cannot reduce {self.value.type}")

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_ssa_value(self.value)
        printer.print_string(f" width = {self.width.value.data} : ")
        printer.print_attribute(self.value.type)

    @classmethod
    def parse(cls, parser: Parser) -> WarpReduceOp:
        pos = parser.pos
        kind = parser.parse_identifier()
        if kind not in REDUCE_KINDS:
            parser.raise_error(f"unknown warp reduction '{kind}'", pos, parser.pos)
        v = parser.parse_unresolved_operand()
        width = 32
        if parser.parse_optional_keyword("width"):
            parser.parse_punctuation("=")
            width = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(":")
        t = parser.parse_type()
        return cls(kind, parser.resolve_operand(v, t), width)


# --------------------------------------------------------------------------------------
# Host side
# --------------------------------------------------------------------------------------


def compatible_arg(host: Attribute, param: Attribute) -> bool:
    """A host value can be passed for a kernel parameter: same scalar type, or memrefs
    of the same shape and element type whose layouts the ABI can carry (a dynamic
    stride or offset in the parameter takes any static one from the host)."""
    if host == param:
        return True
    if not (isinstance(host, MemRefType) and isinstance(param, MemRefType)):
        return False
    if host.get_element_type() != param.get_element_type() or is_shared(host) or is_shared(param):
        return False
    if host.get_shape() != param.get_shape():
        # a contiguous buffer may be passed as any contiguous reshape of itself
        return is_dense_row_major(host) and is_dense_row_major(param) and _count(host) == _count(param)
    hs, ps = host.get_strides(), param.get_strides()
    if hs is None or ps is None:
        return False
    for h, p in zip(hs, ps):
        if p is not None and h != p:
            return False
    return True


def _count(t: MemRefType) -> int:
    n = 1
    for e in t.get_shape():
        n *= e
    return n


def is_dense_row_major(t: MemRefType) -> bool:
    """Row-major and dense (static extents; a dynamic offset is fine: the pointer
    carries it)."""
    st = t.get_strides()
    if st is None or any(d < 0 for d in t.get_shape()):
        return False
    s = 1
    for e, x in zip(reversed(t.get_shape()), reversed(st)):
        if e != 1 and x != s:
            return False
        s *= e
    return True


class _LaunchSymbolUser(SymbolUserOpInterface):
    def verify(self, op) -> None:
        assert isinstance(op, LaunchOp)
        k = SymbolTable.lookup_symbol(op, op.kernel)
        if k is None:
            raise VerifyException(f"kernel @{op.kernel.string_value()} not found")
        if not isinstance(k, KernelOp):
            raise VerifyException(f"@{op.kernel.string_value()} is not an aicf_gpu.kernel")
        params = k.function_type.inputs.data
        if len(params) != len(op.args):
            raise VerifyException(
                f"kernel @{k.kernel_name} takes {len(params)} arguments, got {len(op.args)}"
            )
        for i, (a, p) in enumerate(zip(op.args, params)):
            if not compatible_arg(a.type, p):
                raise VerifyException(
                    f"argument #{i} of type {a.type} does not match kernel parameter {p}"
                )
        if (op.grid_dims, op.block_dims, op.smem_bytes) != (k.grid_dims, k.block_dims, k.smem_bytes):
            raise VerifyException(
                f"launch configuration grid={list(op.grid_dims)} block={list(op.block_dims)} "
                f"smem={op.smem_bytes} differs from kernel @{k.kernel_name}'s "
                f"grid={list(k.grid_dims)} block={list(k.block_dims)} smem={k.smem_bytes}"
            )


@irdl_op_definition
class LaunchOp(IRDLOperation):
    """Host side: launch a kernel on the program's stream, after the launches before it.

        aicf_gpu.launch @k(%x, %y) grid = [4, 1, 1] block = [256, 1, 1] smem = 0
            : memref<1024xf32>, memref<1024xf32>

    The configuration repeats the kernel's (the verifier checks they agree), so the
    host plan reads on its own. `workspace = N` asks the runtime to lend N bytes of
    scratch for this launch only, passed after the arguments as a pointer.
    """

    name = "aicf_gpu.launch"
    kernel = prop_def(SymbolRefAttr)
    args = var_operand_def()
    grid = prop_def(DenseArrayBase)
    block = prop_def(DenseArrayBase)
    dynamic_smem = prop_def(IntegerAttr)
    workspace = prop_def(IntegerAttr)
    traits = traits_def(_LaunchSymbolUser())

    def __init__(
        self,
        kernel: str,
        args: Sequence[SSAValue],
        grid: Sequence[int],
        block: Sequence[int],
        smem: int = 0,
        workspace: int = 0,
    ):
        super().__init__(
            operands=[list(args)],
            properties={
                "kernel": SymbolRefAttr(kernel),
                "grid": _dense(grid),
                "block": _dense(block),
                "dynamic_smem": IntegerAttr(smem, i64),
                "workspace": IntegerAttr(workspace, i64),
            },
        )

    @staticmethod
    def of(kernel: KernelOp, args: Sequence[SSAValue], workspace: int = 0) -> LaunchOp:
        return LaunchOp(
            kernel.kernel_name, args, kernel.grid_dims, kernel.block_dims, kernel.smem_bytes, workspace
        )

    @property
    def kernel_name(self) -> str:
        return self.kernel.string_value()

    @property
    def grid_dims(self) -> tuple[int, int, int]:
        return tuple(self.grid.get_values())  # type: ignore[return-value]

    @property
    def block_dims(self) -> tuple[int, int, int]:
        return tuple(self.block.get_values())  # type: ignore[return-value]

    @property
    def smem_bytes(self) -> int:
        return self.dynamic_smem.value.data

    @property
    def workspace_bytes(self) -> int:
        return self.workspace.value.data

    def verify_(self) -> None:
        _check_launch(self.grid_dims, self.block_dims, self.smem_bytes)
        if self.workspace_bytes < 0:
            raise VerifyException("workspace bytes must be >= 0")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.kernel)
        printer.print_string("(")
        printer.print_list(self.args, printer.print_ssa_value)
        printer.print_string(") grid = ")
        _print_ints(printer, self.grid_dims)
        printer.print_string(" block = ")
        _print_ints(printer, self.block_dims)
        printer.print_string(f" smem = {self.smem_bytes}")
        if self.workspace_bytes:
            printer.print_string(f" workspace = {self.workspace_bytes}")
        printer.print_op_attributes(self.attributes)
        if self.args:
            printer.print_string(" : ")
            printer.print_list([a.type for a in self.args], printer.print_attribute)

    @classmethod
    def parse(cls, parser: Parser) -> LaunchOp:
        sym = parser.parse_attribute()
        if not isinstance(sym, SymbolRefAttr):
            parser.raise_error("expected a kernel symbol (@name)")
        names = parser.parse_comma_separated_list(
            Parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        parser.parse_keyword("grid")
        parser.parse_punctuation("=")
        grid = _parse_ints(parser)
        parser.parse_keyword("block")
        parser.parse_punctuation("=")
        block = _parse_ints(parser)
        smem = 0
        if parser.parse_optional_keyword("smem"):
            parser.parse_punctuation("=")
            smem = parser.parse_integer(allow_boolean=False)
        ws = 0
        if parser.parse_optional_keyword("workspace"):
            parser.parse_punctuation("=")
            ws = parser.parse_integer(allow_boolean=False)
        attrs = parser.parse_optional_attr_dict()
        types = []
        if names:
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
        if len(types) != len(names):
            parser.raise_error(f"{len(names)} arguments but {len(types)} types")
        args = [parser.resolve_operand(n, t) for n, t in zip(names, types)]
        return attach_attributes(cls(sym.string_value(), args, grid, block, smem, ws), attrs)


class _LibraryCallEffects(MemoryEffect):
    """Reads its inputs, writes its outputs (nothing else: no hidden state that a
    pass reordering host ops must respect)."""

    @classmethod
    def get_effects(cls, op):
        assert isinstance(op, LibraryCallOp)
        return frozenset(
            [EffectInstance(MemoryEffectKind.READ, v) for v in op.inputs]
            + [EffectInstance(MemoryEffectKind.WRITE, v) for v in op.outputs]
        )


def _param(params: dict[str, Attribute], key: str) -> int:
    a = params.get(key)
    if not isinstance(a, IntegerAttr):
        raise VerifyException(f"param '{key}' must be an integer")
    return a.value.data


def _param_ints(params: dict[str, Attribute], key: str) -> list[int]:
    a = params.get(key)
    if a is None:
        return []
    if not isinstance(a, DenseArrayBase):
        raise VerifyException(f"param '{key}' must be an array<i64>")
    return list(a.get_values())  # type: ignore[arg-type]


def _max_offset(t: MemRefType) -> int | None:
    """The farthest element (from the pointer) a memref's layout reaches; dynamic
    strides count as dense row-major (the runtime makes such an operand dense)."""
    shape = t.get_shape()
    if any(e < 0 for e in shape):
        return None
    strides = t.get_strides()
    if strides is None or any(s is None for s in strides):
        strides, s = [], 1
        for e in reversed(shape):
            strides.insert(0, s)
            s *= e
    return sum((e - 1) * s for e, s in zip(shape, strides))  # type: ignore[operator]


GEMM_TYPES = (Float32Type, Float16Type, BFloat16Type)


def _type_name(t: Attribute) -> str:
    return {Float32Type(): "f32", Float16Type(): "f16", BFloat16Type(): "bf16"}.get(t, str(t))


def _verify_cublas_gemm(op: LibraryCallOp, p: dict[str, Attribute]) -> None:
    """A row-major batched C[m, n] = A[m, k] @ B[k, n] (see LibraryCallOp)."""
    pad = _param(p, "pad_c") if "pad_c" in p else 0
    if len(op.inputs) != 2 or len(op.outputs) != (2 if pad else 1):
        raise VerifyException("cublas.gemm takes 2 inputs (A, B) and 1 output (C), "
                              "and with pad_c a second output (the padded scratch C)")
    a, b = _param(p, "a"), _param(p, "b")
    if {a, b} != {0, 1}:
        raise VerifyException(f"params a = {a}, b = {b} must name the two inputs (0 and 1)")
    m, n, k, batch = (_param(p, x) for x in ("m", "n", "k", "batch"))
    if min(m, n, k, batch) < 0 or max(m, n, k) >= 2**31:
        raise VerifyException(f"m = {m}, n = {n}, k = {k}, batch = {batch}: each must be in [0, 2^31)")
    ta, tb = _param(p, "trans_a"), _param(p, "trans_b")
    if ta not in (0, 1) or tb not in (0, 1):
        raise VerifyException("trans_a and trans_b must be 0 or 1")
    lda, ldb, ldc = _param(p, "lda"), _param(p, "ldb"), _param(p, "ldc")
    # the stored row length each leading dimension must cover (cuBLAS's rule, in
    # row-major terms: a transposed operand is stored the other way round)
    for name, ld, row in (("lda", lda, m if ta else k), ("ldb", ldb, k if tb else n), ("ldc", ldc, n)):
        if ld < max(1, row) or ld >= 2**31:
            raise VerifyException(f"{name} = {ld} must be >= max(1, {row}) and < 2^31")
    compute = p.get("compute")
    if not isinstance(compute, StringAttr) or compute.data not in ("f32", "tf32"):
        raise VerifyException('param \'compute\' must be "f32" or "tf32"')
    ts = [v.type for v in (op.inputs[a], op.inputs[b], op.outputs[0])]
    el = [t.get_element_type() for t in ts]  # type: ignore[union-attr]
    if not isinstance(el[0], GEMM_TYPES) or el[0] != el[1] or el[2] not in (el[0], Float32Type()):
        raise VerifyException(
            f"cublas.gemm takes A and B of one type of f32, f16, bf16 and C of that type or f32, "
            f"got {el[0]}, {el[1]}, {el[2]}"
        )
    for key, t in (("dtype", el[0]), ("out_dtype", el[2])):
        got = p.get(key)
        if not isinstance(got, StringAttr) or got.data != _type_name(t):
            raise VerifyException(f"param '{key}' must be \"{_type_name(t)}\" (the operands' type)")
    if compute.data == "tf32" and not isinstance(el[0], Float32Type):
        raise VerifyException("compute = \"tf32\" applies to f32 inputs only")
    loops = _param_ints(p, "loops")
    loop_strides = [_param_ints(p, f"loop_stride_{x}") for x in "abc"]
    if any(len(s) != len(loops) for s in loop_strides) or any(e < 0 for e in loops):
        raise VerifyException("loops and loop_stride_a/b/c must have one entry per outer batch loop")
    strides = [_param(p, f"stride_{x}") for x in "abc"]
    offsets = [_param(p, f"offset_{x}") for x in "abc"]
    if min(strides + offsets + [s for ls in loop_strides for s in ls]) < 0:
        raise VerifyException("strides and offsets must be >= 0")
    if (batch > 1 and strides[2] == 0) or any(e > 1 and s == 0 for e, s in zip(loops, loop_strides[2])):
        raise VerifyException("C would be written by several batches (a zero batch stride of C)")
    if pad:
        scratch = op.outputs[1].type
        want = MemRefType(el[2], [m, pad])
        if pad < n or batch != 1 or loops or scratch != want:
            raise VerifyException(
                f"pad_c = {pad} needs one call (batch 1, no loops), pad_c >= n = {n}, and a second output "
                f"{want}, got batch {batch}, loops {loops}, {scratch}"
            )
    if 0 in (m, n, k, batch, *loops):
        return
    # the farthest element each operand's call reaches stays inside its memref
    spans = (
        (0, m - 1, k - 1, (1, lda) if ta else (lda, 1)),
        (1, k - 1, n - 1, (1, ldb) if tb else (ldb, 1)),
        (2, m - 1, n - 1, (ldc, 1)),
    )
    for i, r, c, (sr, sc) in spans:
        reach = offsets[i] + r * sr + c * sc + (batch - 1) * strides[i]
        reach += sum((e - 1) * s for e, s in zip(loops, loop_strides[i]))
        limit = _max_offset(ts[i])  # type: ignore[arg-type]
        if limit is not None and reach > limit:
            raise VerifyException(
                f"operand {'ABC'[i]} reaches element {reach}, past its memref {ts[i]} (last element {limit})"
            )


def _verify_cub_reduce(op: LibraryCallOp, p: dict[str, Attribute]) -> None:
    """out[rows] = sum or max of in[rows, cols], in's trailing `reduce_dims` dims
    being the cols (see LibraryCallOp)."""
    if len(op.inputs) != 1 or len(op.outputs) != 1:
        raise VerifyException("cub.reduce takes 1 input and 1 output")
    kind = p.get("op")
    if not isinstance(kind, StringAttr) or kind.data not in ("sum", "max"):
        raise VerifyException('param \'op\' must be "sum" or "max"')
    x, y = op.inputs[0].type, op.outputs[0].type
    assert isinstance(x, MemRefType) and isinstance(y, MemRefType)
    for key, t, allowed in (("dtype", x, ("f32", "f16")), ("out_dtype", y, ("f32", "f16"))):
        got = p.get(key)
        name = _type_name(t.get_element_type())
        if name not in allowed or not isinstance(got, StringAttr) or got.data != name:
            raise VerifyException(f"param '{key}' must name the operand's type, one of {', '.join(allowed)} (got {name})")
    if y.get_element_type() not in (x.get_element_type(), Float32Type()):
        raise VerifyException(f"cub.reduce writes the input's type ({x.get_element_type()}) or f32, not {y.get_element_type()}")
    nred, rows, cols = _param(p, "reduce_dims"), _param(p, "rows"), _param(p, "cols")
    shape = x.get_shape()
    if not 1 <= nred <= len(shape):
        raise VerifyException(f"reduce_dims = {nred} must be in 1..{len(shape)} (the input's rank)")
    want_rows, want_cols = math.prod(shape[: len(shape) - nred]), math.prod(shape[len(shape) - nred:])
    if (rows, cols) != (want_rows, want_cols) or _count(y) != rows:
        raise VerifyException(
            f"rows = {rows}, cols = {cols} must be the input's {want_rows} x {want_cols} and the output's {_count(y)} elements"
        )
    if not is_dense_row_major(y):
        raise VerifyException("cub.reduce writes a dense row-major output")


def _verify_external(op: LibraryCallOp, p: dict[str, Attribute]) -> None:
    """An admitted external kernel (aicf/kernels/): `key` names it, `args` (a permutation
    of the operands, inputs then outputs) gives its argument order, `grid` and `block`
    (3 dims each), `smem` and `workspace` bytes its launch, `layout` what it takes."""
    if not isinstance(p.get("key"), StringAttr):
        raise VerifyException("param 'key' must name the kernel (a string)")
    layout = p.get("layout")
    if not isinstance(layout, StringAttr) or layout.data not in ("contiguous", "strided"):
        raise VerifyException('param \'layout\' must be "contiguous" or "strided"')
    n = len(op.inputs) + len(op.outputs)
    for key, length in (("args", n), ("grid", 3), ("block", 3)):
        a = p.get(key)
        vals = list(a.get_values()) if isinstance(a, DenseArrayBase) else None
        if vals is None or len(vals) != length or any(v < 0 for v in vals):
            raise VerifyException(f"param '{key}' must be an array of {length} non-negative integers")
        if key == "args" and sorted(vals) != list(range(n)):
            raise VerifyException(f"param 'args' must be a permutation of the {n} operands, got {vals}")
    for key in ("smem", "workspace"):
        if _param(p, key) < 0:
            raise VerifyException(f"param '{key}' must be a non-negative integer")


def _verify_flash_attention(op: LibraryCallOp, p: dict[str, Attribute]) -> None:
    """Q, K, V in, O out (backend/cuda/flash_attention.py): each operand's element
    strides over [b0, b1, S] (`q_strides`, ...; the head dim contiguous) and offset;
    `sq`, `sk`, `b0`, `b1`, `head_dim` its extents; `block_m` and `block_n` its tiles
    (multiples of 16); `causal` 0 or 1; `dtype` "f16" or "bf16"; `scale` a float as
    text; optional `mma`, the kernel: "mma_sync" (the default) or "wgmma" (tiles of
    128 x 128 only)."""
    if len(op.inputs) != 3 or len(op.outputs) != 1:
        raise VerifyException("aicf.flash_attention takes 3 inputs (Q, K, V) and 1 output")
    dt = p.get("dtype")
    if not isinstance(dt, StringAttr) or dt.data not in ("f16", "bf16"):
        raise VerifyException('param \'dtype\' must be "f16" or "bf16"')
    for v in (*op.inputs, *op.outputs):
        if _type_name(v.type.get_element_type()) != dt.data:  # type: ignore[union-attr]
            raise VerifyException(f"every operand must be {dt.data}, got {v.type}")
    if _param(p, "head_dim") not in (64, 128):
        raise VerifyException("param 'head_dim' must be 64 or 128")
    for key in ("block_m", "block_n"):
        if _param(p, key) <= 0 or _param(p, key) % 16:
            raise VerifyException(f"param '{key}' must be a positive multiple of 16")
    if _param(p, "causal") not in (0, 1):
        raise VerifyException("param 'causal' must be 0 or 1")
    mma = p.get("mma", StringAttr("mma_sync"))
    if not isinstance(mma, StringAttr) or mma.data not in ("mma_sync", "wgmma"):
        raise VerifyException('param \'mma\' must be "mma_sync" or "wgmma"')
    if mma.data == "wgmma" and (_param(p, "block_m"), _param(p, "block_n")) != (128, 128):
        raise VerifyException("the wgmma flash kernel takes 128 x 128 tiles (block_m = block_n = 128)")
    for key in ("sq", "sk", "b0", "b1"):
        if _param(p, key) < 0:
            raise VerifyException(f"param '{key}' must be a non-negative integer")
    for x in "qkvo":
        if len(_param_ints(p, f"{x}_strides")) != 3:
            raise VerifyException(f"param '{x}_strides' must be 3 element strides (b0, b1, S)")
        _param(p, f"{x}_offset")
    scale = p.get("scale")
    try:
        float(scale.data)  # type: ignore[union-attr]
    except (AttributeError, ValueError):
        raise VerifyException("param 'scale' must be a float written as a string") from None


LIBRARY_ROUTINES = {"cublas.gemm": _verify_cublas_gemm, "cub.reduce": _verify_cub_reduce,
                    "external": _verify_external, "aicf.flash_attention": _verify_flash_attention}


@irdl_op_definition
class LibraryCallOp(IRDLOperation):
    """Host side: run a library routine (cuBLAS, CUB through CuPy) on the program's
    stream, in order with the launches around it.

        aicf_gpu.library_call "cublas.gemm" ins(%x, %w : memref<64x32xf32>, memref<32x16xf32>)
            outs(%y : memref<64x16xf32>) params = {a = 0 : i64, b = 1 : i64, m = 64 : i64, ...}

    `params` are the call's arguments, checked per routine by the verifier.

    `cublas.gemm`: C[batch.., m, n] = A[.., m, k] @ B[.., k, n] with row-major
    semantics; A is input `a`, B input `b`. Element (i, l) of A is at `offset_a +
    i*lda + l` (`trans_a = 0`) or `offset_a + i + l*lda` (`trans_a = 1`), likewise B
    over (l, j) with `ldb`, and C at `offset_c + i*ldc + j`. `batch` matrices are
    `stride_a/b/c` elements apart (0: a broadcast operand); `loops` (array<i64>) are
    outer batch loops, one call each, `loop_stride_a/b/c` apart. `compute`: "f32"
    (f32 accumulation, CUBLAS_COMPUTE_32F) or "tf32" (f32 inputs only). `est_ns`:
    the planner's estimate. An operand whose memref has dynamic strides is described
    as dense row-major; the runtime copies a non-contiguous array to that.

    `cub.reduce`: out = sum or max (`op`) of the input over its trailing
    `reduce_dims` dims, `rows` outputs of `cols` elements each (CuPy's reduction,
    CUB where CuPy enables it); f32 or f16 in, the input's type or f32 out, sums
    accumulate in f32. Any strides in; a dense output.
    """

    name = "aicf_gpu.library_call"
    callee = prop_def(StringAttr)
    inputs = var_operand_def(MemRefType)
    outputs = var_operand_def(MemRefType)
    params = prop_def(DictionaryAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(_LibraryCallEffects())

    assembly_format = (
        "$callee `ins` `(` $inputs `:` type($inputs) `)` `outs` `(` $outputs `:` type($outputs) `)` "
        "`params` `=` $params attr-dict"
    )

    def __init__(
        self,
        callee: str,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue],
        params: DictionaryAttr | dict[str, Attribute],
    ):
        if not isinstance(params, DictionaryAttr):
            params = DictionaryAttr(dict(params))
        super().__init__(
            operands=[list(inputs), list(outputs)],
            properties={"callee": StringAttr(callee), "params": params},
        )

    @property
    def routine(self) -> str:
        return self.callee.data

    def param(self, key: str):
        """A parameter as a Python value (int, str or list of ints), None if absent."""
        a = self.params.data.get(key)
        if isinstance(a, IntegerAttr):
            return a.value.data
        if isinstance(a, StringAttr):
            return a.data
        if isinstance(a, DenseArrayBase):
            return list(a.get_values())
        return None

    def verify_(self) -> None:
        check = LIBRARY_ROUTINES.get(self.routine)
        if check is None:
            raise VerifyException(
                f"unknown library routine '{self.routine}' (known: {', '.join(sorted(LIBRARY_ROUTINES))})"
            )
        for v in (*self.inputs, *self.outputs):
            if is_shared(v.type):
                raise VerifyException("a library call takes global buffers, not shared memory")
        check(self, dict(self.params.data))


from aicf.dialects.gpu_async import ASYNC_OPS  # noqa: E402  (its ops use this module's helpers)

AICFGpu = Dialect(
    "aicf_gpu",
    [
        *ASYNC_OPS,
        KernelOp,
        ReturnOp,
        BlockIdOp,
        ThreadIdOp,
        BlockDimOp,
        GridDimOp,
        LaneIdOp,
        AllocSharedOp,
        BarrierOp,
        NamedBarrierOp,
        LoadVectorOp,
        StoreVectorOp,
        ShuffleOp,
        WarpReduceOp,
        LaunchOp,
        LibraryCallOp,
    ],
    [AddressSpaceAttr, SwizzleLayoutAttr, PaddedLayoutAttr],
)
