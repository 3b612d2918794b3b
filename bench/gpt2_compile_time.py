"""Compile time of GPT-2 through `torch.compile(model, backend="aicf")` (issue 9: GPT-2
small, 12 layers, width 768, batch 8 x 1024 tokens, f16: cold under 30 s, a second
process with a warm cache under 5 s).

On the GPU machine (the issue's measurement): two fresh processes share one fresh
AICF_CACHE_DIR; each times its first call of the compiled model (dynamo, AOTAutograd,
aicf's compile, NVRTC, the first run, synchronised), and prints what aicf's part was.
A third ("floor") times the same first call with a backend that hands the ATen graph
back to torch: what dynamo and AOTAutograd cost without aicf. Each process first runs
the model eagerly on a few tokens, and imports torch._dynamo and aicf's backend, so
CUDA's context, cuBLAS's start-up and the imports are not counted as compile time
(the imports' time is printed beside it). The processes share a Python bytecode cache
(PYTHONPYCACHEPREFIX), as an installation whose site-packages hold .pyc files would.

    python bench/gpt2_compile_time.py --device cuda [--json FILE]

Without a GPU (`--local`): the ATen graph is captured on the cpu (for "cuda" with the
attention as the efficient-attention op the cuda graph holds, so the graph is the
cuda one), then traced and compiled by aicf for each `--target`: "cpu" all of it (the C build too),
"cuda" the Python side (passes, planning, GPU lowering, CUDA C emission; NVRTC and
the launches need the GPU and are not run), each cold (a fresh cache) and again in
the same process with the warm disk cache (the in-memory caches cleared).

    python bench/gpt2_compile_time.py --local --target cuda cpu [--profile DIR]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def build_model(args):
    import torch

    sys.path.insert(0, str(ROOT / "examples"))
    import gpt2_torch

    config = gpt2_torch.CONFIGS[args.config]
    if args.layers is not None:
        config = gpt2_torch.GPTConfig(**{**config.__dict__, "n_layer": args.layers})
    torch.manual_seed(0)
    model = gpt2_torch.GPT(config).to(args.device, getattr(torch, args.dtype)).eval()
    idx = torch.randint(0, config.vocab_size, (args.batch, args.seq or config.block_size), device=args.device)
    return gpt2_torch, model, idx


# --- on the GPU: the issue's measurement -------------------------------------------------


def first_call(args) -> dict:
    """One process: the first call of torch.compile(model, backend="aicf")."""
    t0 = time.perf_counter()
    import torch
    import torch._dynamo  # noqa: F401  (what torch.compile imports on its first use)

    import aicf.torch_backend as backend

    imports = time.perf_counter() - t0
    gpt2_torch, model, idx = build_model(args)
    chosen = floor_backend() if args.phase == "floor" else "aicf"
    prof = cProfile.Profile() if args.profile else None
    with torch.no_grad():
        model(idx[:1, :8])  # CUDA context, cuBLAS handle: not the compiler's
        torch.cuda.synchronize() if args.device == "cuda" else None
        start = time.perf_counter()
        prof.enable() if prof else None
        out = torch.compile(model, backend=chosen, dynamic=False)(idx)
        if args.device == "cuda":
            torch.cuda.synchronize()
        prof.disable() if prof else None
        first = time.perf_counter() - start
        err = gpt2_torch.rel_err(out, model(idx))
    if prof:
        Path(args.profile).mkdir(parents=True, exist_ok=True)
        prof.dump_stats(Path(args.profile) / f"{args.phase}.prof")
    if args.phase == "floor":
        return {"first_call_s": first, "aicf_compile_s": 0.0, "summary": "dynamo + AOTAutograd, torch runs the graph",
                "rel_err": err, "imports_s": imports}
    report = backend.last_report()
    return {"first_call_s": first, "aicf_compile_s": report.compile_seconds, "summary": report.summary(),
            "rel_err": err, "imports_s": imports, "before_aicf_s": report.started - start,
            "after_aicf_s": start + first - report.finished}


def floor_backend():
    """What every first call pays before aicf: dynamo and AOTAutograd with the aicf
    backend's decompositions, the ATen graph then run by torch. The decompositions
    are gathered inside the backend, in the timed call, as aicf's backend does."""

    def backend(gm, example_inputs):
        from torch._decomp import core_aten_decompositions
        from torch._dynamo.backends.common import aot_autograd

        import aicf.torch_backend as aicf_backend

        decompositions = {op: fn for op, fn in core_aten_decompositions().items()
                          if str(op) not in aicf_backend._KEPT_WHOLE}  # fmt: skip
        return aot_autograd(fw_compiler=lambda g, _: g, decompositions=decompositions)(gm, example_inputs)

    return backend


