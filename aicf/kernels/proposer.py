"""The proposer hook: a command of the user's (an LLM client, a search tool; aicf
ships none) is asked for kernels, and what it returns goes through the gate like
any registered kernel.

`aicf-propose-kernels{proposer="CMD" target=cpu timeout=60}` runs at the tensor
level, after fusion (`aicf.compile(..., proposer=CMD)` or the AICF_PROPOSER
environment variable put it in the pipeline). For each subgraph that will become
one kernel (each `aicf_tensor.fused` group and each unfused compute op, with the
layout ops that feed it), CMD is run with a JSON request on stdin:

    {"version": 1, "aicf": "0.1.0", "target": "cpu",
     "subgraph": "func.func @subgraph(%0: tensor<64x1000xf32>) -> tensor<64x1000xf32> {...}",
     "arguments": [{"type": "tensor<64x1000xf32>", "dtype": "f32", "shape": [64, 1000]}],
     "results":   [{"type": ..., "dtype": ..., "shape": ...}],
     "constraints": {"target": {... aicf/target.py's description: cores, SIMD width, caches;
                                or SMs, shared memory per block and SM, registers ...},
                     "abi": {"language": "c", "header": ..., "signature": ..., "doc": ...},
                     "time_limit_s": 10.0, "min_speedup": 1.1},
     "reply": "..."}

and must print on stdout, within `timeout` seconds, a JSON object: one kernel or
{"kernels": [...]}, each {"name", "source", "entry"} and optionally "guard",
"launch" (cuda: grid, block, smem), "workspace", "arg_order" (aicf/kernels/kernel.py).
The pattern of a proposal is the subgraph; without guard shapes it applies to the
subgraph's exact shapes only (give symbols to claim more, and the gate tests them).
A proposer that fails, times out or prints something else is noted (explain())
and the compile goes on. Replies are cached per subgraph, target and command
(aicf/kernels/cache.py), so a second process does not ask again.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from aicf.errors import CompileError

from . import abi, cache, registry
from .kernel import ExternalKernel

VIEWS = ("aicf_tensor.reshape", "aicf_tensor.transpose", "aicf_tensor.broadcast_to", "aicf_tensor.slice")
NOT_KERNELS = ("aicf_tensor.constant", *VIEWS)
NOTES: list[str] = []  # what went wrong with proposers, for explanations
STATS = {"proposer_calls": 0, "cached_replies": 0}

REPLY = ("a JSON object on stdout: one kernel or {\"kernels\": [...]}; a kernel is {\"name\", \"source\", "
         "\"entry\"} and optionally \"guard\" ({\"shapes\": per argument a list of ints or symbol names, "
         "\"constraints\": {symbol: {min, max, multiple_of}}, \"layout\": \"contiguous\"|\"strided\"}; without "
         "shapes the kernel applies to exactly these shapes), \"launch\" (cuda: {\"grid\", \"block\", \"smem\"}, "
         "integer expressions over the symbols), \"workspace\" (bytes, an expression) and \"arg_order\" (the "
         "kernel's arguments as indices into the subgraph's arguments then results). {\"kernels\": []} declines.")


def _subgraph(op: Operation) -> ModuleOp:
    """The op as a function of its own: the layout ops feeding it are included (they
    fold into its loops), anything else it reads is an argument."""
    views: list[Operation] = []
    leaves: list[SSAValue] = []

    def visit(v: SSAValue) -> None:
        owner = v.owner
        if isinstance(owner, Operation) and owner.name in VIEWS:
            if owner not in views:
                for x in owner.operands:
                    visit(x)
                views.append(owner)
        elif v not in leaves:
            leaves.append(v)

    for v in op.operands:
        visit(v)
    block = Block(arg_types=[v.type for v in leaves])
    mapping: dict[SSAValue, SSAValue] = dict(zip(leaves, block.args))
    for vop in views:
        c = vop.clone(value_mapper=mapping)
        block.add_op(c)
        mapping.update(zip(vop.results, c.results))
    if op.name == "aicf_tensor.fused":
        inner = op.regions[0].block
        mapping.update({a: mapping[v] for a, v in zip(inner.args, op.operands)})
        results = []
        for o in inner.ops:
            if o.name == "aicf_tensor.yield":
                results = [mapping[v] for v in o.operands]
                continue
            c = o.clone(value_mapper=mapping)
            block.add_op(c)
            mapping.update(zip(o.results, c.results))
    else:
        c = op.clone(value_mapper=mapping)
        block.add_op(c)
        results = list(c.results)
    block.add_op(ReturnOp(*results))
    fn = FuncOp("subgraph", ([a.type for a in block.args], [r.type for r in results]), Region(block))
    return ModuleOp([fn])


def subgraphs(module: ModuleOp) -> list[tuple[str, str]]:
    """(where, MLIR text of the subgraph function) for each kernel-to-be."""
    out = []
    for fn in [o for o in module.ops if isinstance(o, FuncOp)]:
        for i, op in enumerate(fn.body.block.ops):
            if op.dialect_name() != "aicf_tensor" or op.name in NOT_KERNELS:
                continue
            if not all(isinstance(t, TensorType) for t in (*op.operand_types, *op.result_types)):
                continue
            out.append((f"@{fn.sym_name.data} op #{i} ({op.name})", str(_subgraph(op))))
    return out


def _describe(t) -> dict:
    return {"type": str(t), "dtype": str(t.get_element_type()), "shape": list(t.get_shape())}


def _types(text: str):
    """The subgraph function's (argument types, result types)."""
    from aicf.context import make_context
    from aicf.diagnostics import parse_module

    fn = next(o for o in parse_module(make_context(), text, "<subgraph>").ops if isinstance(o, FuncOp))
    return fn.function_type.inputs.data, fn.function_type.outputs.data


