"""`aicf-run`: run a program on random inputs and check it against the NumPy reference.

    aicf-run FILE|- [--target cpu|cuda|auto] [--entry NAME] [--seed N] [--repeat N]

Inputs are standard-normal (seeded) in each argument's dtype. The outputs are compared
with `aicf.reference` (the tensor level interpreted in float64); printed per output:
max abs error, relative error ||out - ref|| / ||ref||, and the median run time. The exit
code is 1 if an error exceeds the tolerance of its dtype (aicf.testing: f32 1e-5, 1e-4 for
programs with a matmul; f16 1e-2 and bf16 5e-2, i.e. their precision over a chain of
ops; f64 1e-12), or if an output has a NaN where the reference has none. `--target
auto` (the default) runs on CUDA when CuPy sees a GPU, else on the cpu. FILE `-` is
stdin, as for aicf-opt. A malformed or invalid program prints its diagnostic and exits
1, without a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence

import numpy as np

MATMUL_TOLERANCE_F32 = 1e-4
# The most timed runs --repeat takes: the median is steady long before, and a mistyped
# count (10**12) would otherwise run for days, keeping every time in memory.
MAX_REPEAT = 10_000
STDIN = "-"


def _gpu_available() -> bool:
    try:
        import cupy  # type: ignore[import-not-found]

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def _random_inputs(exe, rng: np.random.Generator) -> list[np.ndarray]:
    from aicf.reference import round_bf16

    from aicf.errors import ArgumentError, OutOfMemory

    out = []
    for spec in exe.inputs:
        if len(spec.shape) > 64:  # NumPy's limit on an array's dims
            raise ArgumentError(f"{spec.name} has {len(spec.shape)} dims: NumPy arrays (the random inputs "
                                "aicf-run makes) have at most 64")
        try:
            x = rng.standard_normal(spec.shape)
        except MemoryError:  # drawn in float64 (NumPy's raw _ArrayMemoryError and traceback)
            nbytes = int(np.prod(spec.shape, dtype=object)) * 8
            raise OutOfMemory(f"@{exe.entry}: the random input {spec.name} ({'x'.join(map(str, spec.shape)) or 'scalar'}, "
                              f"{nbytes / 2**30:.1f} GiB drawn in float64) does not fit in this machine's memory") from None
        if spec.dtype.kind in "iu" and spec.dtype != np.uint16:
            out.append(np.round(x * 4).astype(spec.dtype))
        elif spec.dtype == np.uint16:  # bf16 bits
            f = round_bf16(x).astype(np.float32)
            out.append((f.view(np.uint32) >> 16).astype(np.uint16))
        else:
            out.append(x.astype(spec.dtype))
    return out


def _to_f64(a, spec) -> np.ndarray:
    from aicf.reference import bf16_bits_to_f64

    if hasattr(a, "get"):  # CuPy
        a = a.get()
    a = np.asarray(a)
    if spec.mlir_type.endswith("xbf16>") or spec.mlir_type.endswith("<bf16>"):
        if a.dtype == np.uint16:
            return bf16_bits_to_f64(a)
    return a.astype(np.float64)


def _time_runs(exe, inputs, target: str, repeat: int) -> list[float]:
    """Seconds per run after a warm-up. On cuda the inputs are moved to the device
    first (so host copies stay out of the time) and each run is timed with CUDA
    events; on cpu with the host clock."""
    if target == "cuda":
        import cupy  # type: ignore[import-not-found]

        dev = [cupy.asarray(a) for a in inputs]
        exe(*dev)
        times = []
        for _ in range(repeat):
            start, end = cupy.cuda.Event(), cupy.cuda.Event()
            start.record()
            exe(*dev)
            end.record()
            end.synchronize()
            times.append(cupy.cuda.get_elapsed_time(start, end) * 1e-3)
        return times
    exe(*inputs)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        exe(*inputs)
        times.append(time.perf_counter() - t0)
    return times


def _check_runnable(module, entry: str | None, name: str) -> None:
    """aicf-run makes random inputs for a tensor-level entry with static shapes."""
    from xdsl.dialects.builtin import TensorType
    from xdsl.dialects.func import FuncOp

    from aicf.compiler import is_tensor_level, _select_entry
    from aicf.diagnostics import op_error
    from aicf.dialects.shape_rules import DYN
    from aicf.errors import CompileError

    if not any(isinstance(op, FuncOp) for op in module.ops):  # an empty file, or comments only
        raise CompileError(f"{name}: error: no function to run: the input has no func.func")
    try:
        func = _select_entry(module, entry, how="--entry NAME")
    except CompileError as e:  # it said `entry=`, aicf.compile's spelling, without the file
        raise CompileError(f"{name}: error: {e}") from None
    if not is_tensor_level(module):
        first = next((op for op in func.body.walk() if op is not func), func)
        raise op_error(first, "is below the tensor level: aicf-run runs tensor-level "
                       "programs (aicf.compile takes this level from Python)")  # fmt: skip
    dynamic = [
        f"%{a.name_hint or i}: {a.type}" for i, a in enumerate(func.args)
        if isinstance(a.type, TensorType) and DYN in a.type.get_shape()
    ]  # fmt: skip
    if dynamic:
        raise op_error(func, "has dynamic extents (" + ", ".join(dynamic) + "): aicf-run "
                       "needs static shapes to make its random inputs")  # fmt: skip


def _at_least(low: int, high: int | None = None):
    """An argparse type: an int >= low, and <= high if given (NumPy's seeding raised
    from deep inside on a negative seed; --repeat 0 ran once anyway)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be >= {low}, got {value}")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"must be <= {high}, got {value}")
        return value

    return parse


