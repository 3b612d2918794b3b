"""Tuning time of a 4096^3 f16 matmul (issue 8: < 60 s cold, < 0.1 s of tuning from the disk cache): a new
process with a fresh AICF_CACHE_DIR, then another new process on the same cache.

    python3 bench/tune_time.py
"""
import os, subprocess, sys, tempfile, time
code = r'''
import time, numpy as np, aicf
src = """
func.func @main(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %c = aicf_tensor.matmul %a, %b : (tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  func.return %c : tensor<4096x4096xf16>
}"""
t0 = time.perf_counter(); exe = aicf.compile(src, target="cuda", tune=True); t1 = time.perf_counter()
print(f"compile+tune {t1 - t0:.2f} s;", [l.strip() for l in exe.explain().splitlines() if "->" in l][:1])
'''
d = tempfile.mkdtemp()
env = dict(os.environ, AICF_CACHE_DIR=d, AICF_LOG="passes")
for what in ("cold", "cached"):
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    tune = [ln.split("aicf-tune", 1)[1].strip(" :{}") for ln in r.stderr.splitlines() if "aicf-tune" in ln]
    print(what, f"process {time.perf_counter() - t0:.2f} s:", r.stdout.strip(), "| aicf-tune pass:", tune or "not run",
          "" if r.returncode == 0 else r.stderr.strip()[-300:])