def request(text: str, target_kind: str, target, gate) -> dict:
    import aicf

    ins, outs = _types(text)
    return {
        "version": 1, "aicf": aicf.__version__, "target": target_kind, "subgraph": text,
        "arguments": [_describe(t) for t in ins],
        "results": [_describe(t) for t in outs],
        "constraints": {"target": dataclasses.asdict(target), "abi": abi.describe(target_kind),
                        "time_limit_s": gate.time_limit_s, "min_speedup": gate.min_speedup},
        "reply": REPLY,
    }


MAX_REPLY_BYTES = 16 << 20
"""The most of a proposer's reply read (kernel sources and launch data, not data)."""
_POLL_S = 0.05  # how often a running proposer's output is measured against it


def ask(command: str, req: dict, timeout: float) -> list[dict] | str:
    """The proposer's kernels (raw), or why there are none. Its request and its reply
    go through files, not pipes: a reply is read once the command has exited, even if
    something it started in a session of its own still holds its output open, and at
    most MAX_REPLY_BYTES of it. What it leaves in its process group is killed when it
    exits (a server it means to keep must start a session of its own: setsid)."""
    STATS["proposer_calls"] += 1
    with tempfile.TemporaryFile() as fin, tempfile.TemporaryFile() as fout, tempfile.TemporaryFile() as ferr:
        fin.write(json.dumps(req).encode())
        fin.seek(0)
        try:
            proc = subprocess.Popen(shlex.split(command), stdin=fin, stdout=fout, stderr=ferr,
                                    start_new_session=True)
        except (OSError, ValueError) as e:
            return f"cannot run it: {e}"
        # waited in short steps: a proposer that floods its output (`yes`) wrote GBs a
        # second into the temporary files until the time limit; it is stopped at the cap
        deadline = time.monotonic() + timeout
        # its exit is seen without reaping it (WNOWAIT): until proc.wait() its pid, and
        # so its process group's id, cannot be another process's, and killpg is safe
        try:
            while os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
                flooded = max(os.fstat(f.fileno()).st_size for f in (fout, ferr)) > MAX_REPLY_BYTES
                if flooded or time.monotonic() >= deadline:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                    if flooded:
                        return f"its reply is longer than {MAX_REPLY_BYTES} bytes (stopped)"
                    return f"no reply within {timeout:g} s (stopped)"
                time.sleep(min(_POLL_S, max(deadline - time.monotonic(), 0)))
        except BaseException:
            # Ctrl-C (or any error) while it runs: its session is out of the terminal's
            # reach, so the SIGINT never got to it and it ran on, with all it started
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise
        # what it left running in its process group wrote on into the files, unbounded
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the group holds its zombie at least
        except ProcessLookupError:  # it left its group (setpgid)
            pass
        proc.wait()
        fout.seek(0)
        raw = fout.read(MAX_REPLY_BYTES + 1)
        ferr.seek(0)
        err = ferr.read(MAX_REPLY_BYTES).decode("utf-8", errors="replace")
    if len(raw) > MAX_REPLY_BYTES:
        return f"its reply is longer than {MAX_REPLY_BYTES} bytes"
    out = raw.decode("utf-8", errors="replace")
    if proc.returncode != 0:
        tail = "\n".join(err.strip().splitlines()[-5:])
        return f"exit status {proc.returncode}" + (f":\n{tail}" if tail else "")
    tail = "\n".join(err.strip().splitlines()[-5:])
    said = f"\nits stderr ends:\n{tail}" if tail else ""
    if not out.strip():
        return "it printed nothing on stdout (a kernel object or {\"kernels\": [...]} is expected)" + said
    try:
        data = json.loads(out)
    except ValueError as e:
        return (f"its output is not JSON ({e}; stdout must hold the JSON object alone): {out[:200]!r}" + said)
    if isinstance(data, dict) and isinstance(data.get("kernels"), list):
        data = data["kernels"]
    elif isinstance(data, dict):
        data = [data]
    if not isinstance(data, list) or not all(isinstance(k, dict) for k in data):
        return "its output is neither a kernel object nor {\"kernels\": [...]}"
    return data


