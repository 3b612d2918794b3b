"""fork() after a parallel run: libgomp's thread pool does not survive fork, so a child
that runs a parallel region would wait forever for the parent's threads. A forked
child runs the cpu target single-threaded instead (backend/c/runtime.py). The scenario
runs in its own process under a timeout, so a regression fails instead of hanging."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

SCENARIO = textwrap.dedent(
    """
    import multiprocessing as mp
    import numpy as np
    import aicf

    SRC = '''
    func.func @f(%x: tensor<512x512xf32>) -> tensor<*xf32> {
      %0 = aicf_tensor.sin %x : (tensor<512x512xf32>) -> tensor<*xf32>
      func.return %0 : tensor<*xf32>
    }'''
    X = np.linspace(-3, 3, 512 * 512, dtype=np.float32).reshape(512, 512)

    def child(exe, q):
        q.put(exe(X))                                  # the parent's executable
        q.put(aicf.compile(SRC.replace("sin", "cos"))(X))  # and one built in the child

    if __name__ == "__main__":
        exe = aicf.compile(SRC)
        exe(X)  # the parent's OpenMP thread pool is up
        ctx = mp.get_context("fork")  # the default start method on Linux
        q = ctx.Queue()
        p = ctx.Process(target=child, args=(exe, q), daemon=True)
        p.start()
        s, c = q.get(timeout=60), q.get(timeout=60)
        p.join(10)
        assert p.exitcode == 0, p.exitcode
        x64 = X.astype(np.float64)
        np.testing.assert_allclose(s, np.sin(x64), atol=1e-6)
        np.testing.assert_allclose(c, np.cos(x64), atol=1e-6)
        np.testing.assert_allclose(exe(X), np.sin(x64), atol=1e-6)  # parent still parallel
        print("ok")
    """
)


def test_forked_child_runs_after_a_parallel_run(tmp_path):
    script = tmp_path / "fork_scenario.py"
    script.write_text(SCENARIO)
    proc = subprocess.run(
        [sys.executable, str(script)],
        env={**os.environ, "AICF_CACHE_DIR": str(tmp_path / "cache"), "OMP_NUM_THREADS": "2"},
        capture_output=True, text=True, timeout=150,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "ok"


HELD = textwrap.dedent(
    """
    import os, threading, time
    import numpy as np
    import aicf
    from aicf.backend.c import build

    exe = aicf.compile('''
    func.func @f(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
      %0 = aicf_tensor.sin %x : (tensor<8x8xf32>) -> tensor<8x8xf32>
      func.return %0 : tensor<8x8xf32>
    }''', target="cpu")
    jitted = aicf.jit(lambda x: x * 2)
    x = np.linspace(-3, 3, 128, dtype=np.float32).reshape(8, 16)[:, ::2]  # strided: a variant
    held, release = threading.Event(), threading.Event()

    def hold():  # as a thread building a variant or a specialisation does
        with exe._program.cmodule._lock, jitted._lock:
            held.set()
            release.wait(60)

    def compile_slowly(done):  # the compiler is still running at the fork
        done.append(build._run(["sh", "-c", "sleep 1; echo built"]).stdout)

    holder, done = threading.Thread(target=hold), []
    holder.start()
    held.wait(60)
    compiling = threading.Thread(target=compile_slowly, args=(done,))
    compiling.start()
    time.sleep(0.3)
    pid = os.fork()
    if pid == 0:
        ok = np.allclose(exe(x), np.sin(x.astype(np.float64)), atol=1e-6) and jitted(x)[0, 0] == -6
        time.sleep(5)  # still alive while the parent's compile finishes
        os._exit(0 if ok else 3)
    start = time.monotonic()
    compiling.join(60)
    waited = time.monotonic() - start
    release.set()
    holder.join(60)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, status
    assert done == ["built\\n"] and waited < 4, (done, waited)
    print("ok")
    """
)


def test_a_fork_while_other_threads_compile_blocks_neither_process(tmp_path):
    """A fork while another thread held a lock (a C module building a strided variant,
    a jitted function's cache) left the child waiting forever for a lock no thread of
    its own held; and a compiler running at the fork kept its output pipe open in the
    child, so the parent's compile waited for the child's exit."""
    script = tmp_path / "held.py"
    script.write_text(HELD)
    proc = subprocess.run(
        [sys.executable, str(script)], env={**os.environ, "AICF_CACHE_DIR": str(tmp_path / "cache")},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "ok"


REENTRANT = textwrap.dedent(
    """
    import signal
    import numpy as np
    import aicf

    exe = aicf.compile('''
    func.func @f(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
      %y = aicf_tensor.sin %x : (tensor<64x64xf32>) -> tensor<64x64xf32>
      func.return %y : tensor<64x64xf32>
    }''')
    x = np.linspace(-3, 3, 64 * 64, dtype=np.float32).reshape(64, 64)
    exe(x)  # the contiguous path warm (what it imports imported): the signal lands in the build
    seen = []
    signal.signal(signal.SIGALRM, lambda s, f: seen.append(exe(x.T)))
    signal.setitimer(signal.ITIMER_REAL, 0.02)
    got = exe(x.T)  # builds the transposed variant (the C compiler runs) under the module's lock
    signal.setitimer(signal.ITIMER_REAL, 0)
    assert len(seen) == 1, "the handler did not run during the build"
    for y in (got, seen[0]):
        np.testing.assert_allclose(y, np.sin(x.T.astype(np.float64)), atol=1e-6)
    print("ok")
    """
)


def test_a_signal_handler_calling_the_program_during_a_variant_build_does_not_deadlock(tmp_path):
    """The module's lock was not reentrant: a handler (or a finalizer) that called the
    program with a new pattern of strides while its thread built one waited for itself."""
    proc = subprocess.run([sys.executable, "-c", REENTRANT], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "AICF_CACHE_DIR": str(tmp_path), "AICF_PROGRAM_CACHE": "0"})
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]
