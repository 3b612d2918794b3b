"""`aicf.compile`: MLIR text, a .mlir path or a ModuleOp -> an `Executable`.

The pipeline: parse (with file:line:col locations) -> `aicf-infer-shapes` ->
`aicf-lower-to-loops` -> `aicf-plan` (schedules) -> the target's backend (C built with the system compiler for
"cpu", CUDA through `aicf.backend.cuda.program` for "cuda"). A module already at the
loop level (memref arguments, `aicf.num_outputs`) goes straight to the backend.
"""

from __future__ import annotations

import logging
import os
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    MemRefType,
    ModuleOp,
    NoneAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from aicf.backend import disk_cache
from aicf.context import make_context
from aicf.diagnostics import decode_source, ir_snapshot, op_error, parse_module, verify_module
from aicf.dtypes import as_bf16_bits, numpy_dtype
from aicf.errors import AicfError, ArgumentError, CompileError, OutOfMemory
from aicf.gc_pause import fewer_collections
from aicf.interop import as_array
from aicf.logs import getLogger
from aicf.lru import LruCache
from aicf import program_cache
from aicf.progress import progress
from aicf.program_cache import LazyModule, module_of

_compile_log = getLogger("compile")
_passes_log = getLogger("passes")
_plan_log = getLogger("plan")
_cache_log = getLogger("cache")

TENSOR_PIPELINE: list[str] = [
    "aicf-infer-shapes",
    "canonicalize",  # our patterns and constant folding, through xDSL's driver
    "cse",
    "aicf-cleanup-reshapes",
    "aicf-recognize-attention",
    "aicf-expand-variance",  # a variance's two passes join their neighbours' row group
    "aicf-fuse",
    "aicf-lower-to-loops",
    "aicf-fold-view-copies",
]
"""Passes (names in aicf.registry.AICF_PASSES or xDSL's) from the tensor level to the
loop level, in order. `compile(..., fuse=False)` leaves out aicf-fuse; the cuda
target runs DECOMPOSE_ATTENTION after aicf-recognize-attention."""

DECOMPOSE_ATTENTION = "aicf-decompose-attention"
"""The cuda target's attention where the flash kernel (gpu.flash_attention) does not
take it: batched matmul, softmax (one row group after aicf-fuse), batched matmul.
Where the kernel applies it is kept whole (keep_flash): on the H100 the kernel ran
1.6-7x faster than the decomposition on every shape of bench/flash_attention.py."""

"""Passes over the loop level for the cpu target (nests that keep an `aicf.schedule`
are left alone, so a hand-written schedule is what runs)."""

TARGETS = ("cpu", "cuda")

_CPU_MODULES: LruCache = LruCache(16)
"""MLIR text -> its built CpuModule, so compiling several entries of one module (or
the same text again) lowers and builds it once. The lowered module is shared by those
Executables: treat `exe.module` as read-only."""


@dataclass(frozen=True)
class ArgSpec:
    """What one argument (or result) of the entry function must be."""

    name: str
    dtype: np.dtype
    shape: tuple[int, ...]
    mlir_type: str

    @property
    def is_bf16(self) -> bool:
        return "bf16" in self.mlir_type

    def describe(self) -> str:
        what = "uint16 array (bf16 bits)" if self.is_bf16 else f"{self.dtype.name} array"
        return f"{what} of shape {self.shape}"


def is_tensor_level(module: ModuleOp) -> bool:
    for op in module.walk():
        if op.name.startswith("aicf_tensor."):
            return True
        if isinstance(op, FuncOp):
            types = [*op.function_type.inputs.data, *op.function_type.outputs.data]
            if any(isinstance(t, TensorType | UnrankedTensorType) for t in types):
                return True
    return False


def _load(src) -> ModuleOp:
    if isinstance(src, ModuleOp):
        module = src.clone()
        verify_module(module)
        return module
    if isinstance(src, os.PathLike) or (
        isinstance(src, str) and "\n" not in src and src.strip().endswith(".mlir")
    ):
        path = Path(src)
        if path.exists() and not path.is_file():  # a device or a pipe would never end (or never start)
            raise CompileError(f"cannot read {path}: not a regular file")
        try:
            data = path.read_bytes()
        except OSError as e:
            raise CompileError(f"cannot read {path}: {e.strerror}") from None
        return parse_module(make_context(), decode_source(data, str(path)), str(path))
    if isinstance(src, str):
        return parse_module(make_context(), src, "<string>")
    hint = " (a Python function is traced by aicf.jit, or aicf.trace(fn, *examples) first)" if callable(src) else ""
    raise ArgumentError(
        f"aicf.compile expects MLIR text, a path to a .mlir file or a ModuleOp, got "
        f"{type(src).__name__}{hint}"
    )


def tune_pass(tune: bool | str | None) -> str | None:
    """The `aicf-tune` step for `aicf.compile(..., tune=)`: False (or AICF_TUNE=0) none;
    True (or AICF_TUNE=1) every tunable nest; "auto" (the default) nests of at least
    2^31 FLOPs."""
    if tune is None:
        tune = os.environ.get("AICF_TUNE", "auto")
    if not isinstance(tune, bool | str):
        raise ArgumentError(f"tune must be True, False or 'auto', got {tune!r}")
    if isinstance(tune, str):
        low = tune.strip().lower()
        if low in ("0", "false", "off", "no", ""):
            tune = False
        elif low in ("1", "true", "on", "yes", "all"):
            tune = True
        elif low != "auto":
            raise ArgumentError(f"tune must be True, False or 'auto' (AICF_TUNE 0, 1 or auto), got {tune!r}")
    if tune is False:
        return None
    return "aicf-tune{min_flops=0}" if tune is True else "aicf-tune"


@dataclass(frozen=True)
class KernelOptions:
    """External kernels for a compile (aicf/kernels/): `kernels` files to register, the
    `proposer` command, the gate's time limit per kernel call, speedup bar and the
    proposer's time limit (None: their defaults)."""

    kernels: tuple[str, ...] = ()
    proposer: str = ""
    time_limit_s: float | None = None
    min_speedup: float | None = None
    proposer_timeout_s: float | None = None

    def gate_options(self) -> str:
        opts = ""
        if self.time_limit_s is not None:
            opts += f" gate_time_limit={float(self.time_limit_s)!r}"
        if self.min_speedup is not None:
            opts += f" min_speedup={float(self.min_speedup)!r}"
        return opts

    def plan_options(self) -> str:
        files = f' kernels="{",".join(self.kernels)}"' if self.kernels else ""
        return files + self.gate_options()

    def propose_pass(self, target: str) -> str | None:
        if not self.proposer:
            return None
        timeout = f" timeout={float(self.proposer_timeout_s)!r}" if self.proposer_timeout_s is not None else ""
        side = "cpu" if target == "cpu" else "gpu"
        return f'aicf-propose-kernels{{proposer="{self.proposer}" target={side}{timeout}{self.gate_options()}}}'


