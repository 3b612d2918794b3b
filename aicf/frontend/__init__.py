"""The Python front end: trace functions over tensors into `aicf_tensor` IR.

`trace(fn, *example_args) -> ModuleOp`, the `jit` decorator, the `Tensor` proxy,
`TensorSpec` for example arguments given by shape and dtype, and `ops`.
"""

from aicf.frontend import ops
from aicf.frontend.jitted import JitFunction, jit
from aicf.frontend.tensor import Tensor, TensorSpec
from aicf.frontend.tracer import trace

__all__ = ["JitFunction", "Tensor", "TensorSpec", "jit", "ops", "trace"]
