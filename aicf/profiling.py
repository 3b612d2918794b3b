"""`with aicf.profiler() as prof:` records the work of aicf programs run inside the
block, on both targets:

- cuda: every kernel launch (and library call): kernel name, grid/block, time (CUDA
  events around the launch);
- cpu: every step of the compiled C function (one per loop nest, fused group, gather
  or copy: backend/c/emit.py), timed with clock_gettime around its call in a profiled
  build of the program (backend/c/profile.py; built once, used only while profiling).

Each record has the bytes the work must move and the FLOPs it must do (cuda: the
kernel's `aicf.bytes`/`aicf.flops`; cpu: aicf/cost/counts.py, the same rule), and so
the achieved GB/s and TFLOP/s. `prof.table()` prints them, `prof.to_chrome_trace(path)`
writes a trace Perfetto (ui.perfetto.dev) or chrome://tracing opens, and
`prof.roofline(path)` plots achieved FLOP/s and bandwidth against the target's roofs
(aicf/target.py; matplotlib, `pip install 'aicf[plot]'`). `exe.profile(*arrays)` runs
an Executable under a profiler and returns it.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from aicf.errors import AicfError

_ACTIVE: list["Profiler"] = []


@dataclass
class LaunchRecord:
    """One kernel launch (cuda) or one step of a C function (cpu)."""

    kernel: str
    grid: tuple
    block: tuple
    smem: int
    nbytes: int
    flops: int
    start: object = None
    end: object = None
    ms: float = float("nan")
    target: str = "cuda"
    begin_us: float = float("nan")
    """Start on the trace's clock: µs since the profiler began (cpu), or since the
    first launch recorded (cuda, on the GPU's clock)."""

    @property
    def gbps(self) -> float:
        return self.nbytes / (self.ms * 1e-3) / 1e9 if self.ms > 0 else float("nan")

    @property
    def tflops(self) -> float:
        return self.flops / (self.ms * 1e-3) / 1e12 if self.ms > 0 else float("nan")


def step_name(entry: str, k: int, op) -> str:
    """`@entry#k nest 64x128` (a cpu step: its function, index, op and domain)."""
    from aicf.dialects.loop import GroupOp, NestOp

    what = op.name.split(".")[-1]
    if isinstance(op, NestOp):
        what += " " + "x".join(map(str, op.extents))
    elif isinstance(op, GroupOp):
        what += f" {len(op.nests)} nests " + "x".join(map(str, op.shared_extents))
    return f"@{entry}#{k} {what}"


@dataclass
class Profiler:
    records: list[LaunchRecord] = field(default_factory=list)
    started_ns: int = field(default_factory=time.monotonic_ns)

    def __enter__(self) -> "Profiler":
        self.started_ns = time.monotonic_ns()
        _ACTIVE.append(self)
        return self

    def __exit__(self, *exc) -> None:
        _ACTIVE.remove(self)
        self.finish()

    # --- recording (called by the runtimes) ----------------------------------------

    def begin(self, rec: LaunchRecord, stream) -> None:
        import cupy as cp

        rec.start, rec.end = cp.cuda.Event(), cp.cuda.Event()
        rec.start.record(stream)
        self.records.append(rec)

    def end(self, rec: LaunchRecord, stream) -> None:
        rec.end.record(stream)  # type: ignore[union-attr]

    def add_steps(self, entry: str, ops: Sequence, times_ns: Sequence[tuple[int, int]]) -> None:
        """The steps of one call of a cpu function: their ops and (start, end) times
        on time.monotonic_ns's clock."""
        from aicf.cost.counts import step_counts

        for k, (op, (t0, t1)) in enumerate(zip(ops, times_ns)):
            nbytes, flops = step_counts(op)
            self.records.append(LaunchRecord(
                step_name(entry, k, op), (), (), 0, nbytes, flops, ms=(t1 - t0) / 1e6,
                target="cpu", begin_us=(t0 - self.started_ns) / 1e3,
            ))  # fmt: skip

    def finish(self) -> None:
        cuda = [r for r in self.records if r.target == "cuda" and r.start is not None]
        if not cuda:  # nothing launched on the GPU: no CuPy needed
            return
        import cupy as cp

        first = cuda[0].start
        for r in cuda:
            if r.ms != r.ms:
                r.end.synchronize()  # type: ignore[union-attr]
                r.ms = cp.cuda.get_elapsed_time(r.start, r.end)
                r.begin_us = cp.cuda.get_elapsed_time(first, r.start) * 1e3

    # --- reports ----------------------------------------------------------------------

    def table(self) -> str:
        """One line per record: name, grid and block (cuda), ms, MB moved, achieved
        GB/s and TFLOP/s; a line saying so when nothing ran."""
        self.finish()
        head = f"{'kernel or nest':40} {'grid':>16} {'block':>14} {'ms':>9} {'MB':>9} {'GB/s':>8} {'TFLOP/s':>8}"
        lines = [head, "-" * len(head)]
        if not self.records:
            lines.append("(nothing ran inside the profiler: no aicf program was called in the block)")
        for r in self.records:
            grid = str(list(r.grid)) if r.grid else "-"
            block = str(list(r.block)) if r.block else "-"
            lines.append(
                f"{r.kernel[:40]:40} {grid:>16} {block:>14} "
                f"{r.ms:9.4f} {r.nbytes / 1e6:9.2f} {r.gbps:8.1f} {r.tflops:8.3f}"
            )
        return "\n".join(lines)

    def to_chrome_trace(self, path: str | Path | None = None) -> dict:
        """The records as a Chrome trace (the Trace Event Format's complete events,
        one track per target), written as JSON to `path` if given; Perfetto
        (ui.perfetto.dev) and chrome://tracing open it."""
        self.finish()
        events: list[dict] = []
        for pid, target in enumerate(("cpu", "cuda")):
            mine = [r for r in self.records if r.target == target]
            if not mine:
                continue
            label = "aicf cpu (nests)" if target == "cpu" else "aicf cuda (kernels, GPU clock)"
            events.append({"name": "process_name", "ph": "M", "pid": pid, "tid": 0,
                           "args": {"name": label}})  # fmt: skip
            for r in mine:
                args = {"bytes": r.nbytes, "flops": r.flops, "GB/s": _finite(r.gbps),
                        "TFLOP/s": _finite(r.tflops)}  # fmt: skip
                if r.grid:
                    args.update(grid=list(r.grid), block=list(r.block), smem=r.smem)
                events.append({"name": r.kernel, "cat": "nest" if target == "cpu" else "kernel",
                               "ph": "X", "pid": pid, "tid": 0, "ts": _finite(r.begin_us, 0.0),
                               "dur": _finite(r.ms * 1e3, 0.0), "args": args})  # fmt: skip
        trace = {"traceEvents": events, "displayTimeUnit": "ms"}
        if path is not None:
            try:
                Path(path).write_text(json.dumps(trace, indent=1))
            except OSError as e:
                raise _write_error("the Chrome trace", path, e) from None
        return trace

    def roofline(self, path: str | Path, target=None) -> Path:
        """A roofline plot (PNG) of the records: left, achieved FLOP/s against
        arithmetic intensity (FLOPs per byte) under the target's roofs, min(peak
        FLOP/s, intensity x bandwidth); right, achieved bandwidth of every record
        against the bandwidth roof. `target` is an aicf.target description (default:
        this host's CPU for cpu records, the GPU's for cuda ones). Needs matplotlib
        (`pip install 'aicf[plot]'`)."""
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            raise ImportError("Profiler.roofline needs matplotlib: pip install 'aicf[plot]'") from None
        from aicf.target import resolve_target

        self.finish()
        timed = [r for r in self.records if r.ms > 0]
        if target is None:
            target = resolve_target("gpu" if any(r.target == "cuda" for r in timed) else "cpu")
        bw, peak = target.dram_bandwidth, target.fp32_flops
        fig, (ax, bx) = plt.subplots(1, 2, figsize=(13, 5))
        lo, hi = 1 / 64, 1024.0
        xs = [lo * (hi / lo) ** (i / 200) for i in range(201)]
        ax.loglog(xs, [min(peak, x * bw) for x in xs], "k-",
                  label=f"roof: {bw / 1e9:.0f} GB/s, {peak / 1e12:.2f} TFLOP/s fp32")  # fmt: skip
        extra = [(n, getattr(target, n)) for n in ("tf32_flops", "fp16_flops") if hasattr(target, n)]
        for name, rate in extra:
            ax.loglog(xs, [min(rate, x * bw) for x in xs], "k:", lw=0.8,
                      label=f"{name.split('_')[0]} roof: {rate / 1e12:.0f} TFLOP/s")  # fmt: skip
        for r in timed:
            if r.flops > 0 and r.nbytes > 0:
                ax.loglog([r.flops / r.nbytes], [r.flops / (r.ms * 1e-3)], "o", label=r.kernel[:48])
        ax.set_xlabel("arithmetic intensity (FLOP / byte)")
        ax.set_ylabel("achieved FLOP/s")
        ax.set_title(f"roofline on {target.name}")
        ax.legend(fontsize=6, loc="lower right")
        names = [r.kernel[:32] for r in timed]
        bx.barh(range(len(timed)), [r.nbytes / (r.ms * 1e-3) / 1e9 for r in timed])
        bx.axvline(bw / 1e9, color="k", label=f"roof: {bw / 1e9:.0f} GB/s")
        bx.set_yticks(range(len(timed)), names, fontsize=6)
        bx.invert_yaxis()
        bx.set_xlabel("achieved bandwidth (GB/s)")
        bx.set_title("bandwidth per " + ("kernel" if any(r.target == "cuda" for r in timed) else "nest"))
        bx.legend(fontsize=7)
        fig.tight_layout()
        path = Path(path)
        try:
            fig.savefig(path, dpi=110)
        except OSError as e:
            raise _write_error("the roofline plot", path, e) from None
        finally:
            plt.close(fig)
        return path


def _write_error(what: str, path, e: OSError) -> AicfError:
    return AicfError(f"cannot write {what} to {str(path)!r}: {e.strerror or e}")


def _finite(x: float, default=None):
    return x if isinstance(x, int | float) and math.isfinite(x) else default


def profiler() -> Profiler:
    """A context manager recording the work of aicf programs run inside it: each
    kernel launch on the cuda target, each loop nest (step) on the cpu target."""
    return Profiler()


def active() -> Profiler | None:
    return _ACTIVE[-1] if _ACTIVE else None
