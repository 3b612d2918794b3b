"""The on-disk cache of built code (backend/disk_cache.py) and the C build on top of
it: private directories, entries checked before they are loaded, corrupt entries
rebuilt, keys that follow the host CPU and the compiler, bounded size on disk and in
memory. Each test runs the build in a fresh process with its own AICF_CACHE_DIR, so
the cache state it sets up is the one the build sees."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from aicf.backend import disk_cache

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")

# A C "program" whose only effect is visible: its constructor writes a marker file.
PLANTED = r"""
#include <stdio.h>
#include <stdlib.h>
__attribute__((constructor)) static void planted(void) {
  FILE *f = fopen(getenv("PLANTED_MARKER"), "w");
  if (f) { fputs("foreign code ran", f); fclose(f); }
}
"""

BUILD = textwrap.dedent(
    """
    import ctypes, sys, warnings
    warnings.simplefilter("always")
    from aicf.backend.c.build import build_shared_library
    lib = build_shared_library("int aicf_answer(void) { return %d; }\\n")
    assert ctypes.CDLL(str(lib)).aicf_answer() == %d
    print(lib)
    """
)


def build(cache: Path, value: int = 42, **env) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", BUILD % (value, value)],
        env={**os.environ, "AICF_CACHE_DIR": str(cache), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def entries(cache: Path, suffix: str = ".so") -> list[Path]:
    return sorted((cache / "c").glob(f"*{suffix}"))


def plant(path: Path, tmp_path: Path) -> None:
    src = tmp_path / "planted.c"
    src.write_text(PLANTED)
    subprocess.run(["cc", "-shared", "-fPIC", str(src), "-o", str(path)], check=True)


def test_cache_directories_are_created_private(tmp_path):
    cache = tmp_path / "new" / "cache"
    proc = build(cache)
    assert proc.returncode == 0, proc.stderr
    for d in (cache, cache / "c"):
        assert stat.S_IMODE(d.stat().st_mode) == 0o700, d
    (lib,) = entries(cache)
    assert not stat.S_IMODE(lib.stat().st_mode) & 0o077


def test_library_planted_in_a_world_writable_cache_is_not_loaded(tmp_path):
    """The attack of issue 10: a shared, world-writable AICF_CACHE_DIR in which someone
    else put a library under the name the build will look for."""
    cache = tmp_path / "shared"
    assert build(cache).returncode == 0
    (lib,) = entries(cache)
    marker = tmp_path / "marker"
    plant(lib, tmp_path)
    for d in (cache, cache / "c"):
        d.chmod(0o777)
    proc = build(cache, PLANTED_MARKER=str(marker))
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists(), "a library planted in the cache was loaded"
    assert "cache" in proc.stderr and "writable" in proc.stderr  # the warning says why
    assert not Path(proc.stdout.strip()).is_relative_to(cache)


def test_replaced_entry_is_rebuilt_not_loaded(tmp_path):
    cache = tmp_path / "c1"
    assert build(cache).returncode == 0
    (lib,) = entries(cache)
    marker = tmp_path / "marker"
    plant(lib, tmp_path)
    proc = build(cache, PLANTED_MARKER=str(marker))
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists(), "an entry that is not the one built was loaded"


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty"])
def test_corrupt_entry_is_rebuilt(tmp_path, damage):
    cache = tmp_path / damage
    assert build(cache).returncode == 0
    (lib,) = entries(cache)
    data = lib.read_bytes()
    lib.write_bytes({"truncate": data[: len(data) // 3], "garbage": b"\x7fELF" + b"x" * 99,
                     "empty": b""}[damage])  # fmt: skip
    proc = build(cache)
    assert proc.returncode == 0, proc.stderr
    assert entries(cache)[0].read_bytes() == data  # rebuilt in place: later runs use it


RUN = textwrap.dedent(
    """
    import numpy as np, aicf
    exe = aicf.compile('''
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = aicf_tensor.exp %x : (tensor<4xf32>) -> tensor<4xf32>
      func.return %0 : tensor<4xf32>
    }''')
    print(exe(np.zeros(4, np.float32)).tolist())
    """
)


def test_entry_that_passes_its_digest_but_does_not_load_is_rebuilt(tmp_path):
    """A library another machine's toolchain wrote into a shared home (or any file
    with its digest beside it) failed every later run with dlopen's OSError."""
    cache = tmp_path / "shared-home"
    env = {**os.environ, "AICF_CACHE_DIR": str(cache)}

    def run() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", RUN], env=env, capture_output=True, text=True, timeout=300)

    assert run().returncode == 0
    (lib,) = entries(cache)
    lib.write_bytes(b"not a library")
    lib.with_name(lib.name + ".sha256").write_text(disk_cache.digest(lib.name, b"not a library"))
    for _ in range(2):  # rebuilt once, then used
        proc = run()
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == "[1.0, 1.0, 1.0, 1.0]"
    assert lib.read_bytes()[:4] == b"\x7fELF"


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "lots"])
def test_a_bad_size_bound_is_a_warning_and_the_default(tmp_path, value):
    proc = build(tmp_path / "c", AICF_CACHE_MAX_MB=value)
    assert proc.returncode == 0, proc.stderr
    assert "AICF_CACHE_MAX_MB" in proc.stderr and "1024" in proc.stderr


