"""The on-disk cache of built code, shared by the cpu target (shared libraries) and the
cuda target (cubins).

Layout: `$AICF_CACHE_DIR/<target>/<key><suffix>` with a sidecar
`<key><suffix>.sha256` holding the SHA-256 of the entry's name and bytes (default root
`~/.cache/aicf`; targets `c` and `cuda`). Keys are hashes of everything the built code
depends on (source, flags, compiler version, host CPU or GPU arch), made by the caller.

Loading a cached file runs its code, so the cache must hold only what this user built:
- The root and the target directory must be directories owned by the current user and
  not writable by group or others; the ones we create are 0700. The root is used by
  its real path (symbolic links resolved), and each directory above it must be
  root's or the user's and not writable by others unless sticky (/tmp): otherwise
  another user could swap the checked directory for theirs before a load. A directory that fails
  this (or cannot be created: not a directory, no permission) is not used: a warning
  names it and the process falls back to a fresh private directory of its own (the
  cache is an optimisation, so the program still runs; it just rebuilds). A predictable
  name in a directory someone else can write is the hole; the private directory is
  what closes it.
- An entry is used only if it and its sidecar are regular files (not links) owned by
  the user, not group/world-writable, and the entry's digest matches the sidecar.
  The digest covers the entry's name: an entry and its sidecar moved under another
  key (swapped with another program's) do not match, instead of running the other
  program. Anything else (truncated, corrupt, replaced, sidecar missing) is removed
  and rebuilt.
- Writes are atomic: a temporary file in the same directory, renamed into place, the
  entry before its sidecar, so a reader never sees a half-written entry as valid. A
  temporary file older than an hour (its writer was killed) is removed by the next store.
- Size is bounded: after each store, least-recently-used entries (a hit refreshes the
  entry's mtime) are removed until the target directory holds at most
  `$AICF_CACHE_MAX_MB` MiB (default 1024).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import shutil
import stat
import tempfile
import time
import warnings
from pathlib import Path

from aicf.errors import CompileError
from aicf.logs import getLogger

_log = getLogger("cache")

DEFAULT_MAX_MB = 1024.0
_SIDECAR = ".sha256"
# no artifact comes near it (a GPT-2 program record is a few MB, a cubin well under
# 100 MB); a planted giant entry is not read into memory
MAX_ENTRY_BYTES = 2**30


def root() -> Path:
    # ~ expanded: where no shell expands it (a Dockerfile's ENV, a systemd unit, a quoted
    # value) AICF_CACHE_DIR=~/cache made a directory named `~` in the working directory
    return Path(os.environ.get("AICF_CACHE_DIR") or Path.home() / ".cache" / "aicf").expanduser()


def _unsafe(st: os.stat_result, what: str) -> str | None:
    """Why a file or directory with this stat may not be trusted, or None."""
    if st.st_uid != os.geteuid():
        return f"{what} is owned by another user (uid {st.st_uid})"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"{what} is writable by group or others (mode {stat.S_IMODE(st.st_mode):o})"
    return None


def untrusted(path: Path, what: str) -> str | None:
    """Why the file at `path` may not be trusted (another user's, one that others may
    rewrite, or one in a folder where others may put another file under its name), or
    None; the cache's rule, for files aicf finds without being told. `path` should be
    resolved (no links): what is checked is then what is read."""
    try:
        why = _unsafe(path.stat(), what)
    except OSError as e:
        return f"{what} cannot be read ({e.strerror or e})"
    return why or _unsafe_parents(path)


def _private_dir(path: Path) -> str | None:
    """Make `path` a private directory (0700 if created); why it cannot be used, or None."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = path.stat()
    except OSError as e:
        return f"cannot create or use it ({e.strerror or e})"
    except RecursionError:  # pathlib's mkdir(parents=True) recurses once per missing level
        return "cannot create it (too many missing parent directories)"
    if not stat.S_ISDIR(st.st_mode):
        return "it is not a directory"
    return _unsafe(st, "it")


@functools.cache
def _fallback_root() -> Path:
    """This process's private directory (0700), made once and removed at exit (each
    process that fell back used to leave one in /tmp)."""
    import atexit

    d = Path(tempfile.mkdtemp(prefix="aicf-cache-"))
    atexit.register(_remove_fallback, d, os.getpid())
    return d


def _fallback_dir(target: str) -> Path:
    """The folder of `target` in this process's private directory, created if needed."""
    d = _fallback_root() / target
    try:
        d.mkdir(mode=0o700, exist_ok=True)
    except FileNotFoundError:
        # removed at the exit of the process that made it: a forked child outliving its
        # parent (a server that daemonises) raised a raw FileNotFoundError here
        _fallback_root.cache_clear()
        d = _fallback_root() / target
        d.mkdir(mode=0o700, exist_ok=True)
    return d


