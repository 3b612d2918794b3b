"""`torch.compile(model, backend="aicf")`: inference graphs captured by TorchDynamo,
decomposed to core ATen by AOTAutograd, compiled by aicf where it can.

    import torch
    compiled = torch.compile(model, backend="aicf")     # the entry point in pyproject
    with torch.no_grad():
        logits = compiled(idx)
    print(aicf.torch_backend.last_report().summary())

The ATen graph is split by torch's CapabilityBasedPartitioner into the largest
partitions of operators aicf has (`aten.ATEN`, on static shapes and dtypes it
takes); each partition is traced into aicf_tensor IR (`partition.py`) and compiled
for the inputs' device (cpu or cuda); tensors cross through DLPack, without copies.
What is left to torch is named in one log line (logger `aicf.torch_backend`) with
the reason, and in the `Report`. Inference only: a graph that needs gradients runs
in torch, said in the same way.

Tuning (timing matmul configurations on the GPU, passes/loop/tune.py) is off under
torch.compile unless asked for, as inductor autotunes only under "max-autotune": a
cold compile of GPT-2 small would otherwise spend tens of seconds timing kernels.
`torch.compile(model, backend="aicf", mode="max-autotune")` tunes as `aicf.compile`'s
default ("auto": matmuls of at least 2^31 FLOPs), `options={"tune": True | False |
"auto"}` says it outright, and a set `AICF_TUNE` is obeyed. Tuning results are kept
on disk, so a later process reuses them without timing anything.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from dataclasses import dataclass, field

log = logging.getLogger("aicf.torch_backend")


@dataclass
class Report:
    """What one backend call compiled: per partition its ATen operators (counted) and
    its `aicf.Executable` (`executables[i].explain()`); the operators left to torch
    with why; the seconds spent compiling."""

    target: str = "cpu"
    partitions: list[Counter] = field(default_factory=list)
    executables: list = field(default_factory=list)
    fallback: dict[str, str] = field(default_factory=dict)
    compile_seconds: float = 0.0
    # time.perf_counter() when aicf got the ATen graph and when it handed back the
    # compiled one: what came before is dynamo's and AOTAutograd's, what comes after
    # the first run's (bench/gpt2_compile_time.py splits a first call with them)
    started: float = 0.0
    finished: float = 0.0

    @property
    def compiled_ops(self) -> Counter:
        total: Counter = Counter()
        for p in self.partitions:
            total.update(p)
        return total

    def summary(self) -> str:
        n = sum(self.compiled_ops.values())
        text = (f"aicf compiled {n} ATen ops in {len(self.partitions)} partition(s) for "
                f"{self.target} in {self.compile_seconds:.1f} s")  # fmt: skip
        if self.fallback:
            text += "; left to torch: " + fallback_line(self.fallback)
        return text


_reports: list[Report] = []


def last_report() -> Report:
    """The report of the latest graph the backend compiled."""
    if not _reports:
        raise RuntimeError("the aicf backend has compiled no graph yet")
    return _reports[-1]


def reports() -> list[Report]:
    """Every graph's report, in order (dynamo may split a model into several graphs)."""
    return list(_reports)


def fallback_line(fallback: dict[str, str]) -> str:
    return ", ".join(f"{op} ({why})" for op, why in sorted(fallback.items()))


OPTIONS = ("tune",)
"""Keys of `torch.compile(..., backend="aicf", options={...})`."""


def tune_setting(mode: str | None, options: dict | None):
    """What the backend passes as `aicf.compile(tune=)`: see the module docstring."""
    import os

    from aicf.errors import ArgumentError

    options = dict(options or {})
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise ArgumentError(f"torch.compile(backend='aicf'): unknown option(s) {', '.join(unknown)} "
                            f"(known: {', '.join(OPTIONS)})")
    if "tune" in options:
        from aicf.compiler import tune_pass

        tune_pass(options["tune"])  # a bad value fails here, not as a partition left to torch
        return options["tune"]
    if mode == "max-autotune":
        return "auto"
    if os.environ.get("AICF_TUNE") is not None:
        return None  # aicf.compile reads it
    return False


def aicf_backend(gm, example_inputs, mode: str | None = None, options: dict | None = None):
    """The dynamo backend (registered as "aicf" through the torch_dynamo_backends
    entry point). `mode` and `options` are torch.compile's (see the module docstring
    for what they change)."""
    import torch
    from torch._decomp import core_aten_decompositions
    from torch._dynamo.backends.common import aot_autograd

    from aicf.torch_backend.partition import compile_graph

    tune = tune_setting(mode, options)

    if torch.is_grad_enabled() and any(
        getattr(t, "requires_grad", False) for t in example_inputs
    ):  # fmt: skip
        report = Report(fallback={"the whole graph": "needs gradients; aicf compiles inference "
                                  "only (run under torch.no_grad())"})  # fmt: skip
        _reports.append(report)
        log.warning("aicf: left to torch: %s", fallback_line(report.fallback))
        return gm.forward

    def fw_compiler(aten_gm, aten_inputs):
        report = Report()
        report.started = time.perf_counter()
        compiled = compile_graph(aten_gm, aten_inputs, report, tune=tune)
        report.finished = time.perf_counter()
        report.compile_seconds = report.finished - report.started
        _reports.append(report)
        if report.fallback:
            log.warning("aicf: left to torch: %s", fallback_line(report.fallback))
        return compiled

    # scaled_dot_product_attention stays one op (aicf_tensor.attention, torch's
    # semantics) instead of torch's math decomposition into bmm and softmax
    decompositions = {op: fn for op, fn in core_aten_decompositions().items()
                      if str(op) not in _KEPT_WHOLE}  # fmt: skip
    return aot_autograd(fw_compiler=fw_compiler, decompositions=decompositions)(gm, example_inputs)


_KEPT_WHOLE = ("aten.scaled_dot_product_attention.default",
               "aten._scaled_dot_product_flash_attention_for_cpu.default")  # fmt: skip


__all__ = ["Report", "aicf_backend", "last_report", "reports"]
