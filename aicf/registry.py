"""Where aicf's passes and output targets are listed, for aicf-opt and the compile API.

Each entry maps a pass name (all start with `aicf-`) to a function returning the
`ModulePass` class, so that importing the registry stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass


def _infer_shapes():
    from aicf.passes.tensor.infer_shapes import InferShapesPass

    return InferShapesPass


def _lower_to_loops():
    from aicf.lowering.tensor_to_loop import LowerToLoopsPass

    return LowerToLoopsPass


AICF_PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "aicf-infer-shapes": _infer_shapes,
    "aicf-lower-to-loops": _lower_to_loops,
}
