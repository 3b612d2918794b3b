"""What the GPU tests share: CuPy if a GPU is there, and the skip marker for when not.

    from gpu_support import HAVE_GPU, cp, gpu

    @gpu
    @pytest.mark.gpu
    def test_...(): ...
"""

import pytest

try:
    import cupy as cp

    HAVE_GPU = cp.cuda.runtime.getDeviceCount() > 0
except Exception:  # no CuPy, or no driver
    cp = None
    HAVE_GPU = False

gpu = pytest.mark.skipif(not HAVE_GPU, reason="needs an NVIDIA GPU with CuPy")
