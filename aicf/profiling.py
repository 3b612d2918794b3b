"""`with aicf.profiler() as prof:` records every kernel launch of aicf programs run
inside the block: kernel name, grid/block, time (CUDA events around the launch),
bytes moved and flops (from the kernel's `aicf.bytes`/`aicf.flops`, the fewest the
nest must move/do), and so the achieved GB/s and TFLOP/s. `prof.table()` prints them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

_ACTIVE: list["Profiler"] = []


@dataclass
class LaunchRecord:
    kernel: str
    grid: tuple
    block: tuple
    smem: int
    nbytes: int
    flops: int
    start: object = None
    end: object = None
    ms: float = float("nan")

    @property
    def gbps(self) -> float:
        return self.nbytes / (self.ms * 1e-3) / 1e9 if self.ms > 0 else float("nan")

    @property
    def tflops(self) -> float:
        return self.flops / (self.ms * 1e-3) / 1e12 if self.ms > 0 else float("nan")


@dataclass
class Profiler:
    records: list[LaunchRecord] = field(default_factory=list)

    def __enter__(self) -> "Profiler":
        _ACTIVE.append(self)
        return self

    def __exit__(self, *exc) -> None:
        _ACTIVE.remove(self)
        self.finish()

    def begin(self, rec: LaunchRecord, stream) -> None:
        import cupy as cp

        rec.start, rec.end = cp.cuda.Event(), cp.cuda.Event()
        rec.start.record(stream)
        self.records.append(rec)

    def end(self, rec: LaunchRecord, stream) -> None:
        rec.end.record(stream)  # type: ignore[union-attr]

    def finish(self) -> None:
        if not self.records:  # nothing launched (the cpu target, or no call): no CuPy
            return
        import cupy as cp

        for r in self.records:
            if r.end is not None and r.ms != r.ms:
                r.end.synchronize()  # type: ignore[union-attr]
                r.ms = cp.cuda.get_elapsed_time(r.start, r.end)

    def table(self) -> str:
        self.finish()
        head = f"{'kernel':40} {'grid':>16} {'block':>14} {'ms':>9} {'MB':>9} {'GB/s':>8} {'TFLOP/s':>8}"
        lines = [head, "-" * len(head)]
        for r in self.records:
            lines.append(
                f"{r.kernel[:40]:40} {str(list(r.grid)):>16} {str(list(r.block)):>14} "
                f"{r.ms:9.4f} {r.nbytes / 1e6:9.2f} {r.gbps:8.1f} {r.tflops:8.3f}"
            )
        return "\n".join(lines)


def profiler() -> Profiler:
    """A context manager recording the CUDA launches of aicf programs run inside it
    (the cpu target launches none)."""
    return Profiler()


def active() -> Profiler | None:
    return _ACTIVE[-1] if _ACTIVE else None