def _remove_fallback(d: Path, creator: int) -> None:
    # a child forked after it was made inherits the handler and uses the directory
    # too: one that exited normally removed it under its parent, whose next compile
    # raised a raw FileNotFoundError
    if os.getpid() == creator:
        shutil.rmtree(d, True)


def _unsafe_parents(path: Path) -> str | None:
    """Why another user could move the directory `path` away, or put something else
    under its name, between our check of an entry and its load (a parent they own or
    may write, other than a sticky one such as /tmp), or None."""
    for d in path.parents:
        try:
            st = d.stat()
        except OSError as e:
            return f"its parent {d} cannot be read ({e.strerror or e})"
        if st.st_uid not in (0, os.geteuid()):
            return f"its parent {d} is owned by another user (uid {st.st_uid})"
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not st.st_mode & stat.S_ISVTX:
            return f"its parent {d} is writable by group or others (mode {stat.S_IMODE(st.st_mode):o})"
    return None


def directory(target: str) -> Path:
    """The private cache directory of `target` (created on first use), as a path
    without symbolic links: a link to the cache (or a parent another user may
    write) could be re-pointed after an entry is checked and before it is loaded."""
    given = root()
    base = Path(os.path.realpath(given))
    for d in (base, base / target):
        why = _private_dir(d)
        if why is None and d == base:
            why = _unsafe_parents(base)
            if why is None and os.path.realpath(base) != str(base):  # a link made since
                why = "it became a symbolic link"
        if why is not None:
            fallback = _fallback_dir(target)
            _warn_once(
                f"aicf: not using the cache directory {d} (AICF_CACHE_DIR={given}): {why}; "
                f"building into the private directory {fallback.parent} instead"
            )
            return fallback
    return base / target


@functools.cache
def _warn_once(message: str) -> None:
    warnings.warn(message, RuntimeWarning, stacklevel=4)


def digest(name: str, data: bytes) -> str:
    """What the sidecar of the entry `name` (`<key><suffix>`) holding `data` records."""
    return hashlib.sha256(name.encode() + b"\0" + data).hexdigest()


def _read_trusted(path: Path) -> bytes | None:
    """The bytes of `path` if it is a regular file we may trust, else None."""
    try:  # O_NONBLOCK: a FIFO planted under the name would block the open forever
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or _unsafe(st, "entry") is not None:
        os.close(fd)
        return None
    if st.st_size > MAX_ENTRY_BYTES:  # read whole, a planted giant would exhaust memory
        os.close(fd)
        return None
    with os.fdopen(fd, "rb") as f:
        return f.read()


def _remove(*paths: Path) -> None:
    for p in paths:
        try:
            p.unlink()
        except FileNotFoundError:
            pass
        except IsADirectoryError:  # something made a directory under an entry's name
            shutil.rmtree(p, ignore_errors=True)
        except OSError as e:  # a read-only cache (a mount, a folder without write access): left as it is
            _log.info("cannot remove %s (%s)", p, e.strerror or e)


def remove(entry: Path) -> None:
    """Drop an entry (and its sidecar) its user found unusable."""
    _log.info("removed the entry %s, which did not load (rebuilding it)", entry)
    _remove(entry, entry.with_name(entry.name + _SIDECAR))


_KEY = re.compile(r"[^/\\\x00.][^/\\\x00]{0,200}")


def _checked_key(key: str) -> str:
    """`key` if it names a file in the cache's own directory: a key with a slash, a
    leading dot or `..` (one a hand-written schedule gives) would reach, and remove,
    files outside it."""
    if not isinstance(key, str) or _KEY.fullmatch(key) is None or ".." in key:
        raise CompileError(f"{key!r} is no cache key (no '/', no leading '.', no '..')")
    return key


def lookup(target: str, key: str, suffix: str) -> Path | None:
    """The path of a valid cached entry, or None (an invalid one is removed)."""
    key = _checked_key(key)
    d = directory(target)
    entry, sidecar = d / f"{key}{suffix}", d / f"{key}{suffix}{_SIDECAR}"
    if not entry.exists() and not sidecar.exists():
        _log.info("%s miss: %s", target, entry)
        return None
    data, recorded = _read_trusted(entry), _read_trusted(sidecar)
    if data is None or recorded is None or recorded.decode(errors="replace") != digest(entry.name, data):
        _log.info("%s: removed the untrusted or corrupt entry %s (rebuilding it)", target, entry)
        _remove(entry, sidecar)
        return None
    try:
        os.utime(entry)  # most recently used
    except OSError:  # a read-only cache (a mount, say) is still read; only its LRU order stays
        pass
    _log.debug("%s hit: %s", target, entry)
    return entry


