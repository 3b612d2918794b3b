"""The exit to upstream MLIR, from Python.

`to_upstream_mlir(src)` is a program (MLIR text, a .mlir path or a ModuleOp, at the
tensor or the loop level) lowered by `aicf-to-upstream` and printed as MLIR 16 parses
it: func, scf, memref, arith and math only, attributes where xDSL would print
properties (`<{...}>`, which MLIR 16 does not know).

`compile_upstream(src)` gives an `Executable` like `aicf.compile(src, target="cpu")`'s
that runs the program through upstream's tools instead of ours: `mlir-opt` lowers it to
the LLVM dialect (`LLVM_LOWERING`) and `mlir-cpu-runner` runs it with
`libmlir_c_runner_utils` and a small I/O library of ours (built with the system C
compiler) that reads the arguments from files and writes the outputs back. It
exists to check that upstream computes what we compute: each call starts the tools,
so it is slow. Inputs that are strided views are passed as strided memrefs
(`strided<[?, ...], offset: ?>`) over a copy of the memory they span, as the cpu
target passes them.

The tools are MLIR 16's (Debian: `apt-get install mlir-16-tools libmlir-16`), found as
`mlir-opt-16` / `mlir-cpu-runner-16` on PATH or in /usr/lib/llvm-16/bin;
`find_mlir_tools()` says why they cannot be used when they cannot.
"""

from __future__ import annotations

import functools
import io
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from xdsl.dialects.builtin import MemRefType, ModuleOp, StridedLayoutAttr
from xdsl.dialects.func import FuncOp
from xdsl.printer import Printer
from xdsl.rewriter import Rewriter

from aicf.errors import AicfError

MLIR_VERSION = 16
"""The MLIR release whose syntax the output is printed in and whose passes
`LLVM_LOWERING` names."""

LLVM_LOWERING = (
    "--convert-scf-to-cf",
    "--arith-expand",  # floordivsi, ceildivsi
    "--convert-math-to-llvm",
    "--convert-math-to-libm",  # tanh, erf, ...: libm calls
    "--expand-strided-metadata",
    "--convert-memref-to-llvm",
    "--convert-arith-to-llvm",
    "--convert-func-to-llvm",
    "--convert-cf-to-llvm",
    "--reconcile-unrealized-casts",
)
"""mlir-opt-16's passes from aicf-to-upstream's output to the LLVM dialect."""

ENTRY = "aicf_upstream_main"
"""The driver function that reads the arguments, calls the entry, writes the outputs."""


class UpstreamError(AicfError):
    """Upstream's tools are missing, or failed on our output."""


@dataclass(frozen=True)
class MlirTools:
    opt: str
    runner: str
    runner_utils: str
    """libmlir_c_runner_utils (memrefCopy for copies of strided memrefs)."""


def _version(tool: str) -> int | None:
    try:
        out = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"LLVM version (\d+)", out)
    return int(m.group(1)) if m else None


def _find(name: str) -> str | None:
    for candidate in (f"{name}-{MLIR_VERSION}", f"/usr/lib/llvm-{MLIR_VERSION}/bin/{name}", name):
        path = shutil.which(candidate)
        if path is not None and _version(path) == MLIR_VERSION:
            return path
    return None


@functools.cache
def find_mlir_tools() -> MlirTools:
    """MLIR 16's mlir-opt, mlir-cpu-runner and runner library; UpstreamError saying
    what is missing otherwise."""
    install = f"(Debian/Ubuntu: apt-get install mlir-{MLIR_VERSION}-tools libmlir-{MLIR_VERSION})"
    opt, runner = _find("mlir-opt"), _find("mlir-cpu-runner")
    if opt is None or runner is None:
        missing = " and ".join(n for n, p in (("mlir-opt", opt), ("mlir-cpu-runner", runner)) if p is None)
        raise UpstreamError(f"MLIR {MLIR_VERSION}'s {missing} not found {install}")
    libdir = Path(runner).resolve().parent.parent / "lib"
    libs = sorted(libdir.glob("libmlir_c_runner_utils.so*"))
    if not libs:
        raise UpstreamError(f"libmlir_c_runner_utils.so not found in {libdir} {install}")
    return MlirTools(opt, runner, str(libs[0]))


