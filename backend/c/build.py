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
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

from aicf.backend import disk_cache
from aicf.errors import CompileError

# -ffp-contract=off: each product is rounded as the program says (GCC's gnu11 default,
# fast, fused a * b - c * d into fma(a, b, -(c * d)), whose result is the rounding error
# of c * d: the real part of (a + ai)(b + bi) was 1e-8, not NumPy's and torch's 0;
# inductor's cpu code is built with it off too). Explicit fma() calls stay fused.
CFLAGS = ("-O3", "-march=native", "-ffp-contract=off", "-fopenmp", "-shared", "-fPIC", "-std=gnu11",
          "-Wno-unused-label", "-Wno-unused-variable")  # fmt: skip


def compiler() -> str:
    """$CC (default `cc`; empty is unset), a command line as make and Python's own
    builds take it: `ccache gcc` or `gcc -m64` was refused as "not on PATH"."""
    cc = os.environ.get("CC", "").strip() or "cc"
    try:
        program = shlex.split(cc)[0]
    except (ValueError, IndexError) as e:  # an unclosed quote
        raise CompileError(f"the cpu target's C compiler CC={cc!r} is no command line ({e})") from None
    if shutil.which(program) is None:
        raise CompileError(f"the cpu target needs a C compiler: `{program}` (CC={cc!r}) is not on PATH"
                           if program != cc else f"the cpu target needs a C compiler: `{cc}` is not on PATH")
    return cc


def _argv(cc: str) -> list[str]:
    """The command `cc` (compiler()'s) starts with."""
    return shlex.split(cc)


def _run(cmd: list[str], timeout: float | None = None) -> subprocess.CompletedProcess:
    # the output goes to files, not pipes: a process forked (by another thread) while
    # the compiler runs holds a pipe's write end, and the read waited for EOF until it
    # exited; the wait for the compiler's exit does not depend on anyone else
    try:
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            # LC_ALL=C: the compiler's messages in plain ASCII, the same on every machine
            proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err, check=False,
                                  timeout=timeout, env={**os.environ, "LC_ALL": "C"})
            out.seek(0)
            err.seek(0)
            return subprocess.CompletedProcess(cmd, proc.returncode, out.read().decode(errors="replace"),
                                               err.read().decode(errors="replace"))
    except subprocess.TimeoutExpired:
        raise CompileError(f"the C compiler `{cmd[0]}` did not finish in {timeout:g} s") from None
    except OSError as e:
        raise CompileError(f"cannot run the C compiler `{cmd[0]}`: {e}") from None


@functools.cache
def compiler_version(cc: str) -> str:
    return _run([*_argv(cc), "--version"]).stdout


@functools.cache
def host_cpu(cc: str) -> str:
    """What `-march=native` means here: the compiler's expansion of it (the -march and
    feature flags it passes on, with gcc and clang), else /proc/cpuinfo's model and flags."""
    driver = _run([*_argv(cc), "-march=native", "-###", "-E", "-x", "c", os.devnull]).stderr
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


def _cached(key: str, suffix: str, command, failed: str, source: str | None = None,
            timeout: float | None = None) -> Path:  # fmt: skip
    """The cached entry `key`, or built now: `command(src, out)` is the compiler's
    command line (src: `source` written to a file); a failure raises CompileError
    starting with `failed` and carrying the compiler's message."""
    found = disk_cache.lookup("c", key, suffix)
    if found is not None:
        return found
    with tempfile.TemporaryDirectory(prefix="aicf-build-") as tmp:
        src = Path(tmp) / f"{key}.c"
        if source is not None:
            src.write_text(source)
        out = Path(tmp) / f"{key}{suffix}"
        proc = _run(command(str(src), str(out)), timeout)
        if proc.returncode != 0:
            # a compiler that fails without a word (CC=false, a killed cc1) said nothing at all
            said = (proc.stderr or proc.stdout).strip() or f"it exited with status {proc.returncode} and no message"
            raise CompileError(failed + "\n" + said)
        try:
            data = out.read_bytes()
        except OSError:  # a "compiler" that succeeds without writing anything
            raise CompileError(f"{failed}\nit exited 0 but wrote no {out.name}") from None
        return disk_cache.store("c", key, suffix, data)


def build_shared_library(source: str, link_flags: tuple[str, ...] = (),
                         linked: tuple[str, ...] = ()) -> Path:  # fmt: skip
    """Compile `source` into a shared library (or reuse the cached one); its path."""
    cc = compiler()
    flags = (*CFLAGS, *link_flags)
    return _cached(cache_key(source, flags, linked), ".so",
                   lambda src, out: [*_argv(cc), *CFLAGS, src, "-o", out, *link_flags],
                   f"the C compiler failed on the generated code ({cc}):", source)


OBJECT_FLAGS = tuple(f for f in CFLAGS if f != "-shared") + ("-c",)


def build_object(source: str, what: str, timeout: float | None = None) -> Path:
    """Compile `source` into an object file (or reuse the cached one); its path. A
    failure raises CompileError with the compiler's message, naming `what`."""
    cc = compiler()
    return _cached(cache_key(source, OBJECT_FLAGS), ".o", lambda src, out: [*_argv(cc), *OBJECT_FLAGS, src, "-o", out],
                   f"the C compiler failed on {what} ({cc}):", source, timeout)


def link_shared_library(objects: tuple[Path, ...], timeout: float | None = None) -> Path:
    """Objects linked into a shared library (cached under their contents); its path."""
    cc = compiler()
    digests = [hashlib.sha256(p.read_bytes()).hexdigest() for p in objects]
    flags = ("-shared", "-fopenmp")
    return _cached(cache_key("link " + " ".join(digests), flags), ".so",
                   lambda src, out: [*_argv(cc), *flags, *map(str, objects), "-o", out], f"linking failed ({cc}):",
                   timeout=timeout)
