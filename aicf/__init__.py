"""aicf: a multi-level IR compiler for tensor programs, on xDSL.

    import aicf
    exe = aicf.compile(mlir_text_or_path_or_module, target="cpu")
    y = exe(x, b)
"""

from aicf.compiler import Executable, compile
from aicf.errors import AicfError, ArgumentError, CompileError, LaunchError

__all__ = [
    "AicfError",
    "ArgumentError",
    "CompileError",
    "Executable",
    "LaunchError",
    "compile",
]

# The Python front end (tracing); appended here by the front end's owner.
from aicf import ops  # noqa: E402
from aicf.frontend import Tensor, TensorSpec, jit, trace  # noqa: E402

__all__ += ["Tensor", "TensorSpec", "jit", "ops", "trace"]
