# lit configuration: every .mlir file under test/lit is a test; RUN lines call
# aicf-opt and filecheck (both on PATH after `pip install -e .[test]`).
import os

import lit.formats

config.name = "aicf"
config.test_format = lit.formats.ShTest()
config.suffixes = [".mlir"]
# The suite root is the repository root; only test/lit holds tests.
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["Inputs", "examples", "bench", "build", "aicf", "dialects", "passes",
                   "lowering", "backend", "tools", "python", ".whl"]
config.environment["PATH"] = os.environ.get("PATH", "")
for var in ("HOME", "PYTHONPATH", "AICF_CACHE_DIR", "CUDA_PATH"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

# Upstream MLIR 16 (Debian's mlir-16-tools): tests of aicf-to-upstream's output that
# pipe it into mlir-opt-16 say `REQUIRES: mlir-16` and use %mlir-opt-16, with
# %upstream-to-llvm the passes aicf.upstream.LLVM_LOWERING names.
try:
    from aicf.upstream import LLVM_LOWERING, UpstreamError, find_mlir_tools

    _tools = find_mlir_tools()
except UpstreamError as _why:
    lit_config.note(f"tests that need MLIR 16 are skipped: {_why}")
else:
    config.available_features.add("mlir-16")
    config.substitutions.append(("%mlir-opt-16", _tools.opt))
    config.substitutions.append(("%mlir-cpu-runner-16", _tools.runner))
    config.substitutions.append(("%mlir-c-runner-utils", _tools.runner_utils))
    _libdir = os.path.dirname(_tools.runner_utils)
    # printMemref*: libmlir_runner_utils, beside libmlir_c_runner_utils
    _print = sorted(f for f in os.listdir(_libdir) if f.startswith("libmlir_runner_utils.so"))
    if _print:
        config.substitutions.append(("%mlir-runner-utils", os.path.join(_libdir, _print[0])))
    config.substitutions.append(("%upstream-to-llvm", " ".join(LLVM_LOWERING)))
