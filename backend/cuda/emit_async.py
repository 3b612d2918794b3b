"""CUDA C for the asynchronous ops of `aicf_gpu` (dialects/gpu_async.py): mbarriers,
bulk tensor copies through `__grid_constant__` tensor maps, wgmma and setmaxnreg
(sm_90a); cp.async, ldmatrix and mma.sync (sm_80 on, SM80_PRELUDE).

Each op prints as one call of a helper below; the helpers are inline PTX and are
added to the translation unit only when a kernel uses them. wgmma helpers are
generated per (n, input type, operand majors), since the instruction names its
accumulator registers one by one.
"""

from __future__ import annotations

from xdsl.ir import Operation

from aicf.dialects import gpu_async as ga

ASYNC_PRELUDE = r"""// Hopper asynchronous copies and tensor cores (sm_90a)
struct __align__(64) aicf_tensor_map { unsigned long long opaque[16]; };
__device__ __forceinline__ unsigned aicf_smem_addr(const void* p) {
  return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void aicf_mbar_init(long long* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(aicf_smem_addr(bar)), "r"(count)); }
__device__ __forceinline__ void aicf_mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
__device__ __forceinline__ void aicf_mbar_arrive(long long* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(aicf_smem_addr(bar)) : "memory"); }
__device__ __forceinline__ void aicf_mbar_arrive_tx(long long* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
               :: "r"(aicf_smem_addr(bar)), "r"(bytes) : "memory"); }
__device__ __forceinline__ void aicf_mbar_wait(long long* bar, unsigned phase) {
  asm volatile("{\n.reg .pred p;\nAICF_WAIT_%=:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra AICF_WAIT_%=;\n}\n"
               :: "r"(aicf_smem_addr(bar)), "r"(phase) : "memory"); }
#define AICF_TMA_LOAD(N, COORDS, ...)                                                      \
  __device__ __forceinline__ void aicf_tma_load_##N##d(void* dst, const aicf_tensor_map* map, \
      long long* bar, __VA_ARGS__) {                                               \
    asm volatile("cp.async.bulk.tensor." #N "d.shared::cluster.global.tile"                 \
                 ".mbarrier::complete_tx::bytes [%0], [%1, {" COORDS "}], [%2];"            \
                 :: "r"(aicf_smem_addr(dst)), "l"((unsigned long long)map),                 \
                    "r"(aicf_smem_addr(bar)) AICF_TMA_COORD_OPERANDS_##N : "memory"); }
#define AICF_TMA_COORD_OPERANDS_1 , "r"(c0)
#define AICF_TMA_COORD_OPERANDS_2 , "r"(c0), "r"(c1)
#define AICF_TMA_COORD_OPERANDS_3 , "r"(c0), "r"(c1), "r"(c2)
#define AICF_TMA_COORD_OPERANDS_4 , "r"(c0), "r"(c1), "r"(c2), "r"(c3)
#define AICF_TMA_COORD_OPERANDS_5 , "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
AICF_TMA_LOAD(1, "%3", int c0)
AICF_TMA_LOAD(2, "%3, %4", int c0, int c1)
AICF_TMA_LOAD(3, "%3, %4, %5", int c0, int c1, int c2)
AICF_TMA_LOAD(4, "%3, %4, %5, %6", int c0, int c1, int c2, int c3)
AICF_TMA_LOAD(5, "%3, %4, %5, %6, %7", int c0, int c1, int c2, int c3, int c4)
// the wgmma matrix descriptor (PTX ISA): start, leading and stride byte offsets >> 4,
// 128-byte swizzle
__device__ __forceinline__ unsigned long long aicf_wgmma_desc(const void* p, unsigned lead, unsigned stride) {
  return (unsigned long long)((aicf_smem_addr(p) & 0x3FFFF) >> 4)
       | ((unsigned long long)((lead & 0x3FFFF) >> 4) << 16)
       | ((unsigned long long)((stride & 0x3FFFF) >> 4) << 32) | (1ull << 62); }
__device__ __forceinline__ void aicf_wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void aicf_wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N> __device__ __forceinline__ void aicf_wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" :: "n"(N) : "memory"); }
template <int R> __device__ __forceinline__ void aicf_setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" :: "n"(R)); }
template <int R> __device__ __forceinline__ void aicf_setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" :: "n"(R)); }
"""

