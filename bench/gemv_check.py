import sys; sys.path.insert(0, "bench")
import numpy as np, cupy as cp, aicf
from run import bench
for dt, npdt in (("f16", np.float16), ("f32", np.float32), ("bf16", None)):
    if npdt is None: continue
    for (m,k,n) in ((1,4096,4096),(1,768,3072),(1,4096,11008),(4096,4096,1)):
        text=(f"func.func @main(%a: tensor<{m}x{k}x{dt}>, %b: tensor<{k}x{n}x{dt}>) -> tensor<{m}x{n}x{dt}> {{\n"
              f"  %c = aicf_tensor.matmul %a, %b : (tensor<{m}x{k}x{dt}>, tensor<{k}x{n}x{dt}>) -> tensor<{m}x{n}x{dt}>\n  func.return %c : tensor<{m}x{n}x{dt}>\n}}")
        exe=aicf.compile(text, target="cuda", tune=False)
        a=cp.asarray(np.random.randn(m,k).astype(npdt)); b=cp.asarray(np.random.randn(k,n).astype(npdt))
        out=exe(a,b); ref=cp.asnumpy(a).astype(np.float64)@cp.asnumpy(b).astype(np.float64)
        err=float(np.abs(cp.asnumpy(out).astype(np.float64)-ref).max()/np.abs(ref).max())
        ms=bench(lambda: exe(a,b), 15); cb=bench(lambda: a@b, 15)
        nb=(m*k+k*n+m*n)*np.dtype(npdt).itemsize
        sched=[l for l in exe.explain().splitlines() if "->" in l or "schedule" in l][:1]
        print(f"{m}x{k}x{n} {dt}: aicf {ms*1e3:.1f} us ({nb/ms/1e6:.0f} GB/s) cuBLAS {cb*1e3:.1f} us err {err:.1e} {sched}")
