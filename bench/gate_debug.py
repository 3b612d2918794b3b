import sys; sys.path.insert(0, "test/python")
import os, tempfile
os.environ["AICF_CACHE_DIR"] = tempfile.mkdtemp()
import aicf
from aicf.kernels import register
from kernel_gate_support import HERE, bcast_sum
ROWS = 65536
register(name="bcast_sum_by_hand", target="cuda", pattern=bcast_sum(ROWS), entry="bcast_sum",
         source=f"#define ROWS {ROWS}\n" + (HERE / "bcast_sum.cu").read_text(),
         guard={"shapes": [["c"]], "constraints": {"c": {"min": 1024, "max": 1024}}},
         launch={"grid": ["cdiv(c, 256)"], "block": [256], "smem": 0})
exe = aicf.compile(bcast_sum(ROWS), target="cuda", gate={"time_limit_s": 5.0})
print(exe.explain()[:4000])