@pytest.mark.parametrize("thing", ["fifo", "directory"])
def test_a_fifo_or_directory_under_an_entry_name_is_replaced(tmp_path, thing):
    """A FIFO blocked the open of the entry forever; a directory raised
    IsADirectoryError in every later build."""
    cache = tmp_path / thing
    assert build(cache).returncode == 0
    (lib,) = entries(cache)
    lib.unlink()
    if thing == "fifo":
        os.mkfifo(lib)
    else:
        lib.mkdir()
        (lib / "inside").write_text("")
    proc = build(cache)
    assert proc.returncode == 0, proc.stderr
    assert lib.is_file() and lib.read_bytes()[:4] == b"\x7fELF"


def test_unusable_cache_dir_falls_back_with_a_warning(tmp_path):
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    proc = build(not_a_dir)
    assert proc.returncode == 0, proc.stderr
    assert "AICF_CACHE_DIR" in proc.stderr and str(not_a_dir) in proc.stderr


def test_too_deep_cache_dir_falls_back_with_a_warning(tmp_path):
    # pathlib's mkdir(parents=True) recurses once per missing level: a RecursionError,
    # not an OSError, for a path of 1100 missing directories (still under PATH_MAX)
    deep = tmp_path.joinpath(*["d"] * 1100)
    proc = build(deep)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "RecursionError" not in proc.stderr
    assert "AICF_CACHE_DIR" in proc.stderr and "too many missing parent directories" in proc.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_unwritable_cache_dir_falls_back_with_a_warning(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o500)
    proc = build(ro / "cache")
    assert proc.returncode == 0, proc.stderr
    assert "AICF_CACHE_DIR" in proc.stderr


def test_key_follows_the_host_cpu_and_the_compiler(monkeypatch):
    from aicf.backend.c import build as b

    source = "int f(void) { return 1; }\n"
    key = b.cache_key(source, ())
    monkeypatch.setattr(b, "host_cpu", lambda cc: "a different CPU")
    assert b.cache_key(source, ()) != key
    monkeypatch.undo()
    monkeypatch.setattr(b, "compiler_version", lambda cc: "cc 0.0")
    assert b.cache_key(source, ()) != key


def test_host_cpu_names_the_cpu_the_build_targets():
    from aicf.backend.c import build as b

    desc = b.host_cpu(b.compiler())
    assert "march" in desc or "model name" in desc  # what -march=native resolves to


