"""`aicf-opt`: xDSL's opt driver with aicf's dialects, passes and targets.

    aicf-opt FILE -p aicf-infer-shapes,aicf-lower-to-loops -t mlir|c|cuda|ptx

xDSL's own passes (canonicalize, cse, dce, ...) are there too. Malformed input and
failed verification print a diagnostic with the location and exit non-zero, without a
Python traceback. `--verify-diagnostics` checks the diagnostics against the input's
`// expected-error {{...}}` annotations, as mlir-opt does (aicf.tools.verify_diagnostics).
"""

from __future__ import annotations

import io
import sys
from collections.abc import Sequence
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException
from xdsl.xdsl_opt_main import xDSLOptMain

from xdsl.passes import PassPipeline

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
from aicf.tools import verify_diagnostics as vd


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
    version_format = "aicf-opt (xdsl {xdsl_version})"

    def register_all_dialects(self):
        super().register_all_dialects()
        for d in aicf_dialects():
            self.ctx.register_dialect(d.name, lambda d=d: d)

    def register_all_frontends(self):
        super().register_all_frontends()

        def parse_mlir(io: IO[bytes]) -> ModuleOp:
            data = io.read()
            if isinstance(data, bytes):
                data = decode_source(data, self.get_input_name())
            parser = LocatedParser(self.ctx, data, self.get_input_name())
            parser.line_offset = self._chunk_offset
            return parser.parse_module(not self.args.no_implicit_module)

        self.available_frontends["mlir"] = parse_mlir

    _chunk_offset = 0

    def parse_chunk(self, chunk: IO[bytes], file_extension: str, start_offset: int = 0):
        self._chunk_offset = start_offset
        module = super().parse_chunk(chunk, file_extension, start_offset)
        if module is not None and not self.args.disable_verify:
            verify_module(module)
        return module

    def run(self):
        if not self.args.verify_diagnostics:
            return super().run()
        stream, _ = self.get_input_stream()
        data = stream.read()
        if stream is not sys.stdin.buffer:
            stream.close()
        self.get_input_stream = lambda: (io.BytesIO(data), "mlir")  # type: ignore[method-assign]
        if not vd.has_annotations(data.decode("utf-8", "replace")):
            return super().run()  # xDSL's meaning: print the first error, exit 0
        chunks, ext = self.prepare_input()
        output = self.prepare_output()
        problems: list[str] = []
        for i, (chunk, offset) in enumerate(chunks):
            text = chunk.read()
            expected = vd.expectations(text.decode("utf-8", "replace"), offset + 1)
            printed = ""
            try:
                if i > 0:
                    output.write("// -----\n")
                module = self.parse_chunk(io.BytesIO(text), ext, offset)
                if module is not None:
                    self.apply_passes(module)
                    output.write(self.output_resulting_program(module))
            except Exception as e:
                printed = failure_message(e)
                if printed is None:
                    raise
            problems += vd.check(expected, vd.diagnostics(printed), self.get_input_name())
        if problems:
            raise AicfError("--verify-diagnostics:\n" + "\n".join(problems))

    def setup_pipeline(self):
        def callback(previous, module: ModuleOp, next_pass) -> None:
            if previous is not None and not self.args.disable_verify:
                verify_module(module)
            if previous and next_pass and self.args.print_between_passes:
                print(f"// -----// IR after {previous.name} //----- //")
                print(module)

        try:
            self.pipeline = PassPipeline.parse_spec(
                self.available_passes, self.args.passes, callback
            )
        except ValueError as e:  # an unknown pass name: a user error, not a crash
            raise AicfError(f"{e} (aicf-opt --help lists the passes)") from None

    def register_all_passes(self):
        super().register_all_passes()
        for name, factory in AICF_PASSES.items():
            self.register_pass(name, factory)

    def register_all_targets(self):
        super().register_all_targets()
        self.available_targets["c"] = _emit_c
        self.available_targets["cuda"] = _emit_cuda
        self.available_targets["ptx"] = _emit_ptx


def failure_message(e: BaseException) -> str | None:
    """What aicf-opt prints for a failure of the user's input, None for a bug."""
    if isinstance(e, ParseError):
        return format_parse_error(e)
    if isinstance(e, VerifyException | DiagnosticException):
        return str(e).rstrip()
    if isinstance(e, AicfError):
        return f"error: {e}"
    if isinstance(e, OSError):  # the input or output file cannot be opened
        return f"error: {e.strerror}: {e.filename}"
    if isinstance(e, RecursionError):  # a pass or the printer on a deeply nested program
        return f"error: {NESTED_TOO_DEEPLY}"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    try:
        AicfOptMain(
            description="aicf modular optimizer driver (xDSL opt with aicf's passes)",
            args=argv,
        ).run()
    except Exception as e:
        message = failure_message(e)
        if message is None:
            raise
        print(message, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
