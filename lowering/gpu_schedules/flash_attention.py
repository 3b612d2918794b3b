"""What the flash kernel (backend/cuda/flash_attention.py) takes, and the library
call's parameters for an `aicf_loop.attention` scheduled `gpu.flash_attention`: the
guard the planner asks (passes/loop/gpu_attention.py) and the builder
aicf-lower-to-gpu runs (lowering/loop_to_gpu.py), in one place.

What the kernels take: f16 or bf16 Q, K, V; head dims D = Dv of 64 or 128, contiguous
(each operand's last logical axis is its last stored one); no mask operand (causal is
a flag); at most two batch dims; every other stride and offset a multiple of 8
elements (16-byte copies, and the bulk tensor copies' 16-byte strides); a GPU of
sm_80 or later (mma.sync), sm_90a for the wgmma kernel.
"""

from __future__ import annotations

from xdsl.dialects.builtin import MemRefType

from aicf.dialects.loop import AttentionOp
from aicf.target import GpuTarget

KIND = "gpu.flash_attention"
HEAD_DIMS = (64, 128)
DTYPES = ("f16", "bf16")
ALIGN = 8  # elements: the kernel's 16-byte copies of K and V rows
MAX_BATCH_DIMS = 2
MIN_SM = 80  # mma.sync m16n8k16 with f32 accumulators, ldmatrix, cvt.rn.bf16x2
MMAS = ("mma_sync", "wgmma")
WGMMA_TILE = (128, 128)  # the one instantiation of the wgmma kernel (two consumer warpgroups)


def dtype_name(t) -> str:
    from aicf.dialects.gpu import _type_name

    return _type_name(t)


def tensor_guard(dtypes: tuple[str, ...], d: int, dv: int, has_mask: bool,
                 perms: tuple[tuple[int, ...] | None, ...], batch_dims: int) -> str | None:  # fmt: skip
    """Why the flash kernel cannot take an attention of these properties (None: it can,
    strides permitting)."""
    if dtypes[0] not in DTYPES or len(set(dtypes)) > 1:
        return f"the flash kernel takes f16 or bf16, not {dtypes[0]}"
    if d != dv or d not in HEAD_DIMS:
        return f"the flash kernel takes head dims {' or '.join(map(str, HEAD_DIMS))} (D = Dv), not {d}, {dv}"
    if has_mask:
        return "the flash kernel takes no mask operand (causal is a flag)"
    for name, perm in zip("QKV", perms):
        if perm is not None and perm[-1] != len(perm) - 1:
            return f"{name}'s head dim is not its stored last axis"
    if batch_dims > MAX_BATCH_DIMS:
        return f"the flash kernel takes at most {MAX_BATCH_DIMS} batch dims, not {batch_dims}"
    return None


def strides_of(t: MemRefType) -> tuple[list[int], int] | None:
    """Element strides and offset of a static memref (None: dynamic)."""
    from xdsl.dialects.builtin import StridedLayoutAttr

    shape = list(t.get_shape())
    if isinstance(t.layout, StridedLayoutAttr):
        st = t.layout.get_strides()
        off = t.layout.get_offset()
        if st is None or any(s is None for s in st) or off is None:
            return None
        return list(st), off
    out, acc = [], 1
    for e in reversed(shape):
        out.append(acc)
        acc *= max(e, 1)
    return out[::-1], 0


def logical_layout(t: MemRefType, perm: tuple[int, ...] | None, batch: tuple[int, ...]):
    """(strides of [b0, b1, S, D], offset) of an operand read through `perm`, its batch
    dims broadcast to `batch` (stride 0 where it has extent 1 or lacks the dim); None
    when its strides are dynamic."""
    got = strides_of(t)
    if got is None:
        return None
    st, off = got
    shape = list(t.get_shape())
    if perm is not None:
        st, shape = [st[p] for p in perm], [shape[p] for p in perm]
    lead = len(batch) - (len(shape) - 2)  # the output's batch dims this operand lacks
    bstrides = [0] * (MAX_BATCH_DIMS - len(batch))
    for i in range(len(batch)):
        j = i - lead
        bstrides.append(0 if j < 0 or shape[j] == 1 else st[j])  # broadcast: stride 0
    return [*bstrides, st[-2], st[-1]], off


def call_params(op: AttentionOp, block_m: int, block_n: int, target: GpuTarget,
                mma: str = "mma_sync") -> dict | str:  # fmt: skip
    """The library call's parameters for `op` (see LibraryCallOp's entry), or why the
    kernel cannot take its operands' layouts."""
    if mma == "wgmma":
        if not target.has_wgmma:
            return f"the wgmma flash kernel needs sm_90a (Hopper), not {target.sm}"
        if (block_m, block_n) != WGMMA_TILE:
            return f"the wgmma flash kernel takes {WGMMA_TILE[0]} x {WGMMA_TILE[1]} tiles, not {block_m} x {block_n}"
    lq, lk, lv = op.logical_shapes()
    out = op.output.type
    assert isinstance(out, MemRefType)
    oshape = tuple(out.get_shape())
    batch = oshape[:-2]
    layouts = []
    for name, x, perm in zip("qkvo", (op.q, op.k, op.v, op.output), (*op.perms(), None)):
        got = logical_layout(x.type, perm, batch)  # type: ignore[arg-type]
        if got is None:
            return f"{name.upper()}'s strides are dynamic"
        st, off = got
        if st[-1] != 1:
            return f"{name.upper()}'s head dim is not contiguous (stride {st[-1]})"
        if any(s % ALIGN for s in st[:-1]) or off % ALIGN:
            return f"{name.upper()}'s strides {st[:-1]} or offset {off} are not multiples of {ALIGN} elements"
        layouts.append((st, off))
    if mma == "wgmma":  # tensor maps: positive byte strides (a batch stride of 0 is a broadcast)
        rows = {"q": lq[-2], "k": lk[-2], "v": lv[-2], "o": lq[-2]}
        for name, (st, _) in zip("qkvo", layouts):
            if st[-2] <= 0 and rows[name] > 1 or any(x < 0 for x in st[:-2]):
                return f"{name.upper()}'s strides {st[:-1]} are not positive (the wgmma kernel's tensor maps)"
    b = [1] * (MAX_BATCH_DIMS - len(batch)) + list(batch)
    if b[0] * b[1] > target.max_grid_y:  # the batch is the grid's y dimension
        return f"{b[0] * b[1]} batch entries are more than a grid's y dimension holds ({target.max_grid_y})"
    if max(lq[-2], lk[-2]) >= 2**31:  # the kernel counts rows in int
        return f"sequence lengths {lq[-2]}, {lk[-2]} pass 2^31"
    p: dict = {"head_dim": lq[-1], "block_m": block_m, "block_n": block_n, "causal": int(op.is_causal),
               "dtype": dtype_name(out.get_element_type()), "sq": lq[-2], "sk": lk[-2], "b0": b[0], "b1": b[1],
               "scale": repr(op.scale_value)}  # fmt: skip
    if mma != "mma_sync":
        p["mma"] = mma
    for name, (st, off) in zip("qkvo", layouts):
        p[f"{name}_strides"] = st[:3]
        p[f"{name}_offset"] = off
    return p
