"""`aicf-lower-to-loops`: bufferize an `aicf_tensor` program and turn every tensor op
into one `aicf_loop.nest` (see `aicf.dialects.loop` for the nest's semantics).

- `bufferize`: the pass; function signatures in destination-passing style, buffers
  for every tensor value, deallocation after the last use, copies into outputs.
- `ops`: one small conversion per op family (elementwise, cast, reductions, mean,
  matmul, layout).
- `access`: the affine access maps (broadcasting, permutations, reshapes, reductions).
- `scalar`: the scalar bodies in `arith`/`math` and dtype conversions.
"""

from aicf.lowering.tensor_to_loop.bufferize import LowerToLoopsPass

__all__ = ["LowerToLoopsPass"]