def _shape_flags(args) -> list[str]:
    """The model and profiling flags a child process is given as the parent was."""
    out = ["--seq", str(args.seq)] if args.seq else []
    out += ["--layers", str(args.layers)] if args.layers is not None else []
    return out + (["--profile", args.profile] if args.profile else [])


def _process(cmd: list[str], env: dict, what: str) -> dict:
    """One child process's row (the JSON of its last line); exits on its failure."""
    # bytecode is written (into the shared prefix), as an installed package has its
    # .pyc files: a PYTHONDONTWRITEBYTECODE in the machine's environment would make
    # every process compile torch's and aicf's sources again (1.7 s of a warm first
    # call on the H100 machine)
    child = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out = subprocess.run(cmd, env={**child, **env}, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"{what} failed:\n{out.stderr[-4000:]}")
    return {"phase": what.split()[-1], **json.loads(out.stdout.strip().splitlines()[-1])}


def device_run(args) -> list[dict]:
    cache = tempfile.mkdtemp(prefix="aicf-gpt2-cache-")
    # Python's bytecode cache beside aicf's: where site-packages cannot be written (the
    # GPU machine's torch), every process would compile torch's sources again (~6 s)
    pycache = tempfile.mkdtemp(prefix="aicf-gpt2-pyc-")
    rows = []
    for phase in ("cold", "warm", "floor"):
        cmd = [sys.executable, __file__, "--one", "--device", args.device, "--config", args.config,
               "--dtype", args.dtype, "--batch", str(args.batch), "--phase", phase]
        row = _process(cmd + _shape_flags(args), {"AICF_CACHE_DIR": cache, "PYTHONPYCACHEPREFIX": pycache}, phase)
        rows.append(row)
        print(f"{phase}: imports {row['imports_s']:.1f} s (not counted); first call {row['first_call_s']:.1f} s, "
              f"of which aicf {row['aicf_compile_s']:.1f} s "
              + (f"(dynamo + AOTAutograd before it {row['before_aicf_s']:.1f} s, the first run and the rest "
                 f"after it {row['after_aicf_s']:.1f} s) " if "before_aicf_s" in row else "")
              + f"(rel err {row['rel_err']:.1e}); {row['summary']}", flush=True)
    return rows


# --- without a GPU: the Python side --------------------------------------------------------


