"""`aicf-opt`: xDSL's opt driver with aicf's dialects, passes and targets.

    aicf-opt FILE -p aicf-infer-shapes,aicf-lower-to-loops -t mlir|c|cuda|ptx

xDSL's own passes (canonicalize, cse, dce, ...) are there too. Malformed input and
failed verification print a diagnostic with the location and exit non-zero, without a
Python traceback.

mlir-opt's habits hold: `--pass-pipeline='builtin.module(...)'` (and -p) take MLIR's
textual pipelines, `-` is stdin and `-o -` stdout, every chunk of --split-input-file
runs (the exit code says whether all succeeded), --time-passes prints mlir-opt's
report and --print-ir-after-all the IR after every pass, on stderr.
`--verify-diagnostics` checks the diagnostics against the input's
`// expected-error {{...}}` annotations, as mlir-opt does (aicf.tools.verify_diagnostics).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import itertools
import re
import os
import sys
import time
from collections.abc import Sequence
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import (
    DiagnosticException,
    ParseError,
    ShrinkException,
    VerifyException,
)
from xdsl.xdsl_opt_main import xDSLOptMain

from aicf import __version__
from aicf.context import aicf_dialects
from aicf.diagnostics import (
    NESTED_TOO_DEEPLY,
    LocatedParser,
    decode_source,
    format_parse_error,
    verify_module,
)
from aicf.errors import AicfError
from aicf.registry import AICF_PASSES
from aicf.tools.pass_help import PIPELINE_HELP, pass_list
from aicf.tools.pass_pipeline import parse_pass_pipeline
from aicf.tools import verify_diagnostics as vd
from aicf.tools.pass_timing import PassTimer


SPLIT_MARKER = re.compile(rb"^// -----[ \t]*$", re.MULTILINE)


def _emit_c(module: ModuleOp, out: IO[str]) -> None:
    from aicf.backend.c.emit import emit_c

    out.write(emit_c(module))


def _emit_cuda(module: ModuleOp, out: IO[str]) -> None:
    from aicf.backend.cuda.emit import emit_cuda

    out.write(emit_cuda(module))


def _emit_ptx(module: ModuleOp, out: IO[str]) -> None:
    from aicf.backend.cuda.emit import emit_ptx

    out.write(emit_ptx(module))


class AicfOptMain(xDSLOptMain):
    version_format = f"aicf-opt {__version__} (xdsl {{xdsl_version}})"
    timer: PassTimer | None = None

    def register_all_dialects(self):
        super().register_all_dialects()
        for d in aicf_dialects():
            self.ctx.register_dialect(d.name, lambda d=d: d)

    def register_all_frontends(self):
        super().register_all_frontends()

        def parse_mlir(io: IO[bytes]) -> ModuleOp:
            data = io.read()
            if isinstance(data, bytes):
                data = decode_source(data, self.get_input_name(), self._chunk_offset)
            parser = LocatedParser(self.ctx, data, self.get_input_name())
            parser.line_offset = self._chunk_offset
            return parser.parse_module(not self.args.no_implicit_module)

        self.available_frontends["mlir"] = parse_mlir

    _chunk_offset = 0

    def parse_chunk(self, chunk: IO[bytes], file_extension: str, start_offset: int = 0):
        self._chunk_offset = start_offset
        try:
            module = super().parse_chunk(chunk, file_extension, start_offset)
        except ParseError as e:  # its line counts from the chunk's start
            e.span = dataclasses.replace(e.span, line_offset=start_offset)
            raise
        if module is not None and not self.args.disable_verify:
            verify_module(module)
        return module

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser):
        super().register_all_arguments(arg_parser)
        for action in arg_parser._actions:  # argparse has no public way to reword one
            if action.dest == "input_file":
                action.help = "the input file ('-' or none: stdin)"
            if "--output-file" in action.option_strings:
                action.help = "the output file ('-' or none: stdout)"
            if "--passes" in action.option_strings:
                action.help = PIPELINE_HELP
            if "--print-between-passes" in action.option_strings:
                action.help = "print the IR after every pass, on stderr"
        arg_parser.add_argument("--pass-pipeline", default=None, help="the same as -p")
        arg_parser.add_argument("--print-ir-after-all", "--mlir-print-ir-after-all",
                                dest="print_between_passes", action="store_true",
                                help="the same as --print-between-passes")  # fmt: skip
        # --help goes on to list the passes, ours first, with what they do and their
        # options; made only then, since it imports every pass.
        print_help = arg_parser.print_help

        def print_help_and_passes(file=None):
            print_help(file)
            passes = pass_list(self.available_passes, AICF_PASSES, self.available_targets)
            print("\n" + passes, file=file)

        arg_parser.print_help = print_help_and_passes

    def prepare_input(self) -> tuple[list[tuple[IO[bytes], int]], str]:
        """xDSLOptMain.prepare_input, but a chunk ends only at a line that is `// -----`
        (as in MLIR), not at that text inside a comment or a CHECK line."""
        if not self.args.split_input_file:
            return super().prepare_input()
        stream, ext = self.get_input_stream()
        pieces = SPLIT_MARKER.split(stream.read())
        if stream is not sys.stdin.buffer:
            stream.close()
        offsets = itertools.accumulate([0, *(p.count(b"\n") for p in pieces[:-1])])
        chunks = [(io.BytesIO(p), off) for p, off in zip(pieces, offsets, strict=True)]
        ext = self.args.frontend or ext
        if ext not in self.available_frontends:
            raise AicfError(f"unrecognized file extension '{ext}'")
        return chunks, ext

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        if self.args.input_file == "-":
            return sys.stdin.buffer, "mlir"
        stream, ext = super().get_input_stream()
        # any other file is MLIR text, as mlir-opt reads it (foo.txt, /dev/stdin: xDSL
        # raised a raw ValueError for the extension); -f still names a frontend
        return stream, ext if ext in self.available_frontends else "mlir"

    def get_input_name(self):
        return "<stdin>" if self.args.input_file in (None, "-") else self.args.input_file

    def prepare_output(self) -> IO[str]:
        return sys.stdout if self.args.output_file == "-" else super().prepare_output()

    def _timed(self, key: str, label: str):
        return self.timer.timing(key, label) if self.timer else contextlib.nullcontext()

    def setup_pipeline(self):
        if self.args.time_passes:
            self.timer = PassTimer()
        step, started = 0, 0.0

        def callback(previous, module: ModuleOp, next_pass) -> None:
            nonlocal step, started
            if previous is None:
                step = 0
            else:
                if self.timer:
                    self.timer.add(step, previous.name, time.perf_counter() - started)
                step += 1
                if not self.args.disable_verify:
                    with self._timed("verifier", "(verifier)"):
                        verify_module(module)
                if self.args.print_between_passes:
                    print(f"// -----// IR Dump After {previous.name} //----- //",
                          file=sys.stderr)  # fmt: skip
                    print(module, file=sys.stderr)
            started = time.perf_counter()

        if self.args.pass_pipeline is not None and self.args.passes:
            raise AicfError("give the passes with -p or with --pass-pipeline, not both")
        spec = self.args.passes or self.args.pass_pipeline or ""
        self.pipeline = parse_pass_pipeline(spec, self.available_passes, callback)

    def run(self) -> bool:
        """xDSLOptMain.run, but every chunk of --split-input-file runs, even after one
        failed (its diagnostic is printed on stderr). Returns whether all succeeded."""
        if self.args.parsing_diagnostics:
            raise AicfError("--parsing-diagnostics is xDSL's way of testing parse errors; "
                            "aicf-opt checks them with --verify-diagnostics and expected-error")
        if self.args.verify_diagnostics:
            return self._run_verify()
        chunks, file_extension = self.prepare_input()
        output = self.prepare_output()
        ok = True
        try:
            for i, (chunk, offset) in enumerate(chunks):
                if i > 0:
                    output.write("// -----\n")
                try:
                    ok &= self._run_chunk(chunk, file_extension, offset, output)
                finally:
                    chunk.close()
        except ShrinkException:  # as xDSLOptMain: tell shrinkray it may shrink
            assert self.args.shrink
            print("Success, can shrink")
            sys.exit(0)
        finally:
            if output is not sys.stdout:
                output.close()
        if self.timer:
            self.timer.report(sys.stderr)
        if self.args.shrink:
            print("Failure, can't shrink")
            sys.exit(1)
        return ok

    def _run_verify(self) -> bool:
        """--verify-diagnostics with MLIR's meaning: each chunk's diagnostics must be
        exactly its `expected-*` annotations (text and line)."""
        chunks, ext = self.prepare_input()
        output = self.prepare_output()
        problems: list[str] = []
        try:
            for i, (chunk, offset) in enumerate(chunks):
                text = chunk.read()
                try:
                    expected = vd.expectations(text.decode("utf-8", "replace"), offset + 1)
                except vd.MalformedAnnotation as e:
                    problems.append(f"{self.get_input_name()}: {e}")
                    continue
                printed = program = ""
                if i > 0:
                    output.write("// -----\n")
                try:
                    module = self.parse_chunk(io.BytesIO(text), ext, offset)
                    if module is not None:
                        self.apply_passes(module)
                        program = self.output_resulting_program(module)
                except Exception as e:
                    printed = error_message(e)
                    if printed is None:
                        raise
                else:
                    output.write(program)
                problems += vd.check(expected, vd.diagnostics(printed), self.get_input_name())
            output.flush()  # an output that cannot be written is an error, not a diagnostic
        finally:
            if output is not sys.stdout:
                output.close()
        if problems:
            raise AicfError("--verify-diagnostics:\n" + "\n".join(problems))
        return True

    def _run_chunk(self, chunk: IO[bytes], file_extension: str, offset: int,
                   output: IO[str]) -> bool:  # fmt: skip
        try:
            with self._timed("parser", "Parser"):
                module = self.parse_chunk(chunk, file_extension, offset)
            if module is not None:
                self.apply_passes(module)
                with self._timed("output", "Output"):
                    output.write(self.output_resulting_program(module))
            output.flush()
            return True
        except Exception as e:
            return _report(e)

    def register_all_passes(self):
        super().register_all_passes()
        for name, factory in AICF_PASSES.items():
            self.register_pass(name, factory)

    def register_all_targets(self):
        # xDSL's other targets (wat, wgsl, csl, llvm, the assemblers) print their own
        # dialects and printed nothing, or failed deep inside, on aicf's programs;
        # xdsl-opt still has them.
        super().register_all_targets()
        self.available_targets = {"mlir": self.available_targets["mlir"]}
        self.available_targets["c"] = _emit_c
        self.available_targets["cuda"] = _emit_cuda
        self.available_targets["ptx"] = _emit_ptx


def error_message(e: BaseException) -> str | None:
    """The one-line (or MLIR-style located) diagnostic for a user error, or None for
    an exception that is a bug in aicf or xDSL."""
    if isinstance(e, ParseError):
        return format_parse_error(e)
    if isinstance(e, (VerifyException, DiagnosticException)):
        text = str(e).rstrip()
        # aicf's carry `file:line:col: error:` (or `@f (no source location): error:`)
        return text if "error: " in text.split("\n", 1)[0] else f"error: {text}"
    if isinstance(e, AicfError):
        return f"error: {e}"
    if isinstance(e, OSError):  # the input or output file cannot be opened
        return f"error: {e.strerror}" + (f": {e.filename}" if e.filename else "")
    if isinstance(e, RecursionError):  # a pass or the printer on a deeply nested program
        return f"error: {NESTED_TOO_DEEPLY}"
    if isinstance(e, MemoryError):
        return "error: out of memory (the input, or what a pass made of it, is too large)"
    return None


def _report(e: BaseException) -> bool:
    """Print `e` as a diagnostic. An exception that is no user error (a bug, or one of
    xDSL's passes and targets that `--help` lists but that fail on aicf's programs)
    is one line too; AICF_TRACEBACK=1 raises it instead, for its traceback."""
    message = error_message(e)
    if message is None:
        if os.environ.get("AICF_TRACEBACK", "").strip().lower() not in ("", "0", "off", "false", "no"):
            raise e
        first = (str(e).strip().splitlines() or [""])[0][:300]
        message = (f"error: internal error: {type(e).__name__}{': ' + first if first else ''} "
                   "(a bug, or an xDSL pass or target that does not take this program; "
                   "AICF_TRACEBACK=1 shows where)")
    print(message, file=sys.stderr)
    return False


def main(argv: Sequence[str] | None = None) -> int:
    try:
        ok = AicfOptMain(
            description="aicf modular optimizer driver (xDSL opt with aicf's passes)",
            args=argv,
        ).run()
    except Exception as e:
        _report(e)
        return 1
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