def kernel_options(src, kernels, proposer: str | None, gate) -> KernelOptions:
    """The compile's KernelOptions: `kernels` (a path or paths) plus a `NAME.kernels.json`
    beside a `NAME.mlir` source; `proposer` (default: $AICF_PROPOSER); `gate`, a dict
    of time_limit_s, min_speedup and proposer_timeout_s."""
    paths = [] if kernels is None else [kernels] if isinstance(kernels, str | os.PathLike) else kernels
    if not isinstance(paths, list | tuple) or not all(isinstance(p, str | os.PathLike) for p in paths):
        raise ArgumentError(f"kernels takes the path of a *.kernels.json file or a list of paths, got {kernels!r}")
    paths = list(paths)
    if isinstance(src, os.PathLike) or (isinstance(src, str) and "\n" not in src and src.strip().endswith(".mlir")):
        beside = Path(str(src).strip()).with_suffix(".kernels.json")
        if beside.exists() and beside.resolve() not in {Path(p).resolve() for p in paths}:
            # found, not named: in a shared folder anyone could have put it there, and its
            # kernels are compiled and run as the caller. The file checked is the one
            # read: resolved first (a link could be re-pointed in between).
            real = beside.resolve()
            why = disk_cache.untrusted(real, "it")
            if why is None:
                paths.append(real)
            else:
                warnings.warn(f"aicf: not reading the kernels file {beside} beside the program: {why} "
                              "(name it in kernels= to use it anyway)", RuntimeWarning, stacklevel=3)
    files = tuple(str(Path(p).resolve()) for p in paths)
    for f in files:
        if any(c in f for c in '",{}'):
            raise ArgumentError(f"kernels file path {f!r} has a character the pass options cannot carry")
    if proposer is None:
        proposer = os.environ.get("AICF_PROPOSER", "")
    if not isinstance(proposer, str):
        raise ArgumentError(f"proposer takes a command line (str), got {type(proposer).__name__} {proposer!r:.60}")
    if '"' in proposer or "}" in proposer:
        raise ArgumentError(f"the proposer command {proposer!r} may not contain '\"' or '}}' (put it in a script)")
    if gate is not None and not isinstance(gate, Mapping):
        raise ArgumentError(f"gate takes a dict of time_limit_s, min_speedup and proposer_timeout_s, got {gate!r}")
    gate = dict(gate or {})
    unknown = set(gate) - {"time_limit_s", "min_speedup", "proposer_timeout_s"}
    if unknown:
        raise ArgumentError(f"gate takes time_limit_s, min_speedup and proposer_timeout_s, not {', '.join(sorted(unknown))}")
    for k, v in gate.items():
        if v is not None and (isinstance(v, bool) or not isinstance(v, int | float) or not v > 0):
            raise ArgumentError(f"gate: {k} must be a number > 0, got {v!r}")
    return KernelOptions(files, proposer.strip(), gate.get("time_limit_s"), gate.get("min_speedup"),
                         gate.get("proposer_timeout_s"))


def pipeline_for(target: str, fuse: bool = True, force: Sequence[str] = (), tensor_level: bool = True,
                 tune: bool | str | None = False, matmul_precision: str = "",
                 kernels: KernelOptions | None = None) -> list[str]:  # fmt: skip
    """The passes `aicf.compile` runs for `target`, as aicf-opt's -p takes them
    (`Executable.pipeline`; `aicf-opt FILE -p "$(...)"` shows each stage)."""
    kernels = kernels or KernelOptions()
    passes = []
    if tensor_level:
        for p in TENSOR_PIPELINE:
            if p == "aicf-fuse":
                if not fuse:
                    continue
                p = f"aicf-fuse{{target={'cpu' if target == 'cpu' else 'gpu'}}}"
            if p == "aicf-lower-to-loops" and kernels.propose_pass(target):
                passes.append(kernels.propose_pass(target))
            passes.append(p)
            if p == "aicf-recognize-attention" and target == "cuda":
                passes.append(DECOMPOSE_ATTENTION + "{keep_flash=true}")
    tp = target_pipeline(target, force=force, matmul_precision=matmul_precision, plan_options=kernels.plan_options())
    upto = next(i for i, p in enumerate(tp) if p.startswith("aicf-plan"))
    step = tune_pass(tune) if target == "cuda" else None
    if step and matmul_precision:
        step = step.replace("aicf-tune", f"aicf-tune{{matmul_precision={matmul_precision}}}", 1).replace("}{", " ")
    return passes + tp[: upto + 1] + ([step] if step else [])


def target_pipeline(target: str, gpu: str = "gpu", force: Sequence[str] = (), matmul_precision: str = "",
                    plan_options: str = "") -> list[str]:  # fmt: skip
    """Passes from the loop level to what the target's backend takes: the planner
    (schedules on every nest and group), then for cuda the GPU lowering, the
    shared-memory layouts and their lowering to index arithmetic (cuda first groups
    matmuls with their elementwise consumers, for the planner to fuse or not). `gpu`
    names the GPU description (aicf.target; "gpu": the one CuPy finds, else sm_90's)."""
    opts = f' force="{",".join(force)}"' if force else ""
    if matmul_precision:
        opts += f" matmul_precision={matmul_precision}"
    opts += plan_options
    if target == "cpu":
        return [f"aicf-plan{{target=cpu{opts}}}"]
    return ["aicf-fuse-epilogue", f"aicf-plan{{target={gpu}{opts}}}", "aicf-lower-external",
            f"aicf-lower-to-gpu{{target={gpu}}}", "aicf-swizzle-smem", "aicf-lower-smem-layouts"]


def forced_kinds(force: str | Sequence[str], target: str) -> tuple[str, ...]:
    """compile's (and jit's) `force` as a tuple of known schedule kind names of the
    target's side; an ArgumentError for anything else."""
    if isinstance(force, str):
        force = (force,)
    if not isinstance(force, list | tuple) or not all(isinstance(f, str) for f in force):
        raise ArgumentError(f"aicf.compile: force takes schedule kind names (str), got {force!r}")
    kinds = tuple(k.strip() for f in force for k in f.split(",") if k.strip())
    _check_forced(kinds, target)
    return kinds


def check_options(fuse, debug, tune, matmul_precision) -> None:
    """compile's (and jit's) other options, checked before any work."""
    if not isinstance(fuse, bool | np.bool_):
        raise ArgumentError(f"aicf.compile: fuse must be True or False, got {fuse!r}")
    if debug is not None and not isinstance(debug, bool | np.bool_):
        raise ArgumentError(f"aicf.compile: debug must be True, False or None, got {debug!r}")
    if tune is not None:
        tune_pass(tune)  # a bad value fails here, before any work (on any target)
    from aicf.math_precision import MATMUL_PRECISIONS

    if matmul_precision is not None and matmul_precision not in MATMUL_PRECISIONS:
        raise ArgumentError(f"matmul_precision must be one of {', '.join(MATMUL_PRECISIONS)}, "
                            f"got {matmul_precision!r}")


