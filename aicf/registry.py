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


def _fuse():
    from aicf.passes.tensor.fuse import FusePass

    return FusePass


def _recognize_attention():
    from aicf.passes.tensor.recognize_attention import RecognizeAttentionPass

    return RecognizeAttentionPass


def _decompose_attention():
    from aicf.passes.tensor.decompose_attention import DecomposeAttentionPass

    return DecomposeAttentionPass


def _lower_to_loops():
    from aicf.lowering.tensor_to_loop import LowerToLoopsPass

    return LowerToLoopsPass


def _fold_constants():
    from aicf.passes.tensor.fold import FoldConstantsPass

    return FoldConstantsPass


def _cleanup_reshapes():
    from aicf.passes.tensor.cleanup_reshapes import CleanupReshapesPass

    return CleanupReshapesPass


def _fold_view_copies():
    from aicf.passes.loop.fold_view_copies import FoldViewCopiesPass

    return FoldViewCopiesPass


def _fuse_epilogue():
    from aicf.passes.loop.fuse_epilogue import FuseEpiloguePass

    return FuseEpiloguePass


def _tune():
    from aicf.passes.loop.tune import TunePass

    return TunePass


def _split_reductions():
    from aicf.passes.loop.split_reductions import SplitReductionsPass

    return SplitReductionsPass


def _lower_to_gpu():
    from aicf.lowering.loop_to_gpu import LowerToGpuPass

    return LowerToGpuPass


def _plan():
    from aicf.passes.loop.plan import SchedulePass

    return SchedulePass


def _tile():
    from aicf.passes.loop.tile import TilePass

    return TilePass


def _lower_external():
    from aicf.lowering.gpu_schedules.external import LowerExternalPass

    return LowerExternalPass


def _propose_kernels():
    from aicf.kernels.proposer import ProposeKernelsPass

    return ProposeKernelsPass


def _to_upstream():
    from aicf.lowering.loop_to_upstream import LoopToUpstreamPass

    return LoopToUpstreamPass


def _expand_variance():
    from aicf.passes.tensor.expand_variance import ExpandVariancePass

    return ExpandVariancePass


def _swizzle_smem():
    from aicf.passes.gpu.swizzle_smem import SwizzleSmemPass

    return SwizzleSmemPass


def _lower_smem_layouts():
    from aicf.passes.gpu.lower_smem_layouts import LowerSmemLayoutsPass

    return LowerSmemLayoutsPass


AICF_PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "aicf-plan": _plan,
    "aicf-tile": _tile,
    "aicf-swizzle-smem": _swizzle_smem,
    "aicf-lower-smem-layouts": _lower_smem_layouts,
    "aicf-infer-shapes": _infer_shapes,
    "aicf-lower-to-loops": _lower_to_loops,
    "aicf-fold-constants": _fold_constants,
    "aicf-cleanup-reshapes": _cleanup_reshapes,
    "aicf-split-reductions": _split_reductions,
    "aicf-lower-to-gpu": _lower_to_gpu,
    "aicf-expand-variance": _expand_variance,
    "aicf-fuse": _fuse,
    "aicf-recognize-attention": _recognize_attention,
    "aicf-decompose-attention": _decompose_attention,
    "aicf-fold-view-copies": _fold_view_copies,
    "aicf-fuse-epilogue": _fuse_epilogue,
    "aicf-tune": _tune,
    "aicf-lower-external": _lower_external,
    "aicf-propose-kernels": _propose_kernels,
    "aicf-to-upstream": _to_upstream,
}