def _load_module(src) -> ModuleOp:
    from aicf.compiler import _load

    return _load(src)


def lower_to_upstream(module: ModuleOp) -> ModuleOp:
    """Run `aicf-to-upstream` on `module` in place (it is returned)."""
    from aicf.compiler import run_pipeline

    run_pipeline(module, ["aicf-to-upstream"])
    return module


def print_upstream(module: ModuleOp, top_level: bool = False) -> str:
    """MLIR text of an upstream module that MLIR 16 parses (attributes for
    properties). `top_level`: its ops without the `builtin.module` around them, so
    more can be appended."""
    out = io.StringIO()
    printer = Printer(stream=out, print_properties_as_attributes=True)
    if not top_level:
        printer.print_op(module)
        return out.getvalue() + "\n"
    for op in module.ops:
        printer.print_op(op)
        out.write("\n")
    return out.getvalue()


def to_upstream_mlir(src) -> str:
    """`src` (MLIR text, a .mlir path or a ModuleOp, tensor or loop level) lowered to
    upstream dialects and printed for MLIR 16."""
    return print_upstream(lower_to_upstream(_load_module(src)))


# --- running through upstream's tools --------------------------------------------------

_IO_LIBRARY = r"""
/* Arguments in, outputs out, for programs run by mlir-cpu-runner: slot k is the file
   in<k>.bin / out<k>.bin of the working directory, the raw bytes of a contiguous
   memref (called through MLIR's C interface: an unranked memref descriptor). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct { int64_t rank; void *descriptor; } aicf_unranked;
typedef struct { char *allocated; char *aligned; int64_t offset; int64_t sizes[]; } aicf_ranked;

static void aicf_io(const aicf_unranked *m, int64_t slot, int64_t elsize, int write) {
  const aicf_ranked *d = (const aicf_ranked *)m->descriptor;
  int64_t n = 1;
  for (int64_t k = 0; k < m->rank; ++k) n *= d->sizes[k];
  char path[48];
  snprintf(path, sizeof path, "%s%lld.bin", write ? "out" : "in", (long long)slot);
  FILE *f = fopen(path, write ? "wb" : "rb");
  if (!f) { fprintf(stderr, "aicf io: cannot open %s\n", path); exit(70); }
  char *p = d->aligned + d->offset * elsize;
  size_t done = write ? fwrite(p, (size_t)elsize, (size_t)n, f) : fread(p, (size_t)elsize, (size_t)n, f);
  if (done != (size_t)n) { fprintf(stderr, "aicf io: short %s on %s\n", write ? "write" : "read", path); exit(70); }
  fclose(f);
}

#define AICF_IO(T, SIZE) \
  void _mlir_ciface_aicf_io_read_##T(aicf_unranked *m, int64_t slot) { aicf_io(m, slot, SIZE, 0); } \
  void _mlir_ciface_aicf_io_write_##T(aicf_unranked *m, int64_t slot) { aicf_io(m, slot, SIZE, 1); }
AICF_IO(f16, 2) AICF_IO(bf16, 2) AICF_IO(f32, 4) AICF_IO(f64, 8)
AICF_IO(i1, 1) AICF_IO(i8, 1) AICF_IO(i16, 2) AICF_IO(i32, 4) AICF_IO(i64, 8)
"""


@functools.cache
def _io_library() -> str:
    from aicf.backend.c.build import build_shared_library

    return str(build_shared_library(_IO_LIBRARY))


