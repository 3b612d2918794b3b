"""The lean call of a program of a few plain kernels (backend/cuda/program.py
`_DirectLaunch`): outputs and intermediates taken from CuPy's pool and each kernel
launched through cuLaunchKernel on a parameter block reused across calls. What must
hold: every call gets fresh outputs, arguments land in the kernel's parameter order,
intermediates flow from kernel to kernel, and concurrent callers never see each
other's pointers."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import aicf

from gpu_support import cp, gpu
from test_cuda_graphs import CHAIN, _softmax  # softmax as five ops, one kernel each with fuse=False

SIN = """
func.func @main(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %y = aicf_tensor.sin %x : (tensor<1024xf32>) -> tensor<1024xf32>
  func.return %y : tensor<1024xf32>
}
"""

# two inputs, two outputs: x - 2 y and x * y
TWO = """
func.func @main(%x: tensor<3x500xf32>, %y: tensor<3x500xf32>) -> (tensor<3x500xf32>, tensor<3x500xf32>) {
  %c = aicf_tensor.constant dense<2.0> : tensor<3x500xf32>
  %t = aicf_tensor.mul %y, %c : (tensor<3x500xf32>, tensor<3x500xf32>) -> tensor<3x500xf32>
  %d = aicf_tensor.sub %x, %t : (tensor<3x500xf32>, tensor<3x500xf32>) -> tensor<3x500xf32>
  %p = aicf_tensor.mul %x, %y : (tensor<3x500xf32>, tensor<3x500xf32>) -> tensor<3x500xf32>
  func.return %d, %p : tensor<3x500xf32>, tensor<3x500xf32>
}
"""


def _direct(exe):
    """The program's direct call: its single launch's, or its several launches'."""
    plan = exe._program._plan
    if plan in (None, False):
        return None
    single, direct = plan[4], plan[5]
    return single[-1] if single is not None else direct


@gpu
@pytest.mark.gpu
def test_fresh_outputs_every_call():
    exe = aicf.compile(SIN, target="cuda")
    rng = np.random.default_rng(0)
    a, b = (cp.asarray(rng.standard_normal(1024, dtype=np.float32)) for _ in range(2))
    ya = exe(a)
    assert _direct(exe) is not None, "a one-kernel program takes the direct launch"
    yb = exe(b)
    cp.cuda.Device().synchronize()
    assert ya.data.ptr != yb.data.ptr
    np.testing.assert_allclose(cp.asnumpy(ya), np.sin(cp.asnumpy(a).astype(np.float64)), rtol=2e-6, atol=2e-6)
    np.testing.assert_allclose(cp.asnumpy(yb), np.sin(cp.asnumpy(b).astype(np.float64)), rtol=2e-6, atol=2e-6)


@gpu
@pytest.mark.gpu
def test_several_inputs_and_outputs_in_parameter_order():
    exe = aicf.compile(TWO, target="cuda")
    rng = np.random.default_rng(1)
    x, y = (rng.standard_normal((3, 500)).astype(np.float32) for _ in range(2))
    d, p = exe(cp.asarray(x), cp.asarray(y))
    if _direct(exe) is None:
        pytest.skip("the program is not one kernel on this planner's choice")
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    np.testing.assert_allclose(cp.asnumpy(d), x64 - 2 * y64, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(cp.asnumpy(p), x64 * y64, rtol=1e-6, atol=1e-6)


# a program called from several threads at once, each on a stream of its own: source,
# compile options, input shape, whether a thread scales its inputs by its seed + 1, the
# float64 reference, its tolerances, calls a thread, threads
THREADED = {
    "one-kernel": (SIN, {}, (1024,), False, np.sin, dict(rtol=2e-6, atol=2e-6), 200, 8),
    "several-kernels": (CHAIN, {"fuse": False}, (256, 1000), True, _softmax, dict(rtol=1e-5, atol=1e-7), 50, 6),
}


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("case", list(THREADED))
def test_threads_calling_one_program_get_their_own_results(case):
    src, options, shape, scaled, reference, tol, calls, nthreads = THREADED[case]
    exe = aicf.compile(src, target="cuda", **options)
    exe(cp.zeros(shape, np.float32))
    assert _direct(exe) is not None
    errors: list[str] = []

    def worker(seed: int) -> None:
        rng = np.random.default_rng(seed)
        with cp.cuda.Stream(non_blocking=True) as s:
            for _ in range(calls):
                host = rng.standard_normal(shape, dtype=np.float32)
                if scaled:
                    host = host * (seed + 1)
                y = exe(cp.asarray(host))
                s.synchronize()
                if not np.allclose(cp.asnumpy(y), reference(host.astype(np.float64)), **tol):
                    errors.append(f"thread {seed}: wrong result")
                    return

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(nthreads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


@gpu
@pytest.mark.gpu
def test_a_new_thread_on_the_default_stream_is_served():
    """A thread that made no CUDA call yet has no current context for cuLaunchKernel:
    its first call goes through CuPy's launch (which makes one current), later ones
    launch directly."""
    exe = aicf.compile(SIN, target="cuda")
    exe(cp.zeros(1024, np.float32))
    x = cp.asarray(np.linspace(-3, 3, 1024, dtype=np.float32))
    cp.cuda.Device().synchronize()
    results: list = []

    def worker() -> None:
        try:
            ys = [exe(x) for _ in range(3)]
            cp.cuda.get_current_stream().synchronize()
            results.append([cp.asnumpy(y) for y in ys])
        except Exception as e:  # reported below
            results.append(e)

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    (got,) = results
    assert not isinstance(got, Exception), got
    for y in got:
        np.testing.assert_allclose(y, np.sin(cp.asnumpy(x).astype(np.float64)), rtol=2e-6, atol=2e-6)


@gpu
@pytest.mark.gpu
def test_several_kernels_launch_directly_with_their_intermediates():
    exe = aicf.compile(CHAIN, target="cuda", fuse=False)
    prog = exe._program
    prog.graphs = True  # a few launches go direct even where graphs are on
    rng = np.random.default_rng(5)
    results = []
    for k in range(4):
        x = cp.asarray(rng.standard_normal((256, 1000), dtype=np.float32) * (k + 1))
        results.append((cp.asnumpy(x), exe(x)))
    direct = _direct(exe)
    assert direct is not None and len(direct.launches) == 5
    assert direct.ready(), "after the first call this thread launches directly"
    assert len(prog._graphs) == 0, "no graph (and no output copy) for a few launches"
    assert len({y.data.ptr for _, y in results}) == len(results)
    for xs, y in results:
        np.testing.assert_allclose(cp.asnumpy(y), _softmax(xs), rtol=1e-5, atol=1e-7)


@gpu
@pytest.mark.gpu
def test_a_stream_other_than_the_current_one_gets_right_results():
    """Intermediates come from the current stream's pool; a call on another stream
    takes the step loop, which allocates them on that stream."""
    exe = aicf.compile(CHAIN, target="cuda", fuse=False)
    rng = np.random.default_rng(9)
    exe(cp.zeros((256, 1000), np.float32))
    s = cp.cuda.Stream(non_blocking=True)
    for k in range(3):
        host = rng.standard_normal((256, 1000), dtype=np.float32) * (k + 1)
        x = cp.asarray(host)
        cp.cuda.Device().synchronize()
        y = exe._program(x, stream=s)
        s.synchronize()
        np.testing.assert_allclose(cp.asnumpy(y), _softmax(host), rtol=1e-5, atol=1e-7)
