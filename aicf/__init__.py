"""aicf: a multi-level IR compiler for tensor programs, on xDSL.

    import aicf
    exe = aicf.compile(mlir_text_or_path_or_module, target="cpu")
    y = exe(x, b)

    @aicf.jit
    def f(x, b):
        return aicf.ops.reduce_sum(aicf.ops.sin(x * 1.7 + b), axis=-1)

    with aicf.profiler() as prof:   # cuda target: every launch, timed
        exe(x, b)
    print(prof.table())
"""

# The one place the version is written: pyproject.toml reads it from here
# ([tool.setuptools.dynamic]), and aicf-opt/aicf-run --version print it.
__version__ = "0.1.0"

from aicf.compiler import Executable, compile  # noqa: E402
from aicf.errors import AicfError, ArgumentError, CompileError, LaunchError  # noqa: E402
from aicf.math_precision import get_float32_matmul_precision, set_float32_matmul_precision  # noqa: E402
from aicf.profiling import profiler  # noqa: E402
from aicf.logs import configure_from_env as _configure_logs  # noqa: E402

_configure_logs()

__all__ = [
    "AicfError",
    "ArgumentError",
    "CompileError",
    "Executable",
    "LaunchError",
    "Tensor",
    "TensorSpec",
    "__version__",
    "compile",
    "get_float32_matmul_precision",
    "jit",
    "kernels",
    "ops",
    "profiler",
    "set_float32_matmul_precision",
    "trace",
]

_FRONTEND = {"Tensor", "TensorSpec", "jit", "trace"}


def __getattr__(name: str):
    # The tracing front end is imported on first use: `import aicf` for compile()
    # alone should not pay for it.
    if name in _FRONTEND:
        from aicf import frontend

        return getattr(frontend, name)
    if name in ("ops", "kernels"):
        import importlib

        return importlib.import_module(f"aicf.{name}")
    raise AttributeError(f"module 'aicf' has no attribute {name!r}")