def capture(args, as_cuda: bool):
    """The ATen graph (and its example inputs) that aicf's backend receives, captured
    on the cpu without running the model; the seconds dynamo + AOTAutograd took.
    `as_cuda`: the attention as the cuda graph has it (the efficient-attention op;
    the cpu graph of an f16 model holds the math decomposition instead)."""
    import torch
    from torch._decomp import core_aten_decompositions
    from torch._dynamo.backends.common import aot_autograd

    gpt2_torch, model, idx = build_model(args)

    def efficient(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
        # the cuda graph's attention op (the cpu picks the math decomposition for f16)
        return torch.ops.aten._scaled_dot_product_efficient_attention(
            q, k, v, attn_mask, False, dropout_p, is_causal, scale=scale)[0]

    if as_cuda:
        gpt2_torch.F = type("F", (), {"scaled_dot_product_attention": staticmethod(efficient)})
    got = {}

    class Captured(Exception):
        pass

    def fw(gm, inputs):
        got["gm"], got["inputs"] = gm, inputs
        raise Captured

    def backend(gm, example_inputs):
        return aot_autograd(fw_compiler=fw, decompositions=core_aten_decompositions())(gm, example_inputs)

    t0 = time.perf_counter()
    with torch.no_grad():
        try:
            torch.compile(model, backend=backend, dynamic=False)(idx)
        except Exception:  # noqa: BLE001 - Captured, wrapped by dynamo
            if "gm" not in got:
                raise
    torch._dynamo.reset()
    return got["gm"], got["inputs"], time.perf_counter() - t0


def _compile_cuda_without_gpu(module, entry):
    """aicf.compiler._compile_cuda up to the CUDA C: NVRTC runs at the first call."""
    from aicf.backend.cuda.program import CudaProgram

    program = CudaProgram(module, entry)
    return program, program.source


def local_one(args) -> dict:
    """One process of local_run: capture, then the backend's compile for args.target[0]."""
    import aicf
    from aicf import compiler
    from aicf.torch_backend import Report
    from aicf.torch_backend.partition import compile_graph

    target = args.target[0]
    gm, inputs, capture_s = capture(args, as_cuda=target == "cuda")
    compiler._compile_cuda = _compile_cuda_without_gpu
    compiler._need_gpu = lambda: None  # a cached cuda program loads its kernels at the first call
    timed = {}
    real_compile = aicf.compile

    def compile_for(module, *, target=None, _target=target, **kw):  # the partition's is cpu here
        t, c = time.perf_counter(), time.process_time()
        exe = real_compile(module, target=_target, **kw)
        timed["aicf.compile"] = time.perf_counter() - t
        timed["aicf.compile cpu"] = time.process_time() - c
        return exe

    aicf.compile = compile_for
    report = Report()
    prof = cProfile.Profile() if args.profile else None
    t0, c0 = time.perf_counter(), time.process_time()
    if prof:
        prof.enable()
    compile_graph(gm, inputs, report, tune=False)
    if prof:
        prof.disable()
        Path(args.profile).mkdir(parents=True, exist_ok=True)
        prof.dump_stats(str(Path(args.profile) / f"gpt2-{target}-{args.phase}.prof"))
    total, total_cpu = time.perf_counter() - t0, time.process_time() - c0
    if report.fallback or not report.partitions:
        sys.exit(f"the graph did not compile whole: {report.summary()}")
    return {"target": target, "capture_s": capture_s, "backend_s": total, "backend_cpu_s": total_cpu,
            "aicf_compile_s": timed["aicf.compile"], "aicf_compile_cpu_s": timed["aicf.compile cpu"],
            "aten_ops": sum(report.compiled_ops.values())}


def local_run(args) -> list[dict]:
    """Per target, a cold process (a fresh cache) and a warm one (the same cache)."""
    rows = []
    for target in args.target:
        cache = tempfile.mkdtemp(prefix="aicf-gpt2-cache-")
        for phase in ("cold", "warm"):
            cmd = [sys.executable, __file__, "--local-one", "--target", target, "--phase", phase, "--config",
                   args.config, "--dtype", args.dtype, "--batch", str(args.batch)]
            row = _process(cmd + _shape_flags(args), {"AICF_CACHE_DIR": cache}, f"{target} {phase}")
            rows.append(row)
            print(f"{target} {phase}: dynamo + AOTAutograd {row['capture_s']:.2f} s; the backend "
                  f"{row['backend_s']:.2f} s wall, {row['backend_cpu_s']:.2f} s cpu (of which aicf.compile "
                  f"{row['aicf_compile_s']:.2f} s wall, {row['aicf_compile_cpu_s']:.2f} s cpu); "
                  f"{row['aten_ops']} ATen ops", flush=True)
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default="small")
    p.add_argument("--layers", type=int)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--seq", type=int)
    p.add_argument("--dtype", default="float16")
    p.add_argument("--device", default="cuda")
    p.add_argument("--local", action="store_true", help="no GPU: the Python side, see the docstring")
    p.add_argument("--target", nargs="+", default=["cuda", "cpu"], choices=["cuda", "cpu"])
    p.add_argument("--profile", help="a directory for cProfile files (one per process)")
    p.add_argument("--json")
    p.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # one process of device_run
    p.add_argument("--local-one", action="store_true", help=argparse.SUPPRESS)  # one process of local_run
    p.add_argument("--phase", default="cold", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        print(json.dumps(first_call(args)))
        return
    if args.local_one:
        args.device = "cpu"
        print(json.dumps(local_one(args)))
        return
    if args.local:
        args.device = "cpu"
    rows = local_run(args) if args.local else device_run(args)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
