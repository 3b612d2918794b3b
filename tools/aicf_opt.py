"""`aicf-opt`: xDSL's opt driver with aicf's dialects, passes and targets.

    aicf-opt FILE -p aicf-infer-shapes,aicf-lower-to-loops -t mlir|c|cuda|ptx

xDSL's own passes (canonicalize, cse, dce, ...) are there too. Malformed input and
failed verification print a diagnostic with the location and exit non-zero, without a
Python traceback (use --verify-diagnostics to print it and exit 0, for lit tests).
"""

from __future__ import annotations

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


def main(argv: Sequence[str] | None = None) -> int:
    try:
        AicfOptMain(
            description="aicf modular optimizer driver (xDSL opt with aicf's passes)",
            args=argv,
        ).run()
    except ParseError as e:
        print(format_parse_error(e), file=sys.stderr)
        return 1
    except (VerifyException, DiagnosticException) as e:
        print(str(e).rstrip(), file=sys.stderr)
        return 1
    except AicfError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except OSError as e:  # the input or output file cannot be opened
        print(f"error: {e.strerror}: {e.filename}", file=sys.stderr)
        return 1
    except RecursionError:  # a pass or the printer on a deeply nested program
        print(f"error: {NESTED_TOO_DEEPLY}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
