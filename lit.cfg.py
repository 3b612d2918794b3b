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