@dataclass(frozen=True)
class _View:
    """How an input array lies in memory: `span` elements from the lowest address it
    reaches, its first element `offset` elements in, `strides` in elements (None:
    contiguous, passed as it is)."""

    span: int
    offset: int
    strides: tuple[int, ...] | None

    @classmethod
    def of(cls, a: np.ndarray) -> _View:
        if a.flags.c_contiguous or a.size <= 1:
            return cls(a.size, 0, None)
        strides = tuple(s // a.itemsize for s in a.strides)
        low = sum(s * (n - 1) for s, n in zip(strides, a.shape) if s < 0)
        high = sum(s * (n - 1) for s, n in zip(strides, a.shape) if s > 0)
        return cls(high - low + 1, -low, strides)

    def memory(self, a: np.ndarray) -> np.ndarray:
        """A copy of the elements of the span, the memory the strided memref reads."""
        if self.strides is None:
            return np.ascontiguousarray(a)
        # the element at the lowest address: the last index along negative strides
        lowest = a[tuple(slice(n - 1, n) if s < 0 else slice(0, 1)
                         for s, n in zip(self.strides, a.shape))]  # fmt: skip
        return np.lib.stride_tricks.as_strided(lowest, (self.span,), (a.itemsize,)).copy()


def _text(attr) -> str:
    out = io.StringIO()
    Printer(stream=out).print_attribute(attr)
    return out.getvalue()


def _with_strided_arguments(module: ModuleOp, entry: str, strided: Sequence[bool]) -> ModuleOp:
    """A copy whose entry takes the marked arguments as `strided<[?, ...], offset: ?>`."""
    module = module.clone()
    func = next(f for f in module.ops if isinstance(f, FuncOp) and f.sym_name.data == entry)
    rewriter = Rewriter()
    for i, s in enumerate(strided):
        t = func.args[i].type
        if s and isinstance(t, MemRefType):
            layout = StridedLayoutAttr([None] * t.get_num_dims(), None)
            func.replace_argument_type(i, MemRefType(t.get_element_type(), t.get_shape(), layout), rewriter)
    return module


def driver(func: FuncOp, views: Sequence[_View], num_outputs: int) -> str:
    """`@aicf_upstream_main`: allocate every argument and read it from its slot (a
    strided input: the memory it spans, then a reinterpret_cast into its view), call
    the entry, write the outputs to theirs."""
    body: list[str] = []
    decls: dict[str, str] = {}
    args: list[str] = []
    allocs: list[tuple[str, str]] = []
    num_inputs = len(func.args) - num_outputs
    for i, arg in enumerate(func.args):
        t = arg.type
        assert isinstance(t, MemRefType)
        elt = _text(t.get_element_type())
        unranked = f"memref<*x{elt}>"
        for io_kind in ("read", "write"):
            decls[f"{io_kind}_{elt}"] = (f"func.func private @aicf_io_{io_kind}_{elt}({unranked}, i64) "
                                        "attributes {llvm.emit_c_interface}")  # fmt: skip
        view = views[i] if i < num_inputs else _View(0, 0, None)
        strided = view.strides is not None
        buf_t = f"memref<{view.span}x{elt}>" if strided else _text(t)
        body += [
            f"%b{i} = memref.alloc() : {buf_t}",
            f"%u{i} = memref.cast %b{i} : {buf_t} to {unranked}",
            f"%slot{i} = arith.constant {i} : i64",
            f"func.call @aicf_io_read_{elt}(%u{i}, %slot{i}) : ({unranked}, i64) -> ()",
        ]
        allocs.append((f"%b{i}", buf_t))
        if strided:
            assert view.strides is not None
            body.append(f"%off{i} = arith.constant {view.offset} : index")
            body += [f"%s{i}_{k} = arith.constant {s} : index" for k, s in enumerate(view.strides)]
            sizes = ", ".join(str(d) for d in t.get_shape())
            strides = ", ".join(f"%s{i}_{k}" for k in range(len(view.strides)))
            body.append(f"%a{i} = memref.reinterpret_cast %b{i} to offset: [%off{i}], sizes: [{sizes}], "
                        f"strides: [{strides}] : {buf_t} to {_text(t)}")  # fmt: skip
            args.append(f"%a{i}")
        else:
            args.append(f"%b{i}")
    types = ", ".join(_text(a.type) for a in func.args)
    body.append(f"func.call @{func.sym_name.data}({', '.join(args)}) : ({types}) -> ()")
    for k in range(num_outputs):
        i = num_inputs + k
        elt = _text(func.args[i].type.get_element_type())  # type: ignore[attr-defined]
        body.append(f"%out{k} = arith.constant {k} : i64")
        body.append(f"func.call @aicf_io_write_{elt}(%u{i}, %out{k}) : (memref<*x{elt}>, i64) -> ()")
    body += [f"memref.dealloc {b} : {t}" for b, t in allocs]
    lines = [*decls.values(), f"func.func @{ENTRY}() {{", *("  " + s for s in body), "  func.return", "}"]
    return "\n".join(lines) + "\n"


def _run_tool(cmd: list[str], what: str, **kwargs) -> subprocess.CompletedProcess:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, **kwargs)
    except OSError as e:
        raise UpstreamError(f"cannot run {cmd[0]}: {e}") from None
    if proc.returncode != 0:
        raise UpstreamError(f"{Path(cmd[0]).name} failed on {what} (exit {proc.returncode}):\n"
                            + (proc.stderr or proc.stdout).strip()[-4000:])  # fmt: skip
    return proc


