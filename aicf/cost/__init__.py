"""The one cost package: every decision aicf makes by cost is priced here, over a
target description (aicf/target.py) passed in as a parameter.

- `ops`: the op-cost table (instructions per element), for tensor and scalar ops;
- `gpu`: GPU building blocks (bytes moved and memory time, occupancy from threads,
  registers and Little's law, lane efficiency, launch and tail effects) and the
  memory-bound schedules' estimates (elementwise, per-output, rows);
- `row_group`: the row-group kernel (softmax, layer norm);
- `matmul`: the tiled matmul's space, ranked;
- `library`: library kernels (cuBLAS on cuda, BLAS on cpu);
- `cpu`: the C loop nests of the cpu target;
- `fusion`: what a set of kernels costs, for `aicf-fuse`.

Nothing under lowering/ or backend/ imports this package: the planner
(`aicf-plan`, passes/loop/plan.py) writes its choices as schedule attributes
and the lowerings read them.
"""