def _check_forced(force: tuple[str, ...], target: str) -> None:
    """Schedule kind names, checked before they are written into a pipeline's text (a
    quote or brace in one would make another pipeline)."""
    from aicf.dialects.schedule import KINDS

    side = "cpu" if target == "cpu" else "gpu"
    for k in force:
        if k not in KINDS:
            raise ArgumentError(f"aicf.compile: force names an unknown schedule kind {k!r} "
                                f"(known: {', '.join(sorted(KINDS))})")
        if KINDS[k].target != side:
            raise ArgumentError(f"aicf.compile: force={k!r} is a {KINDS[k].target} kind; the {target} "
                                f"target takes {side} kinds")


def run_pipeline(module: ModuleOp, passes: Sequence[str]) -> None:
    """Apply passes (`name` or `name{opt=value ...}`, as aicf-opt's -p takes them) in
    place, verifying after each; failures become CompileError."""
    with fewer_collections():
        _run_pipeline(module, passes)


VERIFY_EACH_PASS_MAX_OPS = 3000
"""Programs of more ops than this are verified once, after the last pass."""


def _run_pipeline(module: ModuleOp, passes: Sequence[str]) -> None:
    from xdsl.transforms import get_all_passes
    from xdsl.utils.arg_spec import parse_pipeline
    from xdsl.utils.exceptions import ArgSpecParseError

    from aicf.registry import AICF_PASSES

    ctx = make_context()
    upstream = None
    # Verifying after each pass catches a pass that leaves invalid IR where it does;
    # on a large program it costs more than the passes (a 5000-op chain: 11
    # verifications, a third of its compile), so there only the result is verified,
    # unless AICF_DEBUG asks for each step
    each = _debug_default() or sum(1 for _ in module.walk()) <= VERIFY_EACH_PASS_MAX_OPS
    # and only after a pass that changed the IR (the same IR verifies as it did; most
    # passes leave most programs as they are)
    verified: list[tuple] | None = None
    for text in passes:
        try:
            (spec,) = list(parse_pipeline(text))
        except (Exception, ArgSpecParseError) as e:  # the latter is a BaseException
            raise CompileError(f"malformed pass '{text}': {e}") from None
        name = spec.name
        if name in AICF_PASSES:
            cls = AICF_PASSES[name]()
        else:
            upstream = upstream or get_all_passes()
            if name not in upstream:
                raise CompileError(f"unknown pass '{name}'")
            cls = upstream[name]()
        try:
            pass_ = cls.from_pass_spec(spec)
        except (ValueError, TypeError) as e:  # unknown option, wrong type or value
            raise CompileError(f"pass '{name}': {e}") from None
        start = time.perf_counter()
        try:
            pass_.apply(ctx, module)
        except (CompileError, AicfError):
            raise
        except (VerifyException, DiagnosticException) as e:
            raise CompileError(f"{name}: {str(e).strip()}") from None
        _passes_log.info("%s: %.1f ms", text, (time.perf_counter() - start) * 1e3)
        _passes_log.debug("IR after %s:\n%s", text, module)
        if each:
            snapshot = ir_snapshot(module)
            if snapshot != verified:
                verify_module(module)
                verified = snapshot
    if not each and passes:
        verify_module(module)


def _log_schedules(module: ModuleOp) -> None:
    """The schedule aicf-plan wrote on each nest and group (aicf.plan at INFO)."""
    if not _plan_log.isEnabledFor(logging.INFO):  # walking the module is not free
        return
    from aicf.diagnostics import location_of
    from aicf.dialects.schedule import schedule_of

    for op in module.walk():
        s = schedule_of(op)
        if s is not None:
            _plan_log.info("%s: %s %s", location_of(op), op.name, s.describe())


def _with_body(func: FuncOp) -> FuncOp:
    if func.is_declaration:
        raise op_error(
            func, f"@{func.sym_name.data} has no body (a declaration, or the file is cut "
            "short): nothing to run"
        )
    return func


def _select_entry(module: ModuleOp, entry: str | None, how: str = "entry=") -> FuncOp:
    """The function named `entry`, or the module's only public one; `how` says, in an
    error, how the caller names the entry (aicf-run: `--entry NAME`)."""
    funcs = [op for op in module.ops if isinstance(op, FuncOp)]
    if entry is not None:
        for f in funcs:
            if f.sym_name.data == entry:
                return _with_body(f)
        names = ", ".join("@" + f.sym_name.data for f in funcs) or "none"
        raise CompileError(f"no function @{entry} in the module (functions: {names})")
    public = [f for f in funcs if f.sym_visibility is None or f.sym_visibility.data == "public"]
    if len(public) == 1:
        return _with_body(public[0])
    if not public:
        raise CompileError("the module has no public function to run")
    names = ", ".join("@" + f.sym_name.data for f in public)
    raise CompileError(f"the module has several functions ({names}): choose one with {how}")


