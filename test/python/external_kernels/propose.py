"""A proposer for the gate's tests: reads aicf's request on stdin, answers with one
kernel for the subgraph `sum(broadcast_to(v, [R, C]), axis=0)` (R rows of the same
vector summed), in C or CUDA as the target asks. The mode (argv[1]) says what kind
of kernel:

  faster     correct and much faster: R * v, no sum over R rows
  wrong      (R - 1) * v
  nocompile  a syntax error
  slower     correct, but sleeps 200 ms a call
  hang       spins forever
  oob        correct, then writes past the end of its result
  crash      writes through a null pointer
  garbage    prints something that is not JSON

Any other subgraph gets {"kernels": []}. With AICF_TEST_PROPOSER_LOG set, each call
appends a line to that file (the tests count calls).
"""

from __future__ import annotations

import json
import os
import re
import sys

C_BODY = {
    "faster": "y[j] = r * v[j * sv];",
    "wrong": "y[j] = (r - 1.0f) * v[j * sv];",
    "nocompile": "y[j] = r * v[j * sv]  /* a missing semicolon */",
    "slower": "y[j] = r * v[j * sv];",
    "hang": "y[j] = r * v[j * sv];",
    "oob": "y[j] = r * v[j * sv];",
    "crash": "y[j] = r * v[j * sv];",
}

C_TEMPLATE = r"""#include <time.h>
int bcast_sum(const aicf_tensor *args, int64_t nargs, void *workspace) {
  (void)nargs; (void)workspace;
  const float *v = (const float *)args[0].data;
  float *y = (float *)args[1].data;
  const int64_t c = args[1].shape[0], sv = args[0].strides[0];
  const float r = %(rows)d.0f;
  %(before)s
  for (int64_t j = 0; j < c; ++j) { %(body)s }
  %(after)s
  return 0;
}
"""

C_EXTRA = {
    "slower": ("", "{ struct timespec t = {0, 200000000}; nanosleep(&t, 0); }"),
    "hang": ("{ volatile int spin = 1; while (spin) {} }", ""),
    "oob": ("", "for (int64_t j = c; j < c + 8; ++j) y[j] = 0.0f;"),
    "crash": ("", "*(volatile float *)0 = 1.0f;"),
}

CUDA_TEMPLATE = r"""extern "C" __global__ void bcast_sum(const float *v, float *y, int64_t v_n, int64_t v_s,
                                     int64_t y_n, int64_t y_s) {
  const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const float r = %(rows)d.0f;
  %(before)s
  if (j < y_n) { %(body)s }
  %(after)s
}
"""

CUDA_EXTRA = {
    "slower": ("", "if (j == 0) { long long t0 = clock64(); while (clock64() - t0 < 40000000LL) {} }"),
    # clock64 is a volatile read the compiler keeps (a volatile local's spin was not:
    # the first H100 run admitted that kernel)
    "hang": ("{ const long long t0 = clock64(); while (clock64() >= t0) {} }", ""),
    "oob": ("", "if (j < 8) y[y_n + j] = 0.0f;"),
    "crash": ("", "if (j == 0) *(volatile float *)0 = 1.0f;"),
}


def main() -> int:
    mode = sys.argv[1]
    req = json.load(sys.stdin)
    log = os.environ.get("AICF_TEST_PROPOSER_LOG")
    if log:
        with open(log, "a") as f:
            f.write(f"{mode} {req['target']}\n")
    if mode == "garbage":
        print("this is not JSON")
        return 0
    m = re.search(r"broadcast_to %\S+ shape = \[(\d+), (\d+)\]", req["subgraph"])
    if m is None or "reduce_sum" not in req["subgraph"]:
        print(json.dumps({"kernels": []}))
        return 0
    rows = int(m.group(1))
    if req["target"] == "cpu":
        before, after = C_EXTRA.get(mode, ("", ""))
        source = C_TEMPLATE % {"rows": rows, "body": C_BODY[mode], "before": before, "after": after}
        kernel = {"name": f"bcast_sum_{mode}", "source": source, "entry": "bcast_sum"}
    else:
        before, after = CUDA_EXTRA.get(mode, ("", ""))
        body = C_BODY[mode].replace("v[j * sv]", "v[j * v_s]").replace("y[j]", "y[j * y_s]")
        source = CUDA_TEMPLATE % {"rows": rows, "body": body, "before": before, "after": after}
        kernel = {"name": f"bcast_sum_{mode}", "source": source, "entry": "bcast_sum",
                  "launch": {"grid": ["cdiv(dim(1, 0), 256)"], "block": [256], "smem": 0}}
    print(json.dumps({"kernels": [kernel]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
