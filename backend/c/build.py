"""Build emitted C into a shared library with the system C compiler, cached on disk.

The cache key is a hash of the source, the flags, the compiler's version string and the
identities of the libraries linked (`linked`: e.g. the BLAS package's version and path),
so the same program is built once per machine: `$AICF_CACHE_DIR/c/<hash>.so`
(default `~/.cache/aicf`). A failed build raises CompileError with the compiler's
message.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from aicf.errors import CompileError

CFLAGS = ("-O3", "-march=native", "-fopenmp", "-shared", "-fPIC", "-std=gnu11",
          "-Wno-unused-label", "-Wno-unused-variable")  # fmt: skip


def cache_dir() -> Path:
    root = os.environ.get("AICF_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "aicf"
    )
    return Path(root) / "c"


def compiler() -> str:
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc) is None:
        raise CompileError(f"the cpu target needs a C compiler: `{cc}` is not on PATH")
    return cc


@functools.cache
def compiler_version(cc: str) -> str:
    try:
        return subprocess.run(
            [cc, "--version"], capture_output=True, text=True, check=False
        ).stdout
    except OSError as e:
        raise CompileError(f"cannot run the C compiler `{cc}`: {e}") from None


def build_shared_library(source: str, link_flags: tuple[str, ...] = (),
                         linked: tuple[str, ...] = ()) -> Path:  # fmt: skip
    """Compile `source` into a shared library (or reuse the cached one); its path."""
    cc = compiler()
    flags = (*CFLAGS, *link_flags)
    key = hashlib.sha256(
        "\0".join((source, " ".join(flags), cc, compiler_version(cc), *linked)).encode()
    ).hexdigest()[:32]
    out_dir = cache_dir()
    lib = out_dir / f"{key}.so"
    if lib.exists():
        return lib
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
        src = Path(tmp) / f"{key}.c"
        src.write_text(source)
        tmp_lib = Path(tmp) / f"{key}.so"
        proc = subprocess.run(
            [cc, *CFLAGS, str(src), "-o", str(tmp_lib), *link_flags],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise CompileError(
                f"the C compiler failed on the generated code ({cc}):\n"
                + (proc.stderr or proc.stdout).strip()
            )
        (out_dir / f"{key}.c").write_text(source)
        # atomic: concurrent builders of the same program both succeed
        os.replace(tmp_lib, lib)
    return lib
