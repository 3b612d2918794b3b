"""`aicf-tune`: measure instead of predict, for the nests where it pays.

After `aicf-plan`, each nest, group or attention op whose schedule is a tunable kind
(the tensor-core matmuls: gpu.wgmma with or without its fused epilogue, gpu.mma_sync;
the flash-attention kernels, wgmma against mma.sync) and that does enough work
(`min_flops`) is tried on the GPU with the `top` configurations the cost model ranks
first, plus the library kernel when one applies: each is compiled (NVRTC, in
parallel threads) as a program of that one nest, run on random inputs (warm-up, then
the median of `reps` CUDA-event timings), and the fastest schedule replaces the
planner's. The result goes to a disk cache (backend/disk_cache.py, `tuning/`) keyed
on the nest's text (shapes, dtypes, layouts and body: the bucket is the exact
problem), the GPU's name, the schedule generator's source (a change to the kernel
builder invalidates it), `top` and the candidate set, so a later process takes it
without timing anything.

Without a GPU (or CuPy) the pass leaves the planner's choice alone. `aicf.compile`
runs it for the cuda target unless `tune=False` (or AICF_TUNE=0); `tune="auto"`, the
default, tunes nests of at least 2^31 FLOPs.

    aicf-opt prog.mlir -p 'aicf-fuse-epilogue,aicf-plan{target=gpu},aicf-tune{top=6}'
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.passes import ModulePass

from aicf.dialects.loop import AttentionOp, GroupOp, NestOp
from aicf.dialects.schedule import SCHEDULE_ATTR, Schedule, schedule_of
from aicf.progress import progress

log = logging.getLogger("aicf.plan")  # tuning decides schedules, as the planner does

# a tunable kind whose best point the model prices more than this over the best
# candidate is not timed (the model's picks are within 10-20% of measured on the
# calibration cases, bench/calibrate.py; mma.sync on the H100 prices at ~2x wgmma)
PRUNE = 1.5
TUNABLE = ("gpu.wgmma", "gpu.wgmma_epilogue", "gpu.mma_sync", "gpu.mma_sync_epilogue", "gpu.flash_attention")
LIBRARY = ("gpu.cublas_gemm",)
MIN_FLOPS = 2**31
_GENERATOR_FILES = ("passes/loop/tune.py", "lowering/gpu_schedules/wgmma.py", "lowering/gpu_schedules/wgmma_space.py",
                    "lowering/gpu_schedules/mma_sync.py", "lowering/gpu_schedules/mma_sync_space.py",
                    "backend/cuda/emit_async.py", "backend/cuda/tensor_maps.py",
                    "lowering/gpu_schedules/flash_attention.py", "backend/cuda/flash_attention.py",
                    "backend/cuda/flash_attention_wgmma.py")
STATS = {"measured": 0, "cache_hits": 0}


def _generator_hash() -> str:
    root = Path(__file__).resolve().parents[2]
    h = hashlib.sha256()
    for f in _GENERATOR_FILES:
        p = root / f
        h.update(p.read_bytes() if p.exists() else f.encode())
    return h.hexdigest()[:16]


def _name(s: Schedule) -> str:
    return s.describe(with_estimate=False)


def _flops(op) -> int:
    if isinstance(op, AttentionOp):  # two products of B x Sq x Sk x D
        lq, lk, _ = op.logical_shapes()
        batch = 1
        for e in op.output.type.get_shape()[:-2]:  # type: ignore[union-attr]
            batch *= e
        return 4 * batch * lq[-2] * lk[-2] * lq[-1]
    nest = op if isinstance(op, NestOp) else op.nests[0]
    n = 1
    for e in nest.extents:
        n *= e
    return 2 * n


def _standalone(op) -> ModuleOp:
    """A module whose @main runs `op` alone: its boundary buffers (dialects/boundary.py)
    become arguments, inputs first, then what it writes."""
    from aicf.dialects.boundary import standalone

    return standalone(op)


def _random_args(prog, rng):
    import cupy as cp

    from aicf.dtypes import numpy_dtype

    arrays = []
    for t in prog.arg_types:
        assert isinstance(t, MemRefType)
        dt = numpy_dtype(t.get_element_type())
        x = rng.standard_normal(tuple(t.get_shape())).astype(np.float32) * 0.1
        if dt == np.uint16:  # bf16 bits
            x = (x.view(np.uint32) >> 16).astype(np.uint16)
        arrays.append(cp.asarray(x.astype(dt)))
    return arrays


# calls timed back to back between two events: the steady state of a loop (a model's
# forward) where each call's host work overlaps the previous call's kernels. One call
# between events also timed the host's launch (a TMA kernel builds its tensor maps per
# call, ~30 us): the fused tanh-GELU epilogue measured 0.241 ms that way against 0.205
# back to back, and tuning took cuBLAS + a GELU kernel (0.230) over it
INNER = 4


def _time(prog, arrays, reps: int) -> float:
    import cupy as cp

    for _ in range(2):
        prog(*arrays)
    ts = []
    for _ in range(reps):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record()
        for _ in range(INNER):
            prog(*arrays)
        e.record()
        e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e) / INNER)
    return float(np.median(ts))


def _key(op, schedules: list[Schedule], gpu_name: str, top: int) -> str:
    saved = op.attributes.pop(SCHEDULE_ATTR, None)
    text = str(op)
    if saved is not None:
        op.attributes[SCHEDULE_ATTR] = saved
    h = hashlib.sha256()
    for part in (text, gpu_name, _generator_hash(), str(top), " ".join(sorted({s.kind for s in schedules}))):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


@dataclass
class Tuner:
    top: int = 6
    reps: int = 10
    min_flops: int = MIN_FLOPS

    def candidates(self, fn: func.FuncOp, op, target) -> list[Schedule]:
        from aicf.lowering.loop_to_gpu import nest_view
        from aicf.passes.loop import candidates as cands

        if isinstance(op, GroupOp):
            found = cands.wgmma_epilogue_candidates(op, target) or []
        elif isinstance(op, AttentionOp):
            from aicf.passes.loop.gpu_attention import flash_candidates

            # the kernels' points (the wgmma one's tiles, the mma.sync one's); which
            # fills the SMs better on a small batch the model does not know well
            return [c.schedule for c in flash_candidates(op, target) if c.applies]  # type: ignore[misc]
        else:
            found = cands.gpu_nest_candidates(nest_view(fn, op, 0), target)
        out: list[Schedule] = []
        # against the kinds timed here (the memory-bound kinds' models price no math)
        best = min((c.cost for c in found if c.applies and (c.kind in TUNABLE or c.kind in LIBRARY)),
                   default=float("inf"))
        for c in found:
            if not c.applies:
                continue
            if c.kind in TUNABLE and c.space is not None and c.cost > PRUNE * best:
                continue  # a kind the model prices far behind (mma.sync on Hopper): not worth its builds
            if c.kind in TUNABLE and c.space is not None:
                ranked = sorted(c.space(), key=lambda sc: sc[1])
                for s, _ in ranked:
                    if s not in out:
                        out.append(s)
                    if sum(1 for x in out if x.kind == c.kind) >= self.top:
                        break
            elif c.kind in LIBRARY or (isinstance(op, GroupOp) and c.kind == "gpu.members"):
                out.append(c.schedule)  # type: ignore[arg-type]
        return out

    def measure(self, op, schedules: list[Schedule]) -> list[tuple[float, Schedule]]:
        from aicf.backend.cuda.program import CudaProgram

        def build(s: Schedule):
            mod = _standalone(op)
            inner = next(o for o in mod.walk() if type(o) is type(op))
            inner.attributes[SCHEDULE_ATTR] = s.to_attr()
            try:
                prog = CudaProgram(mod, "main", sync="none")
                prog._load()  # NVRTC, off the timing thread
                return prog
            except Exception as e:  # a configuration that does not build is not a candidate
                log.info("tune: %s does not build: %s", s.describe(), e)
                return None

        with ThreadPoolExecutor(max_workers=4) as pool:
            progs = list(pool.map(build, schedules))
        rng = np.random.default_rng(0)
        results = []
        arrays = None
        for s, prog in zip(schedules, progs):
            if prog is None:
                continue
            if arrays is None:
                arrays = _random_args(prog, rng)
            try:
                results.append((_time(prog, arrays, self.reps), s))
            except Exception as e:
                log.info("tune: %s fails to run: %s", s.describe(), e)
        STATS["measured"] += len(results)
        return sorted(results, key=lambda r: r[0])

    def tune(self, fn: func.FuncOp, op, target) -> None:
        from aicf.backend import disk_cache

        s = schedule_of(op)
        if s is None or _flops(op) < self.min_flops:
            return
        if s.kind not in TUNABLE and s.kind not in LIBRARY and not (isinstance(op, GroupOp) and s.kind == "gpu.members"):
            return
        schedules = self.candidates(fn, op, target)
        if len(schedules) < 2 or not any(x.kind in TUNABLE for x in schedules):
            return
        key = _key(op, schedules, target.name, self.top)
        hit = disk_cache.lookup("tuning", key, ".json")
        if hit is not None:
            best = _cached_choice(hit, schedules)
            if best is not None:
                STATS["cache_hits"] += 1
                op.attributes[SCHEDULE_ATTR] = best.to_attr()
                return
        t0 = time.perf_counter()
        timed = self.measure(op, schedules)
        if not timed:
            return
        ms, best = timed[0]
        log.info("tune: %s in %.3f ms (%d candidates, %.1f s)", best.describe(), ms, len(timed),
                 time.perf_counter() - t0)
        record = {"schedule": _name(best), "ms": ms, "timed": [{"schedule": _name(x), "ms": t} for t, x in timed]}
        disk_cache.store("tuning", key, ".json", json.dumps(record).encode())
        op.attributes[SCHEDULE_ATTR] = best.to_attr()


def _cached_choice(entry, schedules: list[Schedule]) -> Schedule | None:
    """The schedule a tuning record names, if it is one of `schedules`; a record that
    is not one (another version's format, a hand edit) is removed and tuned again."""
    from aicf.backend import disk_cache

    try:
        name = json.loads(entry.read_bytes())["schedule"]
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        disk_cache.remove(entry)
        return None
    return next((x for x in schedules if _name(x) == name), None)


def gpu_available() -> bool:
    try:
        import cupy as cp

        return cp.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


@dataclass(frozen=True)
class TunePass(ModulePass):
    """Time the top candidates of tunable nests on the GPU and keep the fastest."""

    name = "aicf-tune"

    top: int = 6
    reps: int = 10
    min_flops: int = MIN_FLOPS
    matmul_precision: str = ""  # as aicf-plan's: the candidates are the planner's

    def __post_init__(self) -> None:
        # checked when the pipeline is built, as aicf-plan's options: a bad value is an
        # error of the pipeline, not an internal error once the pass runs
        from aicf.math_precision import MATMUL_PRECISIONS

        if self.top < 1 or self.reps < 1 or self.min_flops < 0:
            raise ValueError(f"top and reps must be >= 1 and min_flops >= 0 "
                             f"(top={self.top}, reps={self.reps}, min_flops={self.min_flops})")
        if self.matmul_precision and self.matmul_precision not in MATMUL_PRECISIONS:
            raise ValueError(f"matmul_precision must be one of {', '.join(MATMUL_PRECISIONS)}, "
                             f"got '{self.matmul_precision}'")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from aicf.math_precision import planning_precision

        with planning_precision(self.matmul_precision):
            self._apply(op)

    def _apply(self, op: ModuleOp) -> None:
        from aicf.target import resolve_gpu_target

        if not gpu_available():
            log.info("tune: no GPU, the planner's choices stand")
            return
        target = resolve_gpu_target("gpu")
        tuner = Tuner(self.top, self.reps, self.min_flops)
        work = [(fn, o) for fn in op.ops if isinstance(fn, func.FuncOp) for o in list(fn.walk())
                if isinstance(o, GroupOp | AttentionOp)
                or (isinstance(o, NestOp) and not isinstance(o.parent_op(), GroupOp))]
        with progress("tuning nests and groups", total=len(work)) as shown:
            for fn, o in work:
                tuner.tune(fn, o, target)
                shown.advance()