class UpstreamProgram:
    """One entry of a module lowered by aicf-to-upstream, run by MLIR 16's tools on
    NumPy arrays (the `run(inputs, outputs)` of the cpu target's CpuProgram)."""

    def __init__(self, module: ModuleOp, entry: str, tools: MlirTools):
        self.module = module
        self.entry = entry
        self.tools = tools
        func = next(f for f in module.ops if isinstance(f, FuncOp) and f.sym_name.data == entry)
        nout = func.attributes.get("aicf.num_outputs")
        self.num_outputs = nout.value.data if nout is not None else 0  # type: ignore[attr-defined]

    def llvm_dialect(self, views: Sequence[_View]) -> str:
        """The module and its driver for arguments lying as `views` say, lowered by
        mlir-opt to the LLVM dialect."""
        module = _with_strided_arguments(self.module, self.entry, [v.strides is not None for v in views])
        func = next(f for f in module.ops if isinstance(f, FuncOp) and f.sym_name.data == self.entry)
        text = print_upstream(module, top_level=True) + driver(func, views, self.num_outputs)
        proc = _run_tool([self.tools.opt, *LLVM_LOWERING], f"@{self.entry}'s upstream MLIR", input=text)
        return proc.stdout

    def run(self, inputs: Sequence[np.ndarray], outputs: Sequence[np.ndarray]) -> None:
        views = [_View.of(a) for a in inputs]
        llvm = self.llvm_dialect(views)
        libs = f"-shared-libs={self.tools.runner_utils},{_io_library()}"
        with tempfile.TemporaryDirectory(prefix="aicf-upstream-") as tmp:
            work = Path(tmp)
            for i, (a, v) in enumerate(zip([*inputs, *outputs], [*views, *(_View.of(o) for o in outputs)])):
                (work / f"in{i}.bin").write_bytes(v.memory(a).tobytes())
            (work / "program.mlir").write_text(llvm)
            _run_tool([self.tools.runner, "-e", ENTRY, "-entry-point-result=void", "-O2", libs,
                       "program.mlir"], f"@{self.entry}", cwd=work)  # fmt: skip
            for k, o in enumerate(outputs):
                data = (work / f"out{k}.bin").read_bytes()
                np.copyto(o, np.frombuffer(data, o.dtype).reshape(o.shape))


def compile_upstream(src, *, entry: str | None = None):
    """An `Executable` (see aicf.compile) whose calls run `src` through upstream's
    tools: aicf-to-upstream, mlir-opt-16 to the LLVM dialect, mlir-cpu-runner-16.
    `exe.source` is the upstream MLIR. Raises UpstreamError when the tools are
    missing (find_mlir_tools) or fail."""
    from aicf.compiler import (Executable, _prepare_loop_entry, _select_entry, arg_names_of, arg_specs,
                               is_tensor_level)  # fmt: skip

    tools = find_mlir_tools()
    module = _load_module(src)
    func = _select_entry(module, entry)
    name, names = func.sym_name.data, arg_names_of(func)
    if not is_tensor_level(module):  # the program aicf.compile runs, to compare with it
        _prepare_loop_entry(module, func)
    lower_to_upstream(module)
    ins, outs = arg_specs(_select_entry(module, name), names)
    program = UpstreamProgram(module, name, tools)
    exe = Executable(module, name, "upstream", ins, outs, program, print_upstream(module), debug=True)
    exe.pipeline = ["aicf-to-upstream"]
    return exe