class Executable:
    """A compiled entry function. `exe(*arrays)` checks each argument's count, dtype and
    shape against the entry's signature (raising ArgumentError naming the argument),
    allocates the outputs (C-contiguous; filled with NaN first in debug mode, so
    unwritten elements show) and returns one array or a tuple.

    cpu target: arguments are NumPy arrays. Contiguous inputs are passed as they are;
    strided/offset views (slices, transposes, broadcast views) are passed with their
    strides, without a copy, to a variant of the compiled function specialised for that
    pattern of contiguity (each variant is built once and cached); only inputs whose
    strides are not whole elements are copied. See backend/c/runtime.py.

    Attributes: `module` (the lowered, loop-level IR), `source` (the generated C for the
    cpu target, CUDA for cuda), `entry`, `target`, `inputs` and `outputs` (ArgSpecs).
    """

    def __init__(self, module: ModuleOp | LazyModule, entry: str, target: str, inputs, outputs, program,
                 source: str, debug: bool = False):  # fmt: skip
        self._module = module
        self.entry = entry
        self.target = target
        self.inputs: tuple[ArgSpec, ...] = tuple(inputs)
        self.outputs: tuple[ArgSpec, ...] = tuple(outputs)
        self.source = source
        self.debug = debug
        self._program = program
        # outputs that start as zeros when the executable allocates them (ZERO_OUTPUTS)
        self.zero_outputs: tuple[int, ...] = ()
        self.pipeline: list[str] = []  # the passes aicf.compile ran, as aicf-opt's -p takes them
        self.kernels = KernelOptions()  # external kernels this compile considered (aicf/kernels/)
        self.kernel_notes: list[str] = []  # what went wrong with the proposer, if anything
        self.force: tuple[str, ...] = ()  # the kinds compile forced (explain plans as it did)

    @property
    def module(self) -> ModuleOp:
        """The lowered, loop-level IR (a program from the program cache parses it on
        first use)."""
        return module_of(self._module)

    def __deepcopy__(self, memo) -> Executable:
        # the loaded program is read-only and calls share nothing: a copy is the same
        # executable (copying raised ctypes' "objects containing pointers cannot be pickled")
        return self

    def __copy__(self) -> Executable:  # it raised __reduce__'s "cannot pickle"
        return self

    def __reduce__(self):
        raise TypeError(f"cannot pickle {self!r}: it holds a program loaded in this process; compile "
                        "the source again in the other (the disk cache makes it quick)")

    def __repr__(self) -> str:
        ins = ", ".join(f"{a.name}: {a.mlir_type}" for a in self.inputs)
        outs = ", ".join(a.mlir_type for a in self.outputs)
        return f"<aicf.Executable @{self.entry}({ins}) -> ({outs}) on {self.target}>"

    def explain(self, top: int = 3) -> str:
        """Why the program runs as it does: the passes run, then per nest and group the
        planner's candidates for this target (generated and library kernels), the
        guards that failed and why, their predicted times, and the schedule taken;
        then each kernel (cuda) or loop nest (cpu) as built. Attention: each
        softmax(..) @ V aicf-recognize-attention made one op, and each it did not,
        with why. External kernels (aicf/kernels/) show among the candidates, admitted
        or rejected by the gate with its reason; a failing proposer is noted. Fusion
        decisions: `aicf-opt -p 'aicf-fuse{explain=true}'`."""
        from xdsl.dialects.builtin import ArrayAttr

        from aicf.kernels.gate import GateConfig

        if isinstance(top, bool) or not isinstance(top, int) or top < 0:
            raise ArgumentError(f"explain: top must be an int >= 0, got {top!r}")
        from aicf.kernels.planning import Options
        from aicf.passes.loop.plan import explain_module
        from aicf.target import resolve_target

        k = self.kernels
        config = GateConfig(**{f: v for f, v in (("time_limit_s", k.time_limit_s), ("min_speedup", k.min_speedup))
                               if v is not None})
        lines = [repr(self), "pipeline: " + ",".join(self.pipeline)]
        notes = self.module.attributes.get("aicf.attention")
        if isinstance(notes, ArrayAttr):
            lines += ["attention:", *(f"  {n.data}" for n in notes)]  # type: ignore[attr-defined]
        outputs = self.module.attributes.get(OUTPUT_NOTES)
        if isinstance(outputs, ArrayAttr):
            lines += ["outputs:", *(f"  {n.data}" for n in outputs)]  # type: ignore[attr-defined]
        lines += [f"external kernels: {n}" for n in self.kernel_notes]
        lines.append(explain_module(self.module, resolve_target("cpu" if self.target == "cpu" else "gpu"), top,
                                    Options(config=config), self.force))
        if self.target == "cuda":
            for k in self._program.kernel_facts():
                lines.append(f"kernel {k['symbol']}: grid={k['grid']} block={k['block']} smem={k['smem']}")
                if k["schedule"] is not None:
                    lines.append("  " + k["schedule"])
            return "\n".join(lines)
        from aicf.dialects.loop import GroupOp, NestOp

        for op in self.module.walk():
            if isinstance(op, GroupOp):
                lines.append(f"group shared={list(op.shared_extents)}: {len(op.nests)} nests")
            elif isinstance(op, NestOp):
                its = ", ".join(i.value for i in op.iterators)
                comb = ", ".join(c.value for c in op.combiner_kinds)
                pad = "  " if isinstance(op.parent_op(), GroupOp) else ""
                lines.append(
                    f"{pad}nest domain={list(op.extents)} iterators=[{its}] combiners=[{comb}] "
                    f"({len(op.inputs)} inputs, {len(op.outputs)} outputs)"
                )
                schedule = op.attributes.get("aicf.schedule")
                if schedule is not None:
                    lines.append(f"{pad}  {schedule}")
        return "\n".join(lines)

    def _device_out_of_memory(self, e: MemoryError) -> OutOfMemory:
        """CuPy's OutOfMemoryError (an output, an intermediate or a workspace the pool
        could not hand out) as aicf's, naming the entry; the pool's message says how
        much it asked for and had."""
        if isinstance(e, OutOfMemory):
            return e
        return OutOfMemory(f"@{self.entry}: a buffer of this call does not fit in the GPU's "
                           f"memory ({str(e).strip() or type(e).__name__})")

    def _call_zeroed(self, arrays: Sequence):
        """A cuda call of a program that updates outputs in place: those it allocates
        start as zeros (the others as the pool hands them out)."""
        from aicf.backend.cuda import runtime as rt

        cp = rt.cupy()
        outs = [(cp.zeros if k in self.zero_outputs else cp.empty)(s.shape, s.dtype) for k, s in enumerate(self.outputs)]
        self.call_into(arrays, outs)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def call_into(self, arrays: Sequence, outs: Sequence) -> None:
        """Run the program on `arrays`, writing its results into `outs` (the caller's
        arrays, one per result, of the results' dtypes and shapes; cuda only): the
        destination-passing call, for callers that keep their own buffers (the torch
        backend hands torch's, so a forward in a loop replays one CUDA graph keyed on
        the same blocks)."""
        if self.target != "cuda":
            raise ArgumentError(f"@{self.entry}: call_into is for the cuda target; call the executable")
        if len(outs) != len(self.outputs):
            raise ArgumentError(f"@{self.entry} has {len(self.outputs)} result(s), got {len(outs)} output arrays")
        checked = []
        for i, (o, spec) in enumerate(zip(outs, self.outputs)):
            where = f"output #{i} of @{self.entry}"
            o = as_array(o, self.target, where)
            if spec.is_bf16:
                o = as_bf16_bits(o)
            if not hasattr(o, "dtype") or o.dtype != spec.dtype or tuple(o.shape) != spec.shape:
                got = f"{np.dtype(o.dtype).name} {tuple(o.shape)}" if hasattr(o, "dtype") else type(o).__name__
                raise ArgumentError(f"{where}: expected {spec.describe()}, got {got}")
            checked.append(o)
        try:
            self._program(*self.check_arguments(arrays), *checked)
        except MemoryError as e:
            raise self._device_out_of_memory(e) from None

    def check_arguments(self, arrays: Sequence) -> list:
        if len(arrays) != len(self.inputs):
            raise ArgumentError(
                f"@{self.entry} takes {len(self.inputs)} argument(s) "
                f"({', '.join(a.name for a in self.inputs)}), got {len(arrays)}"
            )
        checked = []
        for i, (a, spec) in enumerate(zip(arrays, self.inputs)):
            where = f"argument #{i} ('{spec.name}') of @{self.entry}"
            a = as_array(a, self.target, where)  # torch, JAX, ...: through DLPack
            if isinstance(a, np.generic):
                a = np.asarray(a)
            if spec.is_bf16:
                a = as_bf16_bits(a)
            elif isinstance(a, np.ndarray) and a.dtype.newbyteorder("=") == spec.dtype:
                a = a.astype(spec.dtype, copy=False)  # byte-swapped: native order
            if not (hasattr(a, "dtype") and hasattr(a, "shape")):
                raise ArgumentError(
                    f"{where}: expected {spec.describe()}, got {type(a).__name__}"
                )
            if a.dtype != spec.dtype or tuple(a.shape) != spec.shape:
                raise ArgumentError(
                    f"{where}: expected {spec.describe()}, got "
                    f"{np.dtype(a.dtype).name} {tuple(a.shape)}"
                )
            checked.append(a)
        return checked

    def __call__(self, *arrays, **keywords):
        if keywords:  # Python's raw "unexpected keyword argument" named __call__
            raise _keywords_error(self.entry, [a.name for a in self.inputs], keywords)
        if self.target == "cuda":
            try:  # free in 3.11+: the lean path stays inline
                if self.zero_outputs and len(arrays) == len(self.inputs):
                    return self._call_zeroed(arrays)
                # the lean call path: the launch plan checks the arrays itself
                out = self._program.call_planned(arrays)
                if out is not None:
                    return out
                if self._program.takes_as_is(arrays):
                    # CuPy arrays the plan cannot take: the general path says what is wrong
                    return self._program(*arrays)
                return self._program(*self.check_arguments(arrays))
            except MemoryError as e:
                raise self._device_out_of_memory(e) from None
        arrays = self.check_arguments(arrays)
        outs = []
        for k, spec in enumerate(self.outputs):
            try:
                o = (np.zeros if k in self.zero_outputs else np.empty)(spec.shape, spec.dtype)
            except MemoryError:
                nbytes = int(np.prod(spec.shape, dtype=object)) * np.dtype(spec.dtype).itemsize
                raise OutOfMemory(f"@{self.entry}: output #{k} ({'x'.join(map(str, spec.shape)) or 'scalar'} "
                                  f"{np.dtype(spec.dtype).name}, {nbytes / 2**30:.1f} GiB) does not fit in "
                                  "this machine's memory") from None
            if self.debug:
                if o.dtype.kind == "f":
                    o.fill(np.nan)
                elif o.dtype.kind in "iu":
                    o.fill(np.iinfo(o.dtype).min)
            outs.append(o)
        for i, a in enumerate(arrays):
            if not isinstance(a, np.ndarray):
                raise ArgumentError(
                    f"argument #{i} ('{self.inputs[i].name}') of @{self.entry}: the cpu "
                    f"target takes NumPy arrays, got {type(a).__name__}"
                )
        self._program.run(arrays, outs)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def profile(self, *arrays, repeat: int = 1):
        """Run the program `repeat` times under `aicf.profiler()` and return the
        Profiler: a record per kernel launch (cuda) or per loop nest (cpu: each step of
        the C function) per call, with its time, bytes and FLOPs. One call before, not
        recorded, builds the profiled code and warms caches. `.table()`,
        `.to_chrome_trace(path)` and `.roofline(path)` report it."""
        from aicf.profiling import profiler

        if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
            raise ArgumentError(f"profile: repeat must be an int >= 1, got {repeat!r}")
        with profiler():
            self(*arrays)
        with profiler() as prof:
            for _ in range(repeat):
                self(*arrays)
        return prof


