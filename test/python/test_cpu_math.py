"""The cpu target's own vectorisable float math (backend/c/emit.py's prelude) against
float64 NumPy, over the whole float range: within 2 ulp (DESIGN.md), exact special
values (inf, 0, NaN), and a check that the measurement catches a wrong polynomial."""

from __future__ import annotations

import ctypes
import os
import re
import tempfile

import numpy as np
import pytest

os.environ.setdefault("AICF_CACHE_DIR", tempfile.mkdtemp(prefix="aicf-test-cache-"))

import aicf  # noqa: E402
from aicf.backend.c.build import build_shared_library  # noqa: E402
from aicf.backend.c.emit import LINK_FLAGS, c_func_name  # noqa: E402

N = 1 << 20


def ulp_error(out: np.ndarray, ref: np.ndarray) -> float:
    """Max |out - ref| in units of the float32 spacing at ref (subnormal spacing below)."""
    assert not np.any(np.isnan(out) != np.isnan(ref)), "NaN mismatch"
    ok = ~np.isnan(ref)
    out, ref = out[ok].astype(np.float64), ref[ok]
    with np.errstate(over="ignore"):
        ref32 = ref.astype(np.float32)
    inf = np.isinf(ref32)
    assert np.array_equal(out[inf], ref32[inf]), "overflow mismatch"
    sp = np.maximum(np.spacing(np.abs(ref[~inf]).astype(np.float32)), np.float32(2.0**-149))
    return float((np.abs(out[~inf] - ref[~inf]) / sp.astype(np.float64)).max())


def exp_inputs() -> np.ndarray:
    rng = np.random.default_rng(7)
    # uniform over the range where exp is neither 0 nor inf nor 1 ...
    wide = rng.uniform(-105.0, 89.5, N)
    # ... uniform over bit patterns (dense near 0, every binade), both signs
    bits = rng.integers(0, 0x42D00000, N, dtype=np.uint32)  # |x| < 104
    sign = rng.integers(0, 2, N, dtype=np.uint32) << 31
    by_bits = (bits | sign).view(np.float32)
    special = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, 88.72283, 88.72284, 88.8, 89.0, 1e30,
         -87.33654, -87.33655, -103.27893, -103.97207, -103.97208, -104.0, -1e30,
         1e-45, -1e-45, 0.5 * np.log(2), -0.5 * np.log(2), 1.0, -1.0],
        np.float64,
    )  # fmt: skip
    x = np.concatenate([wide.astype(np.float32), by_bits, special.astype(np.float32)])
    # every float in the two binades around the overflow and subnormal thresholds
    near = [np.arange(np.float32(a).view(np.uint32), np.float32(b).view(np.uint32),
                      97, dtype=np.uint32).view(np.float32)
            for a, b in ((64.0, 128.0), (64.0, 128.0))]  # fmt: skip
    return np.concatenate([x, near[0], -near[1]]).astype(np.float32)


def exp_exe():
    n = exp_inputs().size
    text = f"""
    func.func @e(%x: tensor<{n}xf32>) -> tensor<*xf32> {{
      %0 = aicf_tensor.exp %x : (tensor<{n}xf32>) -> tensor<*xf32>
      func.return %0 : tensor<*xf32>
    }}"""
    return aicf.compile(text, target="cpu")


def check_exp(x: np.ndarray, out: np.ndarray) -> None:
    with np.errstate(over="ignore"):
        ref = np.exp(x.astype(np.float64))
    assert np.isnan(out[np.isnan(x)]).all()
    assert out[x == np.inf].tolist() == [np.inf] and out[x == -np.inf].tolist() == [0.0]
    assert (out[x > 88.7229] == np.inf).all() and (out[x < -103.973] == 0).all()
    err = ulp_error(out, ref)
    assert err <= 2.0, err


def test_expf_within_2_ulp_over_the_whole_range():
    exe = exp_exe()
    assert "aicf_expf(" in exe.source and "= expf(" not in exe.source
    x = exp_inputs()
    check_exp(x, exe(x))


def _run_source(source: str, x: np.ndarray) -> np.ndarray:
    lib = ctypes.CDLL(str(build_shared_library(source, LINK_FLAGS)))
    fn = getattr(lib, c_func_name("e"))
    fn.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
    out = np.empty_like(x)
    bufs = (ctypes.c_void_p * 2)(x.ctypes.data, out.ctypes.data)
    assert fn(bufs, None) == 0
    return out


def test_ulp_check_catches_a_wrong_polynomial():
    """The measurement above is sharp enough to notice a wrong coefficient (the kind of
    slip a typo makes) or a missing Cody-Waite low part; the unchanged source passes
    through the same path."""
    source = exp_exe().source
    x = exp_inputs()
    check_exp(x, _run_source(source, x))
    body = source[source.index("float aicf_expf(") :]
    coeffs = re.findall(r"p = p \* r \+ (0x[0-9a-f.]+p-?\d+)f;", body)
    assert len(coeffs) == 5
    mutants = [
        (f"p = p * r + {c}f;", f"p = p * r + {(float.fromhex(c) * 1.01).hex()}f;")
        for c in coeffs[1:]  # the degree-6 term is too small to matter at 1%
    ]
    mutants.append(("r = r - kf * ", "r = r - 0.0f * "))
    for old, new in mutants:
        bad = source.replace(old, new, 1)
        assert bad != source, old
        with pytest.raises(AssertionError):
            check_exp(x, _run_source(bad, x))
