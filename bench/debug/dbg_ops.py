import sys; sys.path.insert(0, "test/python")
import numpy as np, cupy as cp, aicf
import test_gpu_operators as T
r, c = 37, 129
rng = np.random.default_rng(r * c)
s = (rng.standard_normal((r, c)) * 2).astype(np.float32)
t = (rng.standard_normal((r, c)) * 2).astype(np.float16)
for fuse in (True, False):
    act = aicf.compile(T.ACTIVATIONS.format(R=r, C=c), target="cuda", fuse=fuse)
    p, y = (cp.asnumpy(o) for o in act(cp.asarray(s), cp.asarray(t)))
    s64, t64 = s.astype(np.float64), t.astype(np.float64)
    g = T.gelu_tanh(t64).astype(np.float16); e = T.ERF(t64).astype(np.float16)
    ref = np.where(s64 > 0, g, e)
    bad = np.abs(y.astype(np.float64) - ref) > np.spacing(np.abs(ref))
    print("fuse", fuse, "bad", bad.sum(), "of", bad.size)
    idx = np.argwhere(bad)[:5]
    for i, j in idx:
        print("  ", i, j, "s>0", s[i, j] > 0, "t", t[i, j], "y", y[i, j], "gelu", g[i, j], "erf", e[i, j])
    print(act.explain()[:1500])