class SpecializingExecutable:
    """The executable of an entry function with dynamic extents (`tensor<?x...>`).

    Each call specialises the tensor-level program on the shapes of its arguments
    (the `?` extents become the call's sizes, then shapes are inferred and the program
    lowered and built as any static one) and caches the specialised Executable per
    shape tuple, as a JIT does (the most recently used `$AICF_MEMORY_CACHE_ENTRIES`,
    aicf/lru.py; an evicted one is unloaded when no longer referenced). A static
    extent or the rank still must match: a mismatch raises ArgumentError naming the
    argument.
    """

    def __init__(self, module: ModuleOp, entry: str, target: str, debug: bool, fuse: bool,
                 force: tuple[str, ...] = (), kernels: KernelOptions | None = None,
                 tune: bool | str | None = None, matmul_precision: str | None = None):  # fmt: skip
        self.module = module
        self.fuse = fuse
        self.force = force
        # compile's other options, for each specialisation as for a static program
        self.tune, self.matmul_precision = tune, matmul_precision
        self.kernels = kernels or KernelOptions()
        self.entry = entry
        self.target = target
        self.debug = debug
        func = _select_entry(module, entry)
        self._arg_types = [a.type for a in func.args]
        self._arg_names = arg_names_of(func)
        self.specializations: LruCache = LruCache()  # shapes -> Executable

    def __repr__(self) -> str:
        ins = ", ".join(f"{n}: {t}" for n, t in zip(self._arg_names, self._arg_types))
        return (
            f"<aicf.SpecializingExecutable @{self.entry}({ins}) on {self.target}, "
            f"{len(self.specializations)} specialisation(s)>"
        )

    def __getstate__(self) -> dict:
        # the specialisations are loaded programs, which do not pickle (pickling raised
        # the Executable's "cannot pickle" once one was compiled): they are a cache,
        # compiled again where the copy is called
        state = self.__dict__.copy()
        state["specializations"] = LruCache(self.specializations.maxsize)
        return state

    def _shapes_of(self, arrays: Sequence) -> tuple[tuple[int, ...], ...]:
        from aicf.dialects.shape_rules import DYN, fmt

        if len(arrays) != len(self._arg_types):
            raise ArgumentError(
                f"@{self.entry} takes {len(self._arg_types)} argument(s) "
                f"({', '.join(self._arg_names)}), got {len(arrays)}"
            )
        shapes = []
        for i, (a, t) in enumerate(zip(arrays, self._arg_types)):
            if not hasattr(a, "shape"):
                raise ArgumentError(f"argument #{i} ('{self._arg_names[i]}') of @{self.entry}: expected an "
                                    f"array, got {type(a).__name__}")
            shape = tuple(a.shape)
            declared = tuple(t.get_shape()) if isinstance(t, TensorType) else shape
            if len(shape) != len(declared) or any(
                d != DYN and d != s for d, s in zip(declared, shape)
            ):
                raise ArgumentError(
                    f"argument #{i} ('{self._arg_names[i]}') of @{self.entry}: expected "
                    f"shape {fmt(declared)}, got {tuple(shape)}"
                )
            shapes.append(shape)
        return tuple(shapes)

    def specialize(self, shapes: Sequence[Sequence[int]]) -> Executable:
        """The executable for the arguments' `shapes` (one sequence of ints per
        argument), compiled on first use."""
        func = _select_entry(self.module, self.entry)
        try:
            key = tuple(tuple(s) for s in shapes)
        except TypeError:
            raise ArgumentError(f"@{self.entry}: specialize takes one shape (a sequence of ints) per argument, "
                                f"got {shapes!r}") from None
        if len(key) != len(func.args):
            raise ArgumentError(f"@{self.entry}: specialize takes {len(func.args)} shapes (one per argument), "
                                f"got {len(key)}")
        for i, (arg, shape) in enumerate(zip(func.args, key)):
            rank = len(arg.type.get_shape()) if isinstance(arg.type, TensorType) else 0
            if len(shape) != rank or not all(isinstance(d, int | np.integer) and not isinstance(d, bool) and d >= 0
                                             for d in shape):
                raise ArgumentError(f"@{self.entry}: shape #{i} must be {rank} ints >= 0 for {arg.type}, "
                                    f"got {shape!r}")
        key = tuple(tuple(int(d) for d in s) for s in key)
        exe = self.specializations.get(key)
        _cache_log.debug("@%s shapes %s: specialisation %s", self.entry, key,
                         "miss" if exe is None else "hit")  # fmt: skip
        if exe is None:
            module = self.module.clone()
            func = _select_entry(module, self.entry)
            for arg, shape in zip(func.args, key):
                if isinstance(arg.type, TensorType):
                    _set_arg_type(arg, TensorType(arg.type.get_element_type(), list(shape)))
            func.update_function_type()
            k = self.kernels
            gate = {f: v for f, v in (("time_limit_s", k.time_limit_s), ("min_speedup", k.min_speedup),
                                      ("proposer_timeout_s", k.proposer_timeout_s)) if v is not None}
            exe = compile(
                module, target=self.target, entry=self.entry, debug=self.debug, fuse=self.fuse,
                force=self.force, kernels=k.kernels, proposer=k.proposer, gate=gate, tune=self.tune,
                matmul_precision=self.matmul_precision,
            )
            self.specializations[key] = exe
        return exe

    def __call__(self, *arrays, **keywords):
        if keywords:
            raise _keywords_error(self.entry, self._arg_names, keywords)
        arrays = tuple(
            as_array(a, self.target, f"argument #{i} of @{self.entry}") for i, a in enumerate(arrays)
        )
        return self.specialize(self._shapes_of(arrays))(*arrays)

    def profile(self, *arrays, repeat: int = 1):
        """Executable.profile of the specialisation for these arguments' shapes."""
        arrays = tuple(
            as_array(a, self.target, f"argument #{i} of @{self.entry}") for i, a in enumerate(arrays)
        )
        return self.specialize(self._shapes_of(arrays)).profile(*arrays, repeat=repeat)

    def explain(self, top: int = 3) -> str:
        """Executable.explain of every specialisation compiled so far, most recently
        used last (aicf.compile's `exe.explain()` raised a raw AttributeError on a
        program with dynamic extents)."""
        if isinstance(top, bool) or not isinstance(top, int) or top < 0:
            raise ArgumentError(f"explain: top must be an int >= 0, got {top!r}")
        entries = list(self.specializations.items())
        if not entries:
            return f"{self!r}: no specialisation compiled yet (call it, or specialize(shapes), first)"
        return "\n\n".join(f"# @{self.entry} shapes {list(map(list, shapes))}\n{exe.explain(top)}"
                            for shapes, exe in entries)