def read_checked(entry: Path) -> bytes | None:
    """The bytes of the cache entry `entry`, read once and checked against its digest
    now, or None. What a caller loads must be these bytes, not the file again: the
    file may change after its check (another process of this user truncating it, or
    writing it in place)."""
    data, recorded = _read_trusted(entry), _read_trusted(entry.with_name(entry.name + _SIDECAR))
    if data is None or recorded is None or recorded.decode(errors="replace") != digest(entry.name, data):
        return None
    return data


def lookup_json(target: str, key: str, suffix: str) -> dict | None:
    """A checked entry holding a JSON object, decoded; None when there is none or it
    does not decode to an object (the caller then rebuilds it)."""
    path = lookup(target, key, suffix)
    text = None if path is None else read_checked(path)  # the bytes checked, not the file read again
    if text is None:
        return None
    try:
        data = json.loads(text.decode())
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        _remove(Path(tmp))
        raise


def _write_entry(entry: Path, data: bytes) -> None:
    """`data` as `entry`, then its sidecar (each atomically)."""
    _write_atomic(entry, data)
    _write_atomic(entry.with_name(entry.name + _SIDECAR), digest(entry.name, data).encode())


def store(target: str, key: str, suffix: str, data: bytes) -> Path:
    """Store `data` as the entry `key` (atomically, with its digest); its path."""
    key = _checked_key(key)
    d = directory(target)
    entry = d / f"{key}{suffix}"
    try:
        _write_entry(entry, data)
    except OSError as e:  # a full disk, a name taken by what cannot be replaced
        fallback = _fallback_dir(target)
        _warn_once(f"aicf: cannot write {entry} ({e.strerror or e}); storing it in the "
                   f"private directory {fallback.parent} instead")
        entry = fallback / entry.name
        # with its sidecar: the cpu runtime loads only bytes that pass read_checked, and
        # an entry stored here without one failed every compile on a full cache disk
        _write_entry(entry, data)
        return entry
    _log.info("%s store: %s (%d bytes)", target, entry, len(data))
    _prune(d, keep=entry)
    return entry


def max_bytes() -> int:
    text = os.environ.get("AICF_CACHE_MAX_MB", "")
    try:
        mb = float(text) if text.strip() else DEFAULT_MAX_MB
    except ValueError:
        mb = math.nan
    if not 0 <= mb <= 2**40:  # also NaN and inf, which int() refuses
        _warn_once(f"aicf: AICF_CACHE_MAX_MB={text!r} is not a size in MiB (0 to 2^40); "
                   f"using {DEFAULT_MAX_MB:g}")
        mb = DEFAULT_MAX_MB
    return int(mb * 2**20)


STALE_TMP_S = 3600.0
"""Age after which a temporary file of `_write_atomic` is an orphan (its writer was
killed between the write and the rename) and is removed; a write takes seconds."""


def _prune(d: Path, keep: Path) -> None:
    """Remove orphaned temporary files, then least-recently-used entries (with their
    sidecars) until `d` fits."""
    files = []
    now = time.time()
    for p in d.iterdir():
        try:
            st = p.stat()
        except FileNotFoundError:  # removed by a concurrent pruner
            continue
        except OSError:  # a symlink loop or the like planted here: not ours, removed
            _remove(p)
            continue
        if p.name.endswith(".tmp") and now - st.st_mtime > STALE_TMP_S:
            # a killed writer's (SIGKILL, OOM): never evicted, they piled up past the
            # bound and left room for no entry
            _remove(p)
            continue
        files.append((p, st))
    total = sum(st.st_size for _, st in files)
    limit = max_bytes()
    if total <= limit:
        return
    sizes = {p.name: st.st_size for p, st in files}
    entries = sorted(
        ((st.st_mtime, p) for p, st in files if not p.name.endswith((_SIDECAR, ".tmp"))),
        key=lambda e: e[0],
    )
    for _, p in entries:
        if total <= limit:
            break
        if p == keep:
            continue
        sidecar = p.with_name(p.name + _SIDECAR)
        _log.info("evicted %s (the cache is over $AICF_CACHE_MAX_MB)", p)
        _remove(p, sidecar)
        total -= sizes.get(p.name, 0) + sizes.get(sidecar.name, 0)
