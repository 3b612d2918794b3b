"""External kernels, admitted only through a gate.

Kernels from outside the compiler (C for the cpu target, CUDA for cuda) come from
three places: `register(...)` in Python, `*.kernels.json` files (`load`, or
`aicf.compile(..., kernels=PATH)`), and a proposer command (`aicf.compile(...,
proposer=CMD)` or $AICF_PROPOSER: where an LLM or a search tool plugs in). Each
states the tensor-level pattern it computes and a guard; the planner offers it for
every nest or group whose structure matches the pattern (`cpu.external` /
`gpu.external` candidates), and the gate decides: compiled, checked against the
float64 reference on edge shapes and special values in a child process with guarded
buffers and a time limit, timed against the compiler's own kernel, admitted only if
correct and faster, the verdict cached with its proof. `exe.explain()` shows every
kernel considered and why it was taken or not. docs/external-kernels.md is the
reference: the calling convention, the file format and the proposer protocol, with
a worked example.

    import aicf, aicf.kernels
    aicf.kernels.register(name="softmax_rows", pattern=SOFTMAX_MLIR, source=C_SOURCE,
                          entry="softmax_rows", guard={"shapes": [["n", "c"]]})
    exe = aicf.compile(program, target="cpu")
    print(exe.explain())

Modules: kernel.py (the description), registry.py (the file format), abi.py (the
calling convention), pattern.py (matching), cases.py, buffers.py, sandbox.py and
gate.py (the gate), cache.py (verdicts on disk), planning.py (the candidates),
proposer.py (the hook), store.py (sources for the backends).
"""

from __future__ import annotations

from .abi import C_HEADER
from .gate import STATS, GateConfig, Verdict
from .kernel import ExternalKernel, Guard, Launch
from .registry import available, clear, load, register, registered, unregister

__all__ = ["C_HEADER", "STATS", "ExternalKernel", "GateConfig", "Guard", "Launch", "Verdict", "available",
           "clear", "load", "register", "registered", "unregister"]