def _keywords_error(entry: str, names: Sequence[str], keywords: dict) -> ArgumentError:
    return ArgumentError(f"@{entry} takes its arguments by position ({', '.join(names)}), got keyword "
                         f"argument(s) {', '.join(map(repr, keywords))}")


def _set_arg_type(arg, new_type: Attribute) -> None:
    from xdsl.rewriter import Rewriter

    Rewriter.replace_value_with_new_type(arg, new_type)


def _has_dynamic_inputs(func: FuncOp) -> bool:
    from aicf.dialects.shape_rules import DYN

    return any(
        isinstance(t, TensorType) and DYN in t.get_shape()
        for t in func.function_type.inputs.data
    )


def _debug_default() -> bool:
    # the words that turn AICF_PROGRAM_CACHE, AICF_PROGRESS and AICF_CUDA_GRAPHS off
    # (AICF_DEBUG=false turned debug mode on: outputs poisoned, each pass verified)
    return os.environ.get("AICF_DEBUG", "").strip().lower() not in ("", "0", "off", "false", "no")


def arg_names_of(func: FuncOp) -> list[str]:
    """The user's names of a (tensor-level) function's arguments, for messages."""
    return [a.name_hint and "%" + a.name_hint or f"%arg{i}" for i, a in enumerate(func.args)]


def check_buffer_lifetimes(func: FuncOp) -> None:
    """Every buffer the entry deallocates is used only before, and freed once: a use
    after `memref.dealloc` (hand-written loop IR) would read freed memory. The entry's
    top-level ops are all there is to walk: a nest's body reads only its own block
    arguments."""
    from xdsl.dialects import memref

    freed: dict = {}
    for op in func.body.block.ops:
        for v in op.operands:
            if v in freed:
                what = "freed again" if isinstance(op, memref.DeallocOp) else "used"
                raise op_error(op, f"a buffer is {what} after its memref.dealloc")
        if isinstance(op, memref.DeallocOp):
            freed[op.memref] = op


ZERO_OUTPUTS = "aicf.zero_outputs"
"""Module attribute: the outputs a hand-written entry reads before writing them in full
(an update in place); the program allocates them zeroed."""

OUTPUT_NOTES = "aicf.outputs"
"""Module attribute: what compile did to a hand-written loop-level entry's outputs
(`Executable.explain` prints it)."""


def _prepare_loop_entry(module: ModuleOp, func: FuncOp) -> None:
    """A hand-written loop-level entry writes only its outputs (a located error
    otherwise), and each output its nests are not proven to write in full is
    zero-filled first, so no element of a result is left as the memory found it
    (dialects/outputs.py); so is a buffer it allocates and reads before writing in full. Programs lowered from the tensor level write all of every
    output by construction and are not touched."""
    from xdsl.dialects.builtin import ArrayAttr, StringAttr

    from xdsl.dialects.builtin import IntegerAttr

    from aicf.diagnostics import location_of
    from aicf.dialects.outputs import (
        check_input_writes,
        fill_allocs_read_first,
        fill_uncovered_outputs,
        outputs_read_first,
    )

    check_input_writes(func, need_outputs=True)
    notes = fill_uncovered_outputs(func) + fill_allocs_read_first(func)
    read_first = outputs_read_first(func)
    for k, op in read_first:
        notes.append(f"output #{k} is read before it is written in full ({location_of(op)}): an update in "
                     "place; when the program allocates it, it starts as zeros")
    if read_first:
        module.attributes[ZERO_OUTPUTS] = ArrayAttr([IntegerAttr(k, 64) for k, _ in read_first])
    for note in notes:
        _compile_log.info("@%s: %s", func.sym_name.data, note)
    if notes:
        module.attributes[OUTPUT_NOTES] = ArrayAttr([StringAttr(n) for n in notes])


