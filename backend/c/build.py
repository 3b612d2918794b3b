"""Build emitted C into a shared library with the system C compiler, cached on disk.

The cache key is a hash of the source, the flags, the compiler's version string, the
identities of the libraries linked (`linked`: e.g. the BLAS package's version and path)
and the host CPU as `-march=native` resolves it (a cache shared between machines must
not hand one CPU's instructions to another), so the same program is built once per
machine. Entries live in the private `c` directory of the on-disk cache
(backend/disk_cache.py: layout, checks before loading, size bound). A failed build
raises CompileError with the compiler's message.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from aicf.backend import disk_cache
from aicf.errors import CompileError

CFLAGS = ("-O3", "-march=native", "-fopenmp", "-shared", "-fPIC", "-std=gnu11",
          "-Wno-unused-label", "-Wno-unused-variable")  # fmt: skip


def compiler() -> str:
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc) is None:
        raise CompileError(f"the cpu target needs a C compiler: `{cc}` is not on PATH")
    return cc


def _run(cmd: list[str]) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as e:
        raise CompileError(f"cannot run the C compiler `{cmd[0]}`: {e}") from None


@functools.cache
def compiler_version(cc: str) -> str:
    return _run([cc, "--version"]).stdout


@functools.cache
def host_cpu(cc: str) -> str:
    """What `-march=native` means here: the compiler's expansion of it (the -march and
    feature flags it passes on, with gcc and clang), else /proc/cpuinfo's model and flags."""
    driver = _run([cc, "-march=native", "-###", "-E", "-x", "c", os.devnull]).stderr
    flags = [ln.strip() for ln in driver.splitlines() if "march=" in ln or "target-cpu" in ln]
    if flags:
        return "\n".join(flags)
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return ""
    return "\n".join(
        sorted({ln for ln in info.splitlines() if ln.startswith(("model name", "flags"))})
    )


def cache_key(source: str, flags: tuple[str, ...], linked: tuple[str, ...] = ()) -> str:
    cc = compiler()
    parts = (source, " ".join(flags), cc, compiler_version(cc), host_cpu(cc), *linked)
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]


def build_shared_library(source: str, link_flags: tuple[str, ...] = (),
                         linked: tuple[str, ...] = ()) -> Path:  # fmt: skip
    """Compile `source` into a shared library (or reuse the cached one); its path."""
    cc = compiler()
    flags = (*CFLAGS, *link_flags)
    key = cache_key(source, flags, linked)
    lib = disk_cache.lookup("c", key, ".so")
    if lib is not None:
        return lib
    with tempfile.TemporaryDirectory(prefix="aicf-build-") as tmp:
        src = Path(tmp) / f"{key}.c"
        src.write_text(source)
        tmp_lib = Path(tmp) / f"{key}.so"
        proc = _run([cc, *CFLAGS, str(src), "-o", str(tmp_lib), *link_flags])
        if proc.returncode != 0:
            raise CompileError(
                f"the C compiler failed on the generated code ({cc}):\n"
                + (proc.stderr or proc.stdout).strip()
            )
        return disk_cache.store("c", key, ".so", tmp_lib.read_bytes())
