"""The gate's child process: runs an external kernel on guarded buffers, and the
kernel against the compiler's own one, where a crash or a hang hurts nobody.

    python -m aicf.kernels.sandbox JOBDIR

JOBDIR/job.json says what to run (written by aicf/kernels/gate.py); each case's
argument buffers (aicf/kernels/buffers.py: guard zones around every operand) are
.npy files beside it. The child runs the cases in order, each kernel call under a
time limit (SIGALRM with its default action ends the process: a kernel stuck in a
loop cannot catch it), saves every buffer back (`r<case>_a<arg>.npy`, the
workspace as `r<case>_ws.npy`), and reports progress as JSON lines on stdout:
{"event": "start", "case": k}, {"event": "done", "case": k, "rc": ...}, then
{"event": "bench", "ext_s": [...], "own_s": [...]}. It decides nothing: the parent
compares the buffers with the reference and the times with each other.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import signal
import sys
import time
from pathlib import Path

import numpy as np

from aicf.kernels.buffers import GUARD_BYTES, aligned_copy, element_view, guarded_workspace


def emit(event: dict) -> None:
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


@contextlib.contextmanager
def time_limit(seconds: float):
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _view(buf, arg: dict) -> np.ndarray:
    return element_view(buf, arg["dtype"], arg["shape"], arg["strides"])


# --- cpu ------------------------------------------------------------------------------------


class AicfTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("rank", ctypes.c_int64),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64))]


def _c_call(fn, bufs, args, ws):
    n = len(args)
    tensors = (AicfTensor * max(n, 1))()
    keep = []
    for i, (b, a) in enumerate(zip(bufs, args)):
        r = len(a["shape"])
        shape = (ctypes.c_int64 * max(r, 1))(*a["shape"])
        strides = (ctypes.c_int64 * max(r, 1))(*a["strides"])
        keep += [shape, strides]
        tensors[i] = AicfTensor(b.ctypes.data + GUARD_BYTES, r, shape, strides)
    wptr = ws.ctypes.data + GUARD_BYTES if ws is not None else None
    return fn(tensors, n, wptr)


def run_cpu(job: dict, jobdir: Path) -> None:
    lib = ctypes.CDLL(job["kernel"]["library"])
    fn = getattr(lib, job["kernel"]["symbol"])
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.POINTER(AicfTensor), ctypes.c_int64, ctypes.c_void_p]
    limit = job["run_limit_s"]
    for k, case in enumerate(job["cases"]):
        emit({"event": "start", "case": k})
        bufs = [aligned_copy(np.load(jobdir / a["file"])) for a in case["args"]]
        ws = guarded_workspace(case["workspace"]) if case["workspace"] else None
        with time_limit(limit):
            rc = _c_call(fn, bufs, case["args"], ws)
        for i, b in enumerate(bufs):
            np.save(jobdir / f"r{k}_a{i}.npy", b)
        if ws is not None:
            np.save(jobdir / f"r{k}_ws.npy", ws)
        emit({"event": "done", "case": k, "rc": int(rc)})
    bench = job.get("bench")
    if bench is None:
        return
    from aicf.backend.c.runtime import CpuProgram
    from aicf.context import make_context
    from aicf.diagnostics import parse_module

    own = CpuProgram(parse_module(make_context(), bench["own_module"], "<own kernel>"), "main")
    case = job["cases"][bench["case"]]
    bufs = [aligned_copy(np.load(jobdir / a["file"])) for a in case["args"]]
    views = [_view(b, a) for b, a in zip(bufs, case["args"])]
    ins = [np.ascontiguousarray(views[k]) for k in bench["own_inputs"]]
    outs = [np.empty_like(views[k]) for k in bench["own_outputs"]]
    ws = guarded_workspace(case["workspace"]) if case["workspace"] else None

    def ext():
        _c_call(fn, bufs, case["args"], ws)

    def mine():
        own.run(ins, outs)

    _bench(ext, mine, bench, limit, _wall)


def _bench(ext, own, bench: dict, limit: float, clock) -> None:
    """Alternate the two, each call timed and under the time limit, until `max_s` has
    passed and each ran `min_reps` times; medians are the parent's business."""
    ext_s: list[float] = []
    own_s: list[float] = []
    with time_limit(limit):
        ext()
    with time_limit(limit):
        own()
    start = time.perf_counter()
    while len(ext_s) < bench["max_reps"] and (len(ext_s) < bench["min_reps"] or time.perf_counter() - start < bench["max_s"]):
        for f, out in ((ext, ext_s), (own, own_s)):
            with time_limit(limit):
                out.append(clock(f))
    emit({"event": "bench", "ext_s": ext_s, "own_s": own_s})