def test_disk_cache_is_bounded(tmp_path):
    cache = tmp_path / "bounded"
    for v in range(6):
        assert build(cache, v, AICF_CACHE_MAX_MB="0.04").returncode == 0
    libs = entries(cache)
    assert 1 <= len(libs) < 6
    assert sum(p.stat().st_size for p in (cache / "c").iterdir()) <= 0.04 * 2**20
    assert len(entries(cache, ".sha256")) == len(libs)  # no orphaned sidecars


def test_dynamic_shape_specialisations_are_bounded_and_unloaded(tmp_path):
    code = textwrap.dedent(
        """
        import numpy as np, os, aicf
        exe = aicf.compile('''
        func.func @f(%x: tensor<?xf32>) -> tensor<*xf32> {
          %0 = aicf_tensor.exp %x : (tensor<?xf32>) -> tensor<*xf32>
          func.return %0 : tensor<*xf32>
        }''')
        for n in range(1, 13):
            x = np.linspace(-1, 1, n, dtype=np.float32)
            np.testing.assert_allclose(exe(x), np.exp(x.astype(np.float64)), rtol=1e-6)
        import gc; gc.collect()
        maps = open("/proc/self/maps").read()
        libs = {l.split()[-1] for l in maps.splitlines() if os.environ["AICF_CACHE_DIR"] in l}
        print(len(exe.specializations), len(libs))
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "AICF_CACHE_DIR": str(tmp_path / "dyn"),
             "AICF_MEMORY_CACHE_ENTRIES": "4"},  # fmt: skip
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    nspec, nlibs = map(int, proc.stdout.split())
    assert nspec == 4
    assert nlibs <= 4


class _FakeCupy:
    """Stands in for CuPy: records which cubin file a module was loaded from; a cubin
    marked as another driver's fails to load at the first kernel lookup."""

    class RawModule:
        def __init__(self, path=None, code=None, options=()):
            self.path, self.data = path, Path(path).read_bytes() if path else None

        def get_function(self, name):
            if self.data is not None and b"not for this driver" in self.data:
                raise RuntimeError("CUDA_ERROR_INVALID_IMAGE")
            return name


def test_cubins_share_the_checked_cache(tmp_path, monkeypatch):
    from aicf.backend.cuda import runtime as rt

    monkeypatch.setenv("AICF_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(rt, "cupy", lambda: _FakeCupy)
    monkeypatch.setattr(rt, "_nvrtc_cubin", lambda source, arch: b"cubin of " + source.encode())
    monkeypatch.setattr(rt, "_MODULES", type(rt._MODULES)())
    monkeypatch.setattr(rt, "STATS", dict.fromkeys(rt.STATS, 0))
    mod = rt.load_module("kernel", arch="sm_90")
    path = Path(mod.path)
    assert path.parent == tmp_path / "cache" / "cuda"  # one layout for both targets
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700

    rt._MODULES.clear()
    assert rt.load_module("kernel", arch="sm_90").data == b"cubin of kernel"
    assert rt.STATS == {"memory_hits": 0, "disk_hits": 1, "compiles": 1}

    path.write_bytes(b"planted")  # replaced or corrupt: rebuilt, never loaded
    rt._MODULES.clear()
    assert rt.load_module("kernel", arch="sm_90").data == b"cubin of kernel"
    assert rt.STATS["compiles"] == 2


def test_a_cached_cubin_that_does_not_load_is_rebuilt(tmp_path, monkeypatch):
    """An entry that passes the cache's checks (its digest matches) but that the driver
    refuses (another toolkit's, say) is rebuilt once, not handed to every launch."""
    from aicf.backend import disk_cache
    from aicf.backend.cuda import runtime as rt

    monkeypatch.setenv("AICF_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(rt, "cupy", lambda: _FakeCupy)
    monkeypatch.setattr(rt, "_MODULES", type(rt._MODULES)())
    monkeypatch.setattr(rt, "STATS", dict.fromkeys(rt.STATS, 0))
    good = b"ELF\x00.text.k\x00 code"
    monkeypatch.setattr(rt, "_nvrtc_cubin", lambda source, arch: good)
    key = rt.cache_key("kernel", "sm_90")
    disk_cache.store("cuda", key, ".cubin", b"ELF\x00.text.k\x00 not for this driver")
    assert rt.load_module("kernel", arch="sm_90").data == good
    assert rt.STATS == {"memory_hits": 0, "disk_hits": 0, "compiles": 1}
    rt._MODULES.clear()
    assert rt.load_module("kernel", arch="sm_90").data == good  # the rebuilt entry is kept
    assert rt.STATS["disk_hits"] == 1


def test_unloading_every_library_keeps_the_openmp_runtime(tmp_path):
    """The last library closed must not take the OpenMP runtime (and its idle pool
    threads' code) with it."""
    code = textwrap.dedent(
        """
        import gc, numpy as np, aicf
        SRC = '''
        func.func @f(%x: tensor<256x256xf32>) -> tensor<*xf32> {
          %0 = aicf_tensor.OP %x : (tensor<256x256xf32>) -> tensor<*xf32>
          func.return %0 : tensor<*xf32>
        }'''
        x = np.ones((256, 256), np.float32)
        for op in ("sin", "cos", "exp"):
            exe = aicf.compile(SRC.replace("OP", op), fuse=False)
            exe(x)
            del exe
            aicf.compiler._CPU_MODULES.clear()
            gc.collect()
        print("ok")
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "AICF_CACHE_DIR": str(tmp_path / "c"), "OMP_NUM_THREADS": "2"},
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]


RACE = textwrap.dedent(
    """
    import ctypes, os, sys
    from aicf.backend import disk_cache
    from aicf.backend.c import build
    link, theirs = sys.argv[1:]
    checked = disk_cache.lookup

    def lookup(*args):
        found = checked(*args)
        if found is not None:  # the other user wins the race: the link is theirs now
            os.unlink(link)
            os.symlink(theirs, link)
        return found

    disk_cache.lookup = lookup
    lib = build.build_shared_library("int aicf_answer(void) { return 42; }\\n")
    assert ctypes.CDLL(str(lib)).aicf_answer() == 42
    """
)


def test_a_cache_reached_through_a_link_is_loaded_from_what_was_checked(tmp_path):
    """AICF_CACHE_DIR a symbolic link (one another user made in /tmp, pointing at our
    own cache, passes every check on the directory): the entry was checked through
    the link and loaded through it again, so re-pointing the link in between loaded
    their library. The cache is now used by its real path."""
    mine, theirs, link = tmp_path / "mine", tmp_path / "theirs", tmp_path / "link"
    mine.mkdir(mode=0o700)
    link.symlink_to(mine)
    assert build(link).returncode == 0
    (lib,) = entries(mine)
    (theirs / "c").mkdir(parents=True)
    plant(theirs / "c" / lib.name, tmp_path)
    marker = tmp_path / "marker"
    proc = subprocess.run(
        [sys.executable, "-c", RACE, str(link), str(theirs)],
        env={**os.environ, "AICF_CACHE_DIR": str(link), "PLANTED_MARKER": str(marker)},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert not marker.exists(), "the library loaded was not the one checked"
    assert proc.returncode == 0, proc.stderr


def test_a_cache_under_a_directory_others_can_write_is_not_used(tmp_path):
    """Whoever may write a parent of the cache (not sticky, as /tmp is) can rename the
    checked cache away and put theirs in its place before a load."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    proc = build(shared / "cache")
    assert proc.returncode == 0, proc.stderr
    assert f"its parent {shared} is writable by group or others" in proc.stderr
    assert not Path(proc.stdout.strip()).is_relative_to(shared)
    sticky = tmp_path / "sticky"
    sticky.mkdir()
    sticky.chmod(0o1777)
    proc = build(sticky / "cache")
    assert proc.returncode == 0, proc.stderr
    assert Path(proc.stdout.strip()).is_relative_to(sticky), proc.stderr


def test_a_read_only_cache_is_read_and_a_corrupt_entry_in_it_rebuilt(tmp_path, monkeypatch):
    """A cache on a read-only mount (filled before, e.g. in a container image): a hit
    could not refresh its mtime and a corrupt entry could not be removed, and both
    raised a raw OSError out of aicf.compile."""
    import errno

    monkeypatch.setenv("AICF_CACHE_DIR", str(tmp_path / "cache"))
    good = disk_cache.store("programs", "good", ".json", b"{}")
    bad = disk_cache.store("programs", "bad", ".json", b"{}")
    bad.write_bytes(b"{} corrupt")

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(os, "utime", read_only)
    monkeypatch.setattr(os, "unlink", read_only)
    assert disk_cache.lookup("programs", "good", ".json") == good
    assert disk_cache.lookup("programs", "bad", ".json") is None
    assert bad.exists()  # left as it was; the rebuilt program goes to a private directory


def test_entries_swapped_under_each_others_keys_are_not_used(tmp_path):
    """Two entries renamed (with their sidecars) to each other's keys each matched the
    digest beside them: the library of one program ran for the other, a silent wrong
    answer (sin gave cos)."""
    cache = tmp_path / "cache"
    assert build(cache, 1).returncode == 0
    assert build(cache, 2).returncode == 0
    a, b = entries(cache)
    for suffix in ("", ".sha256"):
        pa, pb = a.with_name(a.name + suffix), b.with_name(b.name + suffix)
        data = pa.read_bytes()
        pa.write_bytes(pb.read_bytes())
        pb.write_bytes(data)
    for value in (1, 2):  # BUILD asserts that the library loaded returns `value`
        proc = build(cache, value)
        assert proc.returncode == 0, proc.stderr


def test_temporary_files_of_killed_writers_are_removed(tmp_path, monkeypatch):
    """A process killed between writing an entry's temporary file and renaming it
    left the file for good: never evicted, orphans piled up past AICF_CACHE_MAX_MB
    and every store then evicted every entry."""
    monkeypatch.setenv("AICF_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("AICF_CACHE_MAX_MB", "1")
    d = disk_cache.directory("programs")
    orphan = d / ".old.json.abc123.tmp"
    orphan.write_bytes(b"x" * 2**20)
    os.utime(orphan, (0, 0))
    fresh = d / ".new.json.def456.tmp"  # another process writing now
    fresh.write_bytes(b"")
    first = disk_cache.store("programs", "first", ".json", b"1" * 1000)
    disk_cache.store("programs", "second", ".json", b"2" * 1000)
    assert not orphan.exists() and fresh.exists()
    assert first.exists()  # the bound holds both entries once the orphan is gone


def test_a_cache_dir_starting_with_a_tilde_is_under_the_home(tmp_path, monkeypatch):
    """Where no shell expands it, AICF_CACHE_DIR=~/cache made a folder named `~` in
    the working directory."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("AICF_CACHE_DIR", "~/cache")
    monkeypatch.chdir(tmp_path)
    assert disk_cache.directory("programs") == tmp_path / "home" / "cache" / "programs"
    assert not (tmp_path / "~").exists()


def test_a_forked_child_exiting_leaves_its_parents_private_directory(tmp_path):
    """The private fallback directory is removed at exit; a child forked after it was
    made (exiting normally, so its atexit handlers run) removed it under its parent,
    whose next compile raised a raw FileNotFoundError."""
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    code = textwrap.dedent("""
        import os, sys, warnings
        warnings.simplefilter("ignore")
        from aicf.backend import disk_cache
        disk_cache.store("programs", "a", ".json", b"{}")
        pid = os.fork()
        if pid == 0:
            sys.exit(0)
        os.waitpid(pid, 0)
        disk_cache.store("programs", "b", ".json", b"{}")
        print(disk_cache.lookup("programs", "a", ".json") is not None)
    """)
    proc = subprocess.run([sys.executable, "-c", code], env={**os.environ, "AICF_CACHE_DIR": str(not_a_dir)},
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "True"


def test_a_forked_child_outliving_its_parent_makes_a_private_directory_of_its_own(tmp_path):
    """A child that outlives its parent (a server that daemonises after warming up)
    found the private fallback directory removed at its parent's exit: its next compile
    raised a raw FileNotFoundError from mkdir."""
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    out = tmp_path / "child.out"
    code = textwrap.dedent(f"""
        import os, sys, time, warnings
        warnings.simplefilter("ignore")
        from aicf.backend import disk_cache
        disk_cache.store("programs", "a", ".json", b"{{}}")
        r, w = os.pipe()
        if os.fork():
            sys.exit(0)  # the parent leaves first, removing its directory
        os.close(w)
        os.read(r, 1)  # until the parent is gone (its end of the pipe closed)
        time.sleep(0.2)
        try:
            path = disk_cache.store("programs", "b", ".json", b"{{}}")
            found = disk_cache.lookup("programs", "b", ".json")
            text = f"{{path.exists()}} {{found == path}} {{oct(path.parent.parent.stat().st_mode & 0o777)}}"
        except BaseException as e:
            text = repr(e)
        open({str(out)!r}, "w").write(text)
    """)
    proc = subprocess.run([sys.executable, "-c", code], env={**os.environ, "AICF_CACHE_DIR": str(not_a_dir)},
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    for _ in range(200):
        if out.exists() and out.read_text():
            break
        time.sleep(0.05)
    assert out.read_text() == "True True 0o700"


TRUNCATED_WHILE_LOADED = textwrap.dedent(
    """
    import os, pathlib, sys, numpy as np, aicf
    exe = aicf.compile('''
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = aicf_tensor.exp %x : (tensor<4xf32>) -> tensor<4xf32>
      func.return %0 : tensor<4xf32>
    }''')
    x = np.zeros(4, np.float32)
    exe(x)
    for lib in pathlib.Path(sys.argv[1]).glob("c/*.so"):
        os.truncate(lib, 0)  # in place, as another process of the user could
    print(exe(x).tolist(), exe(x + 1).tolist())
    """
)


def test_an_entry_truncated_while_loaded_does_not_kill_the_process(tmp_path):
    """A loaded library stayed mapped from its cache entry: the entry truncated in
    place (by another process) killed the process with SIGBUS at its next call, and
    a write in place changed the code it ran. It is loaded from a private copy now."""
    cache = tmp_path / "cache"
    proc = subprocess.run([sys.executable, "-c", TRUNCATED_WHILE_LOADED, str(cache)], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "AICF_CACHE_DIR": str(cache)})  # fmt: skip
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    import json

    import numpy as np

    got = json.loads("[" + proc.stdout.strip().replace("] [", "], [") + "]")
    np.testing.assert_allclose(got, [np.exp(np.zeros(4)), np.exp(np.ones(4))], rtol=1e-6)
    assert not list((cache / "c").glob(".load-*")), "the private copies are removed once loaded"


def test_an_entry_stored_in_the_private_directory_passes_its_check(tmp_path, monkeypatch):
    """A cache on a full disk: the store fell back to the private directory but wrote
    no sidecar there, and the cpu runtime, which loads only checked bytes, then failed
    every compile ('... changed since it was checked')."""
    import errno

    monkeypatch.setenv("AICF_CACHE_DIR", str(tmp_path / "cache"))
    d = disk_cache.directory("c")
    write = disk_cache._write_atomic

    def full(path, data):
        if path.parent == d:
            raise OSError(errno.ENOSPC, "No space left on device")
        write(path, data)

    monkeypatch.setattr(disk_cache, "_write_atomic", full)
    with pytest.warns(RuntimeWarning, match="cannot write"):
        entry = disk_cache.store("c", "k", ".so", b"library bytes")
    assert entry.parent != d
    assert disk_cache.read_checked(entry) == b"library bytes"