def _arg_location(func: FuncOp, arg) -> str:
    """`file:line:col` of a function argument as written (the parser records it), else
    the function's location (aicf.diagnostics.location_of)."""
    from xdsl.dialects.builtin import FileLineColLoc

    from aicf.diagnostics import location_of

    loc = arg.location
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
    return location_of(func)


def arg_specs(func: FuncOp, arg_names: Sequence[str]) -> tuple[list[ArgSpec], list[ArgSpec]]:
    """The inputs and outputs of a loop-level entry (destination-passing: the trailing
    `aicf.num_outputs` arguments are the outputs), named by `arg_names`."""
    name = func.sym_name.data
    nout_attr = func.attributes.get("aicf.num_outputs")
    nout = nout_attr.value.data if nout_attr is not None else 0  # type: ignore[attr-defined]
    specs = []
    for i, arg in enumerate(func.args):
        t = arg.type
        if not isinstance(t, MemRefType):
            raise CompileError(f"{_arg_location(func, arg)}: error: @{name}: argument #{i} is {t}, "
                               "expected a memref after lowering")
        shape = tuple(t.get_shape())
        if any(d < 0 for d in shape):
            raise CompileError(f"{_arg_location(func, arg)}: error: @{name}: argument #{i} has a dynamic "
                               f"shape ({t}); "
                               "aicf needs static shapes")  # fmt: skip
        if not isinstance(t.layout, NoneAttr):
            # the runtimes pass arrays dense and row-major (a strided array gets a
            # strided variant of the program from the runtime, not from the signature;
            # the C emitter reads any layout written here as run-time strides)
            raise CompileError(f"{_arg_location(func, arg)}: error: @{name}: argument #{i} has the layout "
                               f"{t.layout}; an entry takes dense "
                               f"row-major memrefs (memref<{'x'.join(map(str, shape))}x"
                               f"{t.get_element_type()}>), the runtime handles strided arrays itself")
        label = arg_names[i] if i < len(func.args) - nout else f"result #{i - len(func.args) + nout}"
        specs.append(ArgSpec(label, numpy_dtype(t.get_element_type()), shape, str(t)))
    return specs[: len(specs) - nout], specs[len(specs) - nout :]


def compile(src, *, target: str = "cpu", entry: str | None = None,
            debug: bool | None = None, fuse: bool = True, force: str | Sequence[str] = (),
            tune: bool | str | None = None, matmul_precision: str | None = None,
            kernels=None, proposer: str | None = None, gate: dict | None = None,
            ) -> Executable | SpecializingExecutable:  # fmt: skip
    """Compile a tensor program for `target` ("cpu" or "cuda").

    `src` is MLIR text, a path to a .mlir file (str or PathLike) or an xDSL ModuleOp (not
    modified). `entry` names the function to run; by default the module's only public
    function. `debug` (default: the AICF_DEBUG environment variable) poisons outputs
    with NaN before each run. `fuse=False` compiles every tensor op as its own loop
    nest (kernel), for comparison and debugging. Raises CompileError, with the IR location, for programs
    that cannot be compiled. An entry with dynamic extents (`tensor<?x...>`) gives a
    SpecializingExecutable, which compiles once per distinct set of argument shapes.
    `force` names schedule kinds (dialects/schedule.py) the planner takes wherever
    their guard passes, e.g. force="gpu.cublas_gemm" or "gpu.matmul_tiled"
    ("gpu.flash_attention": attention on the flash kernel where it applies);
    `exe.explain()` shows the candidates and why each was or was not taken.
    `tune` (cuda): time the top configurations of tensor-core matmuls (and cuBLAS) on
    the GPU and keep the fastest, cached on disk (passes/loop/tune.py): "auto" (the
    default, or AICF_TUNE) for matmuls of at least 2^31 FLOPs, True for all, False
    for the cost model's pick only (fast compiles).
    `matmul_precision`: "highest" (f32 matmuls in f32) or "high" (TF32 allowed on the
    tensor cores); default: `aicf.set_float32_matmul_precision`'s, "highest".
    External kernels (aicf/kernels/): `kernels` names `*.kernels.json` files to register
    (a `NAME.kernels.json` beside a `NAME.mlir` source is read too, when it is the
    caller's and only they may write it or its folders, sticky ones aside; kernels registered
    with `aicf.kernels.register` always take part); `proposer` is a command asked for
    kernels per subgraph (default: $AICF_PROPOSER); every such kernel runs only if the
    gate admits it (correct on its test cases and faster than the compiler's own);
    `gate` sets the gate's `time_limit_s` per kernel call, `min_speedup`, and
    `proposer_timeout_s`. Forcing "cpu.external" / "gpu.external" takes a correct one
    even when slower.
    """
    if target not in TARGETS:
        raise CompileError(f"unknown target '{target}' (expected one of {', '.join(TARGETS)})")
    force = forced_kinds(force, target)
    kopts = kernel_options(src, kernels, proposer, gate)
    from aicf.kernels import registry

    key = None
    # kernels files are read when the planner runs: a module compiled with them is not
    # kept by its text, which would not see an edited file (nor a proposer's new reply)
    if isinstance(src, str) and target == "cpu" and not kopts.kernels and not kopts.proposer:
        key = ((src, fuse, force, kopts, registry.GENERATION[0])
               if "\n" in src or not src.strip().endswith(".mlir") else None)
    start = time.perf_counter()
    cached = _CPU_MODULES.get(key) if key is not None else None
    if key is not None:
        _cache_log.debug("compiled cpu module %s", "hit" if cached is not None else "miss")
    check_options(fuse, debug, tune, matmul_precision or None)
    fuse = bool(fuse)
    debug = _debug_default() if debug is None else bool(debug)
    from aicf.math_precision import get_float32_matmul_precision

    precision = matmul_precision or get_float32_matmul_precision()
    pkey = None
    # external kernels (files, a proposer, registered ones) make the result depend on
    # more than the program text: such compiles are not kept
    if cached is None and program_cache.enabled() and kopts == KernelOptions() and not registry.registered():
        text = _program_text(src)
        if text is not None:
            tuning = (tune if tune is not None else os.environ.get("AICF_TUNE", "auto")) if target == "cuda" else None
            pkey = program_cache.program_key(text, target, (
                entry, fuse, force, str(tuning), precision, program_cache.target_description(target)))
            record = program_cache.lookup(pkey)
            exe = _from_valid_record(pkey, record, target, debug) if record is not None else None
            if exe is not None:
                exe.kernels = kopts
                exe.force = force
                _compile_log.info("@%s for %s: %.1f ms (from the program cache)", exe.entry, target,
                                  (time.perf_counter() - start) * 1e3)
                return exe
    if cached is not None:
        module = cached.module
    else:
        module = _load(src)
    func = _select_entry(module, entry)
    name = func.sym_name.data
    if cached is None and _has_dynamic_inputs(func):
        return SpecializingExecutable(module, func.sym_name.data, target, debug, fuse, force, kopts,
                                      tune=tune, matmul_precision=matmul_precision or None)
    arg_names = arg_names_of(func)
    tensor_level = cached is None and is_tensor_level(module)
    if cached is None and not tensor_level:
        _prepare_loop_entry(module, func)
    passes = pipeline_for(target, fuse, force, tensor_level=tensor_level,
                          tune=tune if tune is not None else (False if force else None),  # forced: as forced
                          matmul_precision=precision if precision != "highest" else "", kernels=kopts)
    from aicf.kernels import proposer as _proposer

    noted = len(_proposer.NOTES)
    with progress(f"compiling @{name} for {target}"):
        if cached is None:
            run_pipeline(module, passes)
            _log_schedules(module)
        passes_done = time.perf_counter()
        entry_fn = _select_entry(module, name)
        ins, outs = arg_specs(entry_fn, arg_names)
        check_buffer_lifetimes(entry_fn)
        if target == "cpu":
            from aicf.backend.c.runtime import CpuModule, CpuProgram

            if cached is None:
                cached = CpuModule(module)
                if key is not None:
                    _CPU_MODULES[key] = cached
            program = CpuProgram(cached, name)
            source = program.source
        else:
            program, source = _compile_cuda(module, name)
            program.debug = debug
    exe = Executable(module, name, target, ins, outs, program, source, debug)
    exe.kernels = kopts
    exe.force = force
    exe.kernel_notes = _proposer.NOTES[noted:]
    zero = module.attributes.get(ZERO_OUTPUTS)
    if isinstance(zero, ArrayAttr):
        exe.zero_outputs = tuple(a.value.data for a in zero)  # type: ignore[attr-defined]
        pkey = None  # the program cache's records do not carry them: compile such an entry each time
    if target == "cuda":  # what CudaProgram runs after the planner
        tp = target_pipeline("cuda")
        exe.pipeline = passes + tp[next(i for i, p in enumerate(tp) if p.startswith("aicf-plan")) + 1:]
    else:
        exe.pipeline = passes
    if pkey is not None:
        _store_program(pkey, exe, module)
    done = time.perf_counter()
    _compile_log.info("@%s for %s: %.1f ms (passes %.1f ms, build %.1f ms)", name, target,
                      (done - start) * 1e3, (passes_done - start) * 1e3,
                      (done - passes_done) * 1e3)  # fmt: skip
    return exe