def _wall(f) -> float:
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


# --- cuda -----------------------------------------------------------------------------------


def run_cuda(job: dict, jobdir: Path) -> None:
    import cupy as cp

    kern = job["kernel"]
    fn = cp.RawModule(path=kern["cubin"]).get_function(kern["entry"])
    limit = job["run_limit_s"]
    stream = cp.cuda.Stream(non_blocking=True)

    def launch(dbufs, args, dws, grid, block, smem):
        params = [d[GUARD_BYTES:] for d in dbufs]
        for a in args:
            params += [np.int64(e) for e in a["shape"]]
            params += [np.int64(s) for s in a["strides"]]
        if dws is not None:
            params.append(dws[GUARD_BYTES:])
        if smem > 48 * 1024:
            fn.max_dynamic_shared_size_bytes = smem
        fn(tuple(grid), tuple(block), tuple(params), shared_mem=smem, stream=stream)

    for k, case in enumerate(job["cases"]):
        emit({"event": "start", "case": k})
        # the copies go on the kernel's stream: a non-blocking stream does not wait for the
        # null stream's, and a copy from pageable memory may return before it lands
        with stream:
            dbufs = [cp.asarray(np.load(jobdir / a["file"])) for a in case["args"]]
            dws = cp.asarray(guarded_workspace(case["workspace"])) if case["workspace"] else None
        grid, block, smem = case["launch"]
        try:
            with time_limit(limit):
                if 0 not in grid:  # nothing to launch for an empty grid
                    launch(dbufs, case["args"], dws, grid, block, smem)
                stream.synchronize()
        except (cp.cuda.driver.CUDADriverError, cp.cuda.runtime.CUDARuntimeError) as e:
            emit({"event": "done", "case": k, "error": f"{type(e).__name__}: {e}"})
            return  # the context is lost after a fault: nothing more can run
        for i, d in enumerate(dbufs):
            np.save(jobdir / f"r{k}_a{i}.npy", cp.asnumpy(d, stream=stream))
        if dws is not None:
            np.save(jobdir / f"r{k}_ws.npy", cp.asnumpy(dws, stream=stream))
        emit({"event": "done", "case": k, "rc": 0})
    bench = job.get("bench")
    if bench is None:
        return
    from aicf.backend.cuda.program import CudaProgram
    from aicf.context import make_context
    from aicf.diagnostics import parse_module

    own = CudaProgram(parse_module(make_context(), bench["own_module"], "<own kernel>"), "main", sync="none")
    case = job["cases"][bench["case"]]
    host = [np.load(jobdir / a["file"]) for a in case["args"]]
    views = [_view(h, a) for h, a in zip(host, case["args"])]
    with stream:
        dbufs = [cp.asarray(h) for h in host]
        dws = cp.asarray(guarded_workspace(case["workspace"])) if case["workspace"] else None
        ins = [cp.asarray(np.ascontiguousarray(views[k])) for k in bench["own_inputs"]]
        outs = [cp.empty(views[k].shape, views[k].dtype) for k in bench["own_outputs"]]
    stream.synchronize()
    grid, block, smem = case["launch"]

    def timed(f) -> float:
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record(stream)
        f()
        e.record(stream)
        e.synchronize()
        return cp.cuda.get_elapsed_time(s, e) * 1e-3

    def ext():
        launch(dbufs, case["args"], dws, grid, block, smem)

    def mine():
        with stream:
            own(*ins, *outs)

    _bench(ext, mine, bench, limit, timed)


def main(argv: list[str]) -> int:
    jobdir = Path(argv[1])
    job = json.loads((jobdir / "job.json").read_text())
    if job["target"] == "cpu":
        run_cpu(job, jobdir)
    else:
        run_cuda(job, jobdir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