def _read_source(path: str) -> bytes | None:
    """The program's bytes (stdin for `-`), or None after printing why not."""
    if path == STDIN:
        if sys.stdin is None:  # started with stdin closed
            print("aicf-run: cannot read the program from standard input: it is closed", file=sys.stderr)
            return None
        try:
            return sys.stdin.buffer.read()
        except OSError as e:
            print(f"aicf-run: cannot read the program from standard input: {e.strerror or e}", file=sys.stderr)
            return None
    try:
        if os.path.exists(path) and not os.path.isfile(path):
            print(f"aicf-run: cannot read {path}: not a regular file", file=sys.stderr)
            return None
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        print(f"aicf-run: cannot read {path}: {e.strerror}", file=sys.stderr)
        return None


def main(argv: Sequence[str] | None = None) -> int:
    from importlib.metadata import version

    from aicf import __version__

    summary, _usage, details = __doc__.split("\n\n")
    p = argparse.ArgumentParser(
        prog="aicf-run",
        description=f"{summary}\n\n{details}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", help="a .mlir file at the tensor level ('-': stdin)")
    p.add_argument("--target", choices=("cpu", "cuda", "auto"), default="auto",
                   help="where to run it (auto: cuda if CuPy sees a GPU, else cpu)")  # fmt: skip
    p.add_argument("--entry", default=None, help="function to run (default: the only one)")
    p.add_argument("--seed", type=_at_least(0), default=0, help="of the random inputs (>= 0)")
    p.add_argument("--repeat", type=_at_least(1, MAX_REPEAT), default=5,
                   help=f"timed runs, 1 to {MAX_REPEAT} (the median is printed; more runs "
                   "than that only take longer, the median is steady long before)")  # fmt: skip
    p.add_argument("--version", action="version",
                   version=f"aicf-run {__version__} (xdsl {version('xdsl')})")  # fmt: skip
    args = p.parse_args(argv)

    import aicf
    from aicf.context import make_context
    from aicf.diagnostics import NESTED_TOO_DEEPLY, decode_source, parse_module
    from aicf.errors import AicfError
    from aicf.reference import evaluate
    from aicf.compiler import run_pipeline

    target = args.target
    if target == "auto":
        target = "cuda" if _gpu_available() else "cpu"
    name = "<stdin>" if args.file == STDIN else args.file  # as aicf-opt names stdin
    try:
        data = _read_source(args.file)
        if data is None:
            return 1
        tensor_module = parse_module(make_context(), decode_source(data, name), name)
        _check_runnable(tensor_module, args.entry, name)
        run_pipeline(tensor_module, ["aicf-infer-shapes"])
        exe = aicf.compile(tensor_module, target=target, entry=args.entry)
        inputs = _random_inputs(exe, np.random.default_rng(args.seed))
        outs = exe(*inputs)
        outs = outs if isinstance(outs, tuple) else (outs,)
        refs = evaluate(tensor_module, exe.entry, *inputs)
        times = _time_runs(exe, inputs, target, args.repeat)
    except AicfError as e:
        print(str(e).rstrip(), file=sys.stderr)
        return 1
    except RecursionError:
        print(f"error: {NESTED_TOO_DEEPLY}", file=sys.stderr)
        return 1
    except MemoryError:  # the float64 reference (inputs and outputs that fit can still need it)
        print(f"{name}: error: the program's inputs, outputs or float64 reference do not fit in this "
              "machine's memory", file=sys.stderr)
        return 1
    has_matmul = any(op.name == "aicf_tensor.matmul" for op in tensor_module.walk())
    ok = True
    print(f"{name}: @{exe.entry} on {target}, seed {args.seed}")
    for i, (o, ref, spec) in enumerate(zip(outs, refs, exe.outputs)):
        o64 = _to_f64(o, spec)
        ref = np.asarray(ref, np.float64)
        if spec.dtype.kind == "f" and not spec.is_bf16:
            # a float64 reference past the output type's range is that type's infinity
            with np.errstate(over="ignore"):
                ref = np.where(np.abs(ref) > np.finfo(spec.dtype).max, ref.astype(spec.dtype), ref).astype(np.float64)
        # equal infinities agree (inf - inf would be NaN)
        same = o64 == ref
        o64, ref = np.where(same, 0.0, o64), np.where(same, 0.0, ref)
        both_nan = np.isnan(o64) & np.isnan(ref)
        bad_nan = int(np.count_nonzero(np.isnan(o64) != np.isnan(ref)))
        diff = np.where(both_nan, 0.0, o64 - np.where(both_nan, 0.0, ref))
        finite_ref = np.where(np.isnan(ref), 0.0, ref)
        max_abs = float(np.nanmax(np.abs(diff))) if diff.size else 0.0
        nref = float(np.linalg.norm(finite_ref))
        rel = float(np.linalg.norm(np.nan_to_num(diff, nan=np.inf))) / nref if nref else max_abs
        from aicf.testing import default_tolerance

        tolerance = default_tolerance("bf16" if spec.is_bf16 else spec.dtype.name)
        tol = tolerance.rtol if tolerance is not None else 1e-5
        if has_matmul and spec.dtype == np.float32:
            tol = MATMUL_TOLERANCE_F32
        passed = bad_nan == 0 and rel <= tol
        ok &= passed
        print(
            f"  output #{i} {spec.dtype.name}{list(spec.shape)}: max abs err {max_abs:.3e}, rel err {rel:.3e} "
            f"(tol {tol:.0e}){'' if bad_nan == 0 else f', {bad_nan} NaN mismatches'} "
            f"{'ok' if passed else 'FAIL'}"
        )
    print(f"  time: median {np.median(times) * 1e3:.3f} ms over {len(times)} runs")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
