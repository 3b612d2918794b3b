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
