"""Schedule attributes: how a loop nest or group is run, decided before any lowering.

`aicf-schedule` (passes/loop/schedule.py) writes one on every `aicf_loop.nest` and
`aicf_loop.group`; the lowerings (`aicf-lower-to-gpu`, the C emitter) only read it, so
a user or a lit test can write one by hand and get exactly that kernel:

    aicf_loop.nest ... attrs = {aicf.schedule = {kind = "gpu.rows", vec = 4 : i64,
        mode = "block", block = 256 : i64, grid = 132 : i64, split = 1 : i64,
        unroll = 4 : i64, minblocks = 4 : i64, est_ns = 101250 : i64}} {...}

The attribute is a builtin dictionary with a `kind` and the kind's parameters. Each
kind declares its parameters and their types here (`KINDS`), so the nest and group
verifiers reject a schedule with an unknown kind, a missing or mistyped parameter,
or a value outside its range, at the op's location. Common to every kind and
optional: `est_ns` (the planner's predicted time) and `why` (a one-line reason).
A parameter typed `schedule` holds a nested schedule (the combine nest of a
split reduction, passes/loop/split_reductions.py), verified the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from xdsl.dialects.builtin import DenseArrayBase, DictionaryAttr, IntegerAttr, IntegerType, StringAttr, i1, i64
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import VerifyException

SCHEDULE_ATTR = "aicf.schedule"

INT, STR, BOOL, SCHEDULE, INTS = "int", "str", "bool", "schedule", "ints"


@dataclass(frozen=True)
class Param:
    type: str
    choices: tuple = ()  # allowed values, when a closed set
    minimum: int | None = None
    optional: bool = False
    maximum: int | None = None


@dataclass(frozen=True)
class ScheduleKind:
    """One way to run a nest or group: its name, where it runs, what it applies to
    and its typed parameters."""

    name: str
    target: str  # "gpu" | "cpu"
    applies_to: str  # "nest" | "group" | "attention" | "nest|group"
    params: Mapping[str, Param] = field(default_factory=dict)
    doc: str = ""


COMMON = {"est_ns": Param(INT, minimum=0, optional=True), "why": Param(STR, optional=True)}

_pos = Param(INT, minimum=1)
# elements a thread moves as one vector: the planner takes at most 16 bytes' worth; a
# kernel's code grows with it (lanes are unrolled), so a hand-written one is bounded
MAX_VEC = 64
_vec = Param(INT, minimum=1, maximum=MAX_VEC)
# special functions whose results are only rounded to f16/bf16 run approximate
# ("approx"; aicf/math_precision.py) or as f32 libm ("precise", the default)
_math = Param(STR, ("precise", "approx"), optional=True)

KINDS: dict[str, ScheduleKind] = {}


def register_kind(kind: ScheduleKind) -> ScheduleKind:
    KINDS[kind.name] = kind
    return kind


register_kind(ScheduleKind(
    "gpu.per_output", "gpu", "nest",
    {
        "vec": _vec, "block": _pos, "grid": _pos, "split": _pos, "minblocks": _pos,
        # vectors a thread loads before its math (elementwise), or the unroll of
        # the reduction loop
        "unroll": _pos,
        "grid_kind": Param(STR, ("stride", "once"), optional=True),
        "combine": Param(SCHEDULE, optional=True),
        "math": _math,
        # reductions: `slices` threads of a block (a power of two dividing the block)
        # share each output vector, each walking every slices-th reduction point, and
        # fold their accumulators through shared memory; absent: 1
        "slices": Param(INT, minimum=1, optional=True),
        # 1: blockIdx.y runs the outermost parallel dim (a split partial's chunks)
        "outer_grid": Param(INT, (0, 1), optional=True),
    },
    "threads own output vectors; elementwise nests and outer-axis reductions "
    "(slices > 1: the threads of a block share outputs and fold through shared memory; "
    "split > 1: aicf-split-reductions makes the reduction a partial nest over the chunks "
    "with these parameters and a combine nest with the nested `combine` schedule)",
))
register_kind(ScheduleKind(
    "gpu.rows", "gpu", "nest",
    {
        "vec": _vec, "mode": Param(STR, ("warp", "block", "split")), "block": _pos,
        "grid": _pos, "split": _pos, "unroll": _pos, "minblocks": _pos,
        "combine": Param(SCHEDULE, optional=True),
        # 1: a scalar head to each row's first aligned vector, then vectors, then a tail
        "peel": Param(INT, (0, 1), optional=True),
    },
    "a warp or a block per row of an innermost-axis reduction (split > 1: "
    "aicf-split-reductions cuts each row into chunks, rows of a partial nest with these "
    "parameters, and a combine nest with the nested `combine` schedule folds them)",
))
register_kind(ScheduleKind(
    "gpu.matmul_tiled", "gpu", "nest",
    {
        "bm": _pos, "bn": _pos, "bk": _pos, "tm": _pos, "tn": _pos,
        "threads": Param(INT, minimum=1, optional=True), "stages": Param(INT, minimum=1, optional=True),
        # global vector widths and the dim they run along (default: what the operands allow)
        "vec_a": Param(INT, minimum=1, optional=True, maximum=MAX_VEC), "dim_a": Param(STR, ("k", "m"), optional=True),
        "vec_b": Param(INT, minimum=1, optional=True, maximum=MAX_VEC), "dim_b": Param(STR, ("k", "n"), optional=True),
        "vec_c": Param(INT, minimum=1, optional=True, maximum=MAX_VEC),
        # tiles staged through XOR-swizzled (true) or padded (false) shared memory
        "swizzle": Param(BOOL, optional=True),
        "bps": Param(INT, minimum=1, optional=True),  # resident blocks an SM (launch bounds)
        "regs_est": Param(INT, optional=True), "bound": Param(STR, optional=True),
    },
    "CUDA-core tiled matmul: block tile bm x bn over k-tiles of bk through shared "
    "memory, a tm x tn register tile per thread",
))
WGMMA_PARAMS = {
    # block tile bm x bn (bm = 64 per consumer warpgroup), k-tiles of bk elements
    # (one 128-byte swizzle row), `stages` shared buffers in flight
    "bm": Param(INT, (64, 128, 192, 256)), "bn": Param(INT, minimum=64, maximum=256),
    "bk": Param(INT, (32, 64)), "stages": Param(INT, minimum=2, maximum=8),
    # tile rows of GROUP_M blocks launched together (their B tiles share L2)
    "group_m": Param(INT, minimum=1, optional=True),
    # blocks launched; fewer than the tiles makes the grid persistent (each block
    # walks tiles pid, pid + grid, ...; its next tile's copies overlap this one's
    # epilogue)
    "grid": Param(INT, minimum=1, optional=True),
    # split-K: `split` blocks share a tile's k-tiles (split divides them), writing f32
    # partials that a second pass (`combine`, a nested schedule) sums and converts
    "split": Param(INT, minimum=1, optional=True),
    "combine": Param(SCHEDULE, optional=True),
    # tf32 with B stored K x N: the schedule of the copy of B to N x K that runs first
    "transpose_b": Param(SCHEDULE, optional=True),
    # register budgets after warp specialisation (setmaxnreg)
    "producer_regs": Param(INT, minimum=24, maximum=256, optional=True),
    "consumer_regs": Param(INT, minimum=24, maximum=256, optional=True),
    # the epilogue: "fragment" stores each thread's accumulators where they lie;
    # "smem" stages them in shared memory and stores whole rows (coalesced at any
    # alignment of C)
    "store": Param(STR, ("fragment", "smem"), optional=True),
}
register_kind(ScheduleKind(
    "gpu.wgmma", "gpu", "nest", WGMMA_PARAMS,
    "Hopper tensor cores: a producer warpgroup copies A and B tiles with bulk tensor "
    "copies (TMA) into a ring of swizzled shared buffers guarded by mbarriers; "
    "bm/64 consumer warpgroups multiply them with wgmma (f32 accumulation)",
))
# a fused epilogue's body may run approximate math (aicf/math_precision.py), as the
# elementwise kinds' bodies
EPILOGUE_PARAMS = {"math": _math}
register_kind(ScheduleKind(
    "gpu.wgmma_epilogue", "gpu", "group", {**WGMMA_PARAMS, **EPILOGUE_PARAMS},
    "a matmul and its elementwise consumer (aicf-fuse-epilogue's group) as one gpu.wgmma "
    "kernel whose epilogue applies the consumer to the accumulators before storing",
))
MMA_SYNC_PARAMS = {
    # block tile bm x bn, k-tiles of bk through `stages` shared buffers (cp.async),
    # warps of wm x wn each (mma.sync m16n8k16)
    "bm": Param(INT, minimum=16, maximum=512), "bn": Param(INT, minimum=16, maximum=512),
    "bk": Param(INT, (16, 32, 64, 128)), "wm": Param(INT, (16, 32, 64, 128)), "wn": Param(INT, (16, 32, 64, 128)),
    "stages": Param(INT, minimum=2, maximum=8),
    # tile rows of GROUP_M blocks launched together (their B tiles share L2)
    "group_m": Param(INT, minimum=1, optional=True),
}
register_kind(ScheduleKind(
    "gpu.mma_sync", "gpu", "nest", MMA_SYNC_PARAMS,
    "warp-level tensor cores (sm_80 on): a multi-stage cp.async pipeline of A and B tiles "
    "in XOR-swizzled shared memory, ldmatrix fragments, mma.sync m16n8k16 (f32 accumulation)",
))
register_kind(ScheduleKind(
    "gpu.mma_sync_epilogue", "gpu", "group", {**MMA_SYNC_PARAMS, **EPILOGUE_PARAMS},
    "a matmul and its elementwise consumer (aicf-fuse-epilogue's group) as one gpu.mma_sync "
    "kernel whose epilogue applies the consumer to the accumulators before storing",
))
register_kind(ScheduleKind(
    "gpu.transpose_tiled", "gpu", "nest",
    {
        # the block's tile: tile_i along the staged inputs' contiguous dim, tile_o
        # along the outputs'; each thread moves tile_i*tile_o/threads elements
        "tile_i": _pos, "tile_o": _pos, "threads": _pos,
        # elements per global access: loads along the load dim, stores along the store dim
        "vec_in": Param(INT, (1, 2, 4, 8)), "vec_out": Param(INT, (1, 2, 4, 8)),
        # the shared tile's layout: rows padded by one access, or an XOR swizzle
        "smem": Param(STR, ("padded", "swizzle")),
    },
    "a tile through shared memory: coalesced reads along the inputs' contiguous dim, "
    "coalesced writes along the outputs' (transposes, with their elementwise bodies)",
))
register_kind(ScheduleKind(
    "gpu.row_group", "gpu", "group",
    {
        "mode": Param(STR, ("warp", "block")), "block": _pos, "grid": _pos, "vec": _vec,
        "rows": Param(STR, ("registers", "stream")), "per": _pos, "bps": _pos,
        "launch": Param(STR, ("stride", "once")), "pipeline": Param(INT, (0, 1)),
        "unroll": _pos,  # vectors in flight in the streaming (rows=stream) loops
        "math": _math,
    },
    "one kernel for a row group (softmax, layer norm): a warp or block per row, the "
    "members as phases",
))
register_kind(ScheduleKind(
    "gpu.members", "gpu", "group", {},
    "the group runs as its member nests, each with its own schedule",
))
_nonneg = Param(INT, minimum=0)
_dtype = Param(STR, ("f32", "f16", "bf16"))
register_kind(ScheduleKind(
    "gpu.cublas_gemm", "gpu", "nest",
    {
        # which input is A and which B; C = A @ B per batch entry, row-major
        "a": Param(INT, (0, 1)), "b": Param(INT, (0, 1)),
        "m": _nonneg, "n": _nonneg, "k": _nonneg, "batch": _nonneg,
        "trans_a": Param(INT, (0, 1)), "trans_b": Param(INT, (0, 1)),
        "lda": _pos, "ldb": _pos, "ldc": _pos,
        # strided-batched strides (elements; 0 broadcasts) and static offsets
        "stride_a": _nonneg, "stride_b": _nonneg, "stride_c": _nonneg,
        "offset_a": _nonneg, "offset_b": _nonneg, "offset_c": _nonneg,
        # batch dims that do not fold into one stride: an outer loop of calls
        "loops": Param(INTS, optional=True), "loop_stride_a": Param(INTS, optional=True),
        "loop_stride_b": Param(INTS, optional=True), "loop_stride_c": Param(INTS, optional=True),
        "dtype": _dtype, "out_dtype": _dtype, "compute": Param(STR, ("f32", "tf32")),
        # C computed into a scratch of rows this many elements apart (aligned for
        # cuBLAS's fast kernels), then copied into place; one call only
        "pad_c": Param(INT, minimum=0, optional=True),
    },
    "cuBLAS gemmStridedBatchedEx (f32 accumulation; tf32 when allowed)",
))
register_kind(ScheduleKind(
    "gpu.cub_reduce", "gpu", "nest",
    {
        "op": Param(STR, ("sum", "max")), "reduce_dims": _pos, "rows": _nonneg, "cols": _nonneg,
        "dtype": _dtype, "out_dtype": _dtype,
    },
    "CuPy's (CUB) sum or max over the trailing dims of one input",
))
register_kind(ScheduleKind(
    "cpu.nest", "cpu", "nest",
    {
        # leading loops collapsed into the OpenMP parallel loop (0: one thread)
        "parallel": Param(INT, minimum=0),
        # a reduction's accumulator type per output, comma-separated ("f64,i64");
        # absent: each output's own element type
        "acc": Param(STR, optional=True),
    },
    "a C loop nest, OpenMP over its leading parallel loops",
))
register_kind(ScheduleKind(
    "cpu.blas_gemm", "cpu", "nest",
    {
        "routine": Param(STR, ("sgemm", "dgemm")),
        # the domain dims playing m, n and k (-1: a size-1 role, e.g. a vector)
        "m": Param(INT, minimum=-1), "n": Param(INT, minimum=-1), "k": Param(INT, minimum=0),
        # leading batch dims folded into M (their strides continue A's and C's rows)
        "fold": _nonneg,
        "tasks_n": _pos,  # column chunks per call, run as OpenMP tasks
        "trans_a": Param(STR, ("N", "T", "runtime")), "lda": _nonneg,
        "trans_b": Param(STR, ("N", "T", "runtime")), "ldb": _nonneg,
        "ldc": _nonneg,
        "blas_ns": Param(INT, optional=True), "nest_ns": Param(INT, optional=True),
        # the cpu.nest `parallel` of the loop nest run instead when a run-time strided
        # view is not a BLAS matrix
        "fallback_parallel": Param(INT, minimum=0, optional=True),
        "fallback_acc": Param(STR, optional=True),
    },
    "OpenBLAS sgemm/dgemm (scipy-openblas32) calls, one thread each, as OpenMP tasks",
))
register_kind(ScheduleKind(
    "cpu.group", "cpu", "group",
    {"parallel": Param(INT, minimum=0), "per_slice": Param(BOOL)},
    "a row group in C: per slice of the shared dims (group-local values on the stack) "
    "when `per_slice`, else its member nests in order",
))

# External kernels (aicf/kernels/): registered by hand or proposed, run only once the
# gate admitted them. `key` names the kernel in the kernel store (its source); `args`
# index the op's boundary buffers (dialects/boundary.py) in the kernel's argument order.
_EXTERNAL = {
    "key": Param(STR),
    "args": Param(INTS),
    "workspace": _nonneg,  # scratch bytes the kernel is handed
    # what the kernel takes: dense row-major operands only, or any element strides
    "layout": Param(STR, ("contiguous", "strided")),
}
register_kind(ScheduleKind(
    "cpu.external", "cpu", "nest|group",
    {
        **_EXTERNAL,
        # the compiler's own schedule of the op, run where the kernel's guard cannot
        # hold (a strided variant of a contiguous-only kernel's operands)
        "fallback": Param(SCHEDULE, optional=True),
    },
    "an external C kernel admitted by the gate (aicf/kernels/): one call "
    "`int entry(const aicf_tensor *args, int64_t nargs, void *workspace)`",
))
register_kind(ScheduleKind(
    "gpu.external", "gpu", "nest|group",
    {
        **_EXTERNAL,
        "grid": Param(INTS), "block": Param(INTS), "smem": _nonneg,
    },
    "an external CUDA kernel admitted by the gate (aicf/kernels/): one launch with "
    "the operands' pointers, then their extents and strides",
))


register_kind(ScheduleKind(
    "cpu.attention", "cpu", "attention",
    {
        # queries per tile (a thread's unit of work) and keys per step of the online
        # softmax; `parallel`: leading loops (batch dims, then query tiles) OpenMP shares
        "block_q": _pos, "block_k": _pos, "parallel": Param(INT, minimum=0),
    },
    "aicf_loop.attention in C: per tile of block_q queries, keys and values in tiles of "
    "block_k converted to f32 on the stack, an online softmax (running max and sum, the "
    "output rescaled); the scores never leave a block_q x block_k tile",
))


register_kind(ScheduleKind(
    "gpu.flash_attention", "gpu", "attention",
    {
        # queries per block and keys per step of the online softmax; `mma`: the
        # kernel, mma.sync (16 queries a warp, sm_80 on) or wgmma (64 queries a
        # warpgroup, bulk tensor copies, sm_90a); absent: mma_sync
        "block_m": _pos, "block_n": _pos, "mma": Param(STR, ("mma_sync", "wgmma"), optional=True),
    },
    "aicf_loop.attention as one launch of a flash kernel (backend/cuda/flash_attention.py: "
    "mma.sync; backend/cuda/flash_attention_wgmma.py: wgmma; the scores and the softmax in "
    "registers, K and V tiles through shared memory)",
))


# --- reading and writing --------------------------------------------------------------


def _py(a: Attribute):
    if isinstance(a, IntegerAttr):
        v = a.value.data
        return bool(v) if a.type == i1 else v
    if isinstance(a, StringAttr):
        return a.data
    if isinstance(a, DictionaryAttr):
        return {k: _py(v) for k, v in a.data.items()}
    if isinstance(a, DenseArrayBase):
        return list(a.get_values())
    return a


def _attr(v) -> Attribute:
    if isinstance(v, Attribute):
        return v
    if isinstance(v, bool):
        return IntegerAttr(int(v), i1)
    if isinstance(v, int):
        return IntegerAttr(v, i64)
    if isinstance(v, str):
        return StringAttr(v)
    if isinstance(v, Mapping):
        return DictionaryAttr({k: _attr(x) for k, x in v.items()})
    if isinstance(v, (list, tuple)) and all(isinstance(x, int) for x in v):
        return DenseArrayBase.from_list(i64, list(v))
    raise TypeError(f"schedule parameter value {v!r} ({type(v).__name__})")


def schedule_attr(kind: str, params: Mapping[str, object]) -> DictionaryAttr:
    return _attr({"kind": kind, **params})  # type: ignore[return-value]


@dataclass(frozen=True)
class Schedule:
    """A decoded schedule: its kind and parameters as Python values (nested
    schedules as Schedule)."""

    kind: str
    params: Mapping[str, object]

    def __getitem__(self, k: str):
        return self.params[k]

    def get(self, k: str, default=None):
        return self.params.get(k, default)

    def to_attr(self) -> DictionaryAttr:
        return schedule_attr(self.kind, {k: (v.to_attr() if isinstance(v, Schedule) else v)
                                         for k, v in self.params.items()})

    def describe(self, with_estimate: bool = True) -> str:
        ps = " ".join(
            f"{k}=({v.describe(False)})" if isinstance(v, Schedule) else f"{k}={v}"
            for k, v in self.params.items()
            if k != "why" and (with_estimate or k != "est_ns")
        )
        return f"{self.kind} {ps}".strip()


def decode(attr: Attribute, where: str = "aicf.schedule") -> Schedule:
    """The Schedule an attribute holds; VerifyException saying what is wrong."""
    if not isinstance(attr, DictionaryAttr):
        raise VerifyException(f"{where} must be a dictionary with a 'kind', got {attr}")
    data = attr.data
    kind_a = data.get("kind")
    if not isinstance(kind_a, StringAttr):
        raise VerifyException(f"{where} needs kind = \"...\" (one of {', '.join(sorted(KINDS))})")
    kind = KINDS.get(kind_a.data)
    if kind is None:
        raise VerifyException(
            f"{where}: unknown schedule kind '{kind_a.data}' (known: {', '.join(sorted(KINDS))})"
        )
    spec = {**kind.params, **COMMON}
    params: dict[str, object] = {}
    for k, a in data.items():
        if k == "kind":
            continue
        p = spec.get(k)
        if p is None:
            raise VerifyException(
                f"{where}: '{k}' is not a parameter of {kind.name} "
                f"(parameters: {', '.join(kind.params) or 'none'})"
            )
        params[k] = _check(kind.name, k, p, a, where)
    missing = [k for k, p in kind.params.items() if not p.optional and k not in params]
    if missing:
        raise VerifyException(f"{where}: {kind.name} needs {', '.join(missing)}")
    return Schedule(kind.name, params)


def _check(kind: str, k: str, p: Param, a: Attribute, where: str):
    bad = f"{where}: {kind} parameter '{k}'"
    if p.type == SCHEDULE:
        return decode(a, f"{where}.{k}")
    if p.type == INTS:
        if not (isinstance(a, DenseArrayBase) and isinstance(a.elt_type, IntegerType)):
            raise VerifyException(f"{bad} must be an array<i64: ...>, got {a}")
        return tuple(a.get_values())
    if p.type == BOOL:
        if not (isinstance(a, IntegerAttr) and (a.type == i1 or a.value.data in (0, 1))):
            raise VerifyException(f"{bad} must be true or false, got {a}")
        return bool(a.value.data)
    if p.type == INT:
        if not isinstance(a, IntegerAttr) or a.type == i1:
            raise VerifyException(f"{bad} must be an integer, got {a}")
        v = a.value.data
        if p.minimum is not None and v < p.minimum:
            raise VerifyException(f"{bad} must be at least {p.minimum}, got {v}")
        if p.maximum is not None and v > p.maximum:
            raise VerifyException(f"{bad} must be at most {p.maximum}, got {v}")
    else:
        if not isinstance(a, StringAttr):
            raise VerifyException(f"{bad} must be a string, got {a}")
        v = a.data
    if p.choices and v not in p.choices:
        raise VerifyException(f"{bad} must be one of {', '.join(map(str, p.choices))}, got {v}")
    return v


def schedule_of(op: Operation) -> Schedule | None:
    a = op.attributes.get(SCHEDULE_ATTR)
    return None if a is None else decode(a)


def verify_schedule(op: Operation, applies_to: str) -> None:
    """For the nest and group verifiers: a schedule, if present, is well formed and of
    a kind for this op."""
    s = schedule_of(op)
    if s is not None and applies_to not in KINDS[s.kind].applies_to.split("|"):
        raise VerifyException(f"schedule kind {s.kind} applies to a {KINDS[s.kind].applies_to}, not a {applies_to}")