def _program_text(src) -> str | None:
    """The program's text for the program cache's key: the MLIR text given, a file's
    text, or the ModuleOp printed; None when it cannot be read (the compile says why)."""
    if isinstance(src, ModuleOp):
        return str(src)
    if isinstance(src, os.PathLike) or (isinstance(src, str) and "\n" not in src and src.strip().endswith(".mlir")):
        try:
            return Path(src).read_text() if Path(src).is_file() else None
        except (OSError, UnicodeDecodeError):
            return None
    return src if isinstance(src, str) else None


def _store_program(pkey: str, exe: Executable, module: ModuleOp) -> None:
    spec = [[a.name, a.dtype.str, list(a.shape), a.mlir_type] for a in (*exe.inputs, *exe.outputs)]
    record = {"target": exe.target, "entry": exe.entry, "specs": spec, "num_inputs": len(exe.inputs),
              "pipeline": exe.pipeline, "loop_module": str(module)}
    if exe.target == "cpu":
        cm = exe._program.cmodule
        record["cpu"] = {"source": cm.source, "flags": list(cm.flags), "linked": list(cm.linked)}
    else:
        record["cuda"] = exe._program.artifact()
    program_cache.store(pkey, record)


def _from_valid_record(pkey: str, record: dict, target: str, debug: bool) -> Executable | None:
    """The executable of a program-cache entry, or None (compiled again, the entry
    replaced) when the entry does not describe one: an entry that passed the cache's
    digest check but was written by another tool, or by hand."""
    try:
        problem = program_cache.record_problem(record, target)
        if problem is None:
            return _from_record(record, target, debug)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, CompileError) as e:
        problem = f"{type(e).__name__}: {e}"
    _compile_log.warning("program cache entry %s ignored (%s); compiling again", pkey, problem)
    return None


def _from_record(record: dict, target: str, debug: bool) -> Executable:
    """The executable a program-cache entry describes (aicf/program_cache.py)."""
    name = record["entry"]
    specs = [ArgSpec(n, np.dtype(dt), tuple(shape), t) for n, dt, shape, t in record["specs"]]
    ins, outs = specs[: record["num_inputs"]], specs[record["num_inputs"]:]
    loop = program_cache.LazyModule(record["loop_module"])
    if target == "cpu":
        from aicf.backend.c.runtime import CpuModule, CpuProgram

        c = record["cpu"]
        program = CpuProgram(CpuModule(loop, (c["source"], tuple(c["flags"]), tuple(c["linked"]))), name)
        source = program.source
    else:
        _need_gpu()
        from aicf.backend.cuda.program import CudaProgram

        program = CudaProgram.cached(record["cuda"], name, loop)
        program.debug = debug
        source = program.source
    exe = Executable(loop, name, target, ins, outs, program, source, debug)
    exe.pipeline = list(record["pipeline"])
    return exe


def _need_gpu() -> None:
    try:
        import cupy  # type: ignore[import-not-found]

        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise AicfError("target='cuda' needs an NVIDIA GPU; none was found")
    except ImportError:
        raise AicfError(
            "target='cuda' needs CuPy (pip install 'aicf[cuda]') and an NVIDIA GPU"
        ) from None
    except AicfError:
        raise
    except Exception as e:  # CUDA driver missing or broken
        raise AicfError(f"target='cuda' cannot use the GPU: {e}") from None


def _compile_cuda(module: ModuleOp, entry: str):
    _need_gpu()
    from aicf.backend.cuda.program import compile_cuda

    program = compile_cuda(module, entry)
    return program, getattr(program, "source", "")
