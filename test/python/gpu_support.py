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

gpu = pytest.mark.gpu  # the aicf pytest plugin skips it where CuPy sees no GPU; `-m gpu` selects it