def _kernel(raw: dict, text: str, target_kind: str, command: str, index: int) -> ExternalKernel:
    data = {"name": f"proposal{index}", **raw, "target": target_kind, "pattern": text, "origin": f"proposer {command}"}
    guard = data.get("guard")
    if guard is None or isinstance(guard, dict):  # anything else: Guard.from_data says why
        guard = dict(guard or {})
        if guard.get("shapes") is None:
            guard["shapes"] = [list(t.get_shape()) for t in _types(text)[0]]
        data["guard"] = guard
    return ExternalKernel.from_data(data, origin=f"proposer {command}")


def propose(module: ModuleOp, command: str, target_kind: str, target, gate, timeout: float) -> int:
    """Ask `command` for each subgraph of `module`; register what it proposes. The
    number of proposals registered."""
    from .pattern import lower_pattern

    count = 0
    for where, text in subgraphs(module):
        key = cache.digest(text, target_kind, getattr(target, "name", ""), command)
        found = cache.load(key, ".proposals.json")
        if found is not None:
            STATS["cached_replies"] += 1
            raws = found["kernels"]
        else:
            raws = ask(command, request(text, target_kind, target, gate), timeout)
            if isinstance(raws, str):
                NOTES.append(f"proposer for {where}: {raws}")
                continue
            cache.save(key, ".proposals.json", {"kernels": raws, "command": command})
        for i, raw in enumerate(raws):
            try:
                k = _kernel(raw, text, target_kind, command, i)
                lower_pattern(k)
            except CompileError as e:
                NOTES.append(f"proposal #{i} for {where} is not usable: {e}")
                continue
            registry.add_proposal(k)
            count += 1
    return count


@dataclass(frozen=True)
class ProposeKernelsPass(ModulePass):
    """Ask the proposer command for a kernel per subgraph; register its proposals."""

    name = "aicf-propose-kernels"

    proposer: str = ""  # the command; "": $AICF_PROPOSER, else nothing to do
    target: str = "cpu"  # cpu, or a GPU description name (gpu, h100, sm_90, ...)
    timeout: float = 60.0  # seconds the proposer has for each subgraph
    gate_time_limit: float = 10.0  # told to the proposer (the gate's, as aicf-plan's)
    min_speedup: float = 1.1

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from aicf.target import resolve_target

        from .gate import GateConfig

        command = self.proposer or os.environ.get("AICF_PROPOSER", "")
        if not command.strip():
            return
        if self.timeout <= 0:
            raise CompileError(f"aicf-propose-kernels: timeout must be > 0, got {self.timeout}")
        target = resolve_target(self.target)
        kind = "cpu" if getattr(target, "kind", "") == "cpu" else "cuda"
        propose(op, command, kind, target, GateConfig(self.gate_time_limit, self.min_speedup), self.timeout)