SM80_PRELUDE = r"""// sm_80 asynchronous copies (cp.async), ldmatrix and warp-level tensor cores (mma.sync)
__device__ __forceinline__ unsigned aicf_smem_u32(const void* p) {
  return (unsigned)__cvta_generic_to_shared(p); }
// `B` bytes global -> shared; zero-filled (nothing read) when `full` is false
template <int B> __device__ __forceinline__ void aicf_cp_async(void* dst, const void* src, bool full) {
  if (B == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(aicf_smem_u32(dst)), "l"(src),
                 "r"(full ? 16 : 0) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;" :: "r"(aicf_smem_u32(dst)), "l"(src),
                 "n"(B), "r"(full ? B : 0) : "memory"); }
__device__ __forceinline__ void aicf_cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N> __device__ __forceinline__ void aicf_cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" :: "n"(N) : "memory"); }
__device__ __forceinline__ void aicf_ldmatrix_x1(int* d, const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(d[0]) : "r"(aicf_smem_u32(p))); }
__device__ __forceinline__ void aicf_ldmatrix_x2(int* d, const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];"
               : "=r"(d[0]), "=r"(d[1]) : "r"(aicf_smem_u32(p))); }
__device__ __forceinline__ void aicf_ldmatrix_x4(int* d, const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(aicf_smem_u32(p))); }
__device__ __forceinline__ void aicf_ldmatrix_x1_trans(int* d, const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(d[0]) : "r"(aicf_smem_u32(p))); }
__device__ __forceinline__ void aicf_ldmatrix_x2_trans(int* d, const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];"
               : "=r"(d[0]), "=r"(d[1]) : "r"(aicf_smem_u32(p))); }
__device__ __forceinline__ void aicf_ldmatrix_x4_trans(int* d, const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(aicf_smem_u32(p))); }
#define AICF_MMA(NAME, SHAPE, T)                                                              \
  __device__ __forceinline__ void NAME(float* c, const int* a, const int* b) {                \
    asm volatile("mma.sync.aligned." SHAPE ".row.col.f32." T "." T ".f32 "                    \
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                       \
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])                               \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1])); }
AICF_MMA(aicf_mma_f16, "m16n8k16", "f16")
AICF_MMA(aicf_mma_bf16, "m16n8k16", "bf16")
AICF_MMA(aicf_mma_tf32, "m16n8k8", "tf32")
"""

_PTX_TYPE = {"f16": "f16", "bf16": "bf16", "tf32": "tf32"}


def wgmma_helper_name(op: ga.WgmmaOp) -> str:
    n, kind = op.n.value.data, op.input_kind
    return f"aicf_wgmma_m64n{n}k{ga.WGMMA_K[kind]}_{kind}_{op.a_major.data}_{op.b_major.data}"


def wgmma_helper(op: ga.WgmmaOp) -> str:
    """`acc += A * B` for one warpgroup: the accumulator's n/2 registers named one by
    one (scale-d = 1: the accumulator starts at zero, set by the schedule)."""
    n, kind = op.n.value.data, op.input_kind
    k = ga.WGMMA_K[kind]
    regs = n // 2
    dlist = ", ".join(f"%{i}" for i in range(regs))
    outs = ", ".join(f'"+f"(d[{i}])' for i in range(regs))
    t = _PTX_TYPE[kind]
    imm = "1, 1" if kind == "tf32" else f"1, 1, {int(op.a_major.data == 'mn')}, {int(op.b_major.data == 'mn')}"
    return (
        f"__device__ __forceinline__ void {wgmma_helper_name(op)}(float* d, unsigned long long da, unsigned long long db) {{\n"
        f'  asm volatile("{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{regs + 2}, 0;\\n'
        f'wgmma.mma_async.sync.aligned.m64n{n}k{k}.f32.{t}.{t} '
        f'{{{dlist}}}, %{regs}, %{regs + 1}, p, {imm};\\n}}\\n"\n'
        f'               : {outs}\n'
        f'               : "l"(da), "l"(db), "n"(1));\n}}'
    )


def uses_async(ops) -> bool:
    return any(isinstance(o, tuple(ga.ASYNC_OPS)) for o in ops)


def uses_hopper_async(ops) -> bool:
    return any(isinstance(o, tuple(ga.ASYNC_OPS)) and not isinstance(o, ga.SM80_OPS) for o in ops)


def uses_sm80(ops) -> bool:
    return any(isinstance(o, ga.SM80_OPS) for o in ops)


def global_alignment(kernel) -> dict[int, int]:
    """Argument index -> the alignment (bytes) its `cp_async` copies need of it."""
    args = list(kernel.args)
    out: dict[int, int] = {}
    for o in kernel.walk():
        if isinstance(o, ga.CpAsyncOp) and o.source in args:
            i = args.index(o.source)
            out[i] = max(out.get(i, 1), o.num_bytes)
    return out


def needs_sm90a(ops) -> bool:
    return any(isinstance(o, ga.HOPPER_OPS) for o in ops)


def tensor_map_key(op: ga.TmaLoadOp, arg_index: int) -> tuple:
    return (arg_index, tuple(op.dim_list), tuple(op.box_list))


def tensor_maps_of(kernel) -> list[tuple]:
    """The kernel's tensor-map parameters in order: (argument index, dims, box), one
    per distinct map its `tma_load` ops read."""
    args = list(kernel.args)
    keys: list[tuple] = []
    for o in kernel.walk():
        if isinstance(o, ga.TmaLoadOp):
            key = tensor_map_key(o, args.index(o.source))
            if key not in keys:
                keys.append(key)
    return keys


def print_async(p, op: Operation, map_names: dict[tuple, str]) -> bool:
    """Print `op` through KernelPrinter `p`; False when it is not an async op."""
    if isinstance(op, ga.MbarrierInitOp):
        p.line(f"aicf_mbar_init(&{p.n(op.bars)}[{p.n(op.index)}], {op.count.value.data});")
    elif isinstance(op, ga.MbarrierInitFenceOp):
        p.line("aicf_mbar_init_fence();")
    elif isinstance(op, ga.MbarrierArriveOp):
        bar = f"&{p.n(op.bars)}[{p.n(op.index)}]"
        if op.tx is not None:
            p.line(f"aicf_mbar_arrive_tx({bar}, {op.tx.value.data});")
        else:
            p.line(f"aicf_mbar_arrive({bar});")
    elif isinstance(op, ga.MbarrierWaitOp):
        p.line(f"aicf_mbar_wait(&{p.n(op.bars)}[{p.n(op.index)}], (unsigned)({p.n(op.phase)}));")
    elif isinstance(op, ga.TmaLoadOp):
        key = tensor_map_key(op, list(p.k.args).index(op.source))
        coords = ", ".join(f"(int)({p.n(c)})" for c in op.coords)
        p.line(
            f"aicf_tma_load_{len(op.coords)}d(&{p.n(op.dest)}[{p.n(op.offset)}], &{map_names[key]}, "
            f"&{p.n(op.bars)}[{p.n(op.bar)}], {coords});"
        )
    elif isinstance(op, ga.WgmmaFenceOp):
        p.line("aicf_wgmma_fence();")
    elif isinstance(op, ga.WgmmaCommitOp):
        p.line("aicf_wgmma_commit();")
    elif isinstance(op, ga.WgmmaWaitOp):
        p.line(f"aicf_wgmma_wait<{op.pending.value.data}>();")
    elif isinstance(op, ga.WgmmaOp):
        al, as_ = op.a_strides.get_values()
        bl, bs = op.b_strides.get_values()
        p.line(
            f"{wgmma_helper_name(op)}({p.n(op.acc)}, "
            f"aicf_wgmma_desc(&{p.n(op.a)}[{p.n(op.a_offset)}], {al}, {as_}), "
            f"aicf_wgmma_desc(&{p.n(op.b)}[{p.n(op.b_offset)}], {bl}, {bs}));"
        )
    elif isinstance(op, ga.SetMaxNRegOp):
        p.line(f"aicf_setmaxnreg_{op.action.data}<{op.count.value.data}>();")
    elif isinstance(op, ga.CpAsyncOp):
        src, pred = p.n(op.source), p.n(op.pred)
        at = p.address(op.source, list(op.indices))
        # nothing is read when the predicate is false: the base pointer stands in
        p.line(f"aicf_cp_async<{op.num_bytes}>(&{p.n(op.dest)}[{p.n(op.dest_offset)}], "
               f"{pred} ? {src} + ({at}) : {src}, {pred});")
    elif isinstance(op, ga.CpAsyncCommitOp):
        p.line("aicf_cp_async_commit();")
    elif isinstance(op, ga.CpAsyncWaitOp):
        p.line(f"aicf_cp_async_wait<{op.pending.value.data}>();")
    elif isinstance(op, ga.LdmatrixOp):
        name = f"aicf_ldmatrix_x{op.num.value.data}" + ("_trans" if op.is_trans else "")
        p.line(f"{name}(&{p.n(op.dest)}[{p.n(op.dest_offset)}], &{p.n(op.source)}[{p.n(op.source_offset)}]);")
    elif isinstance(op, ga.MmaSyncOp):
        p.line(f"aicf_mma_{op.kind.data}(&{p.n(op.acc)}[{p.n(op.acc_offset)}], &{p.n(op.a)}[{p.n(op.a_offset)}], "
               f"&{p.n(op.b)}[{p.n(op.b_offset)}]);")
    else:
        return False
    return True


def module_helpers(kernels) -> list[str]:
    """The prelude and the wgmma helpers the module's kernels need (empty when none)."""
    ops = [o for k in kernels for o in k.walk()]
    if not uses_async(ops):
        return []
    helpers: dict[str, str] = {}
    for o in ops:
        if isinstance(o, ga.WgmmaOp):
            helpers.setdefault(wgmma_helper_name(o), wgmma_helper(o))
    # the Hopper prelude only where Hopper's ops are used: an sm_80 module stays sm_80
    preludes = ([ASYNC_PRELUDE] if uses_hopper_async(ops) else []) + ([SM80_PRELUDE] if uses_sm80(ops) else [])
    return [*preludes, *helpers.values()]
