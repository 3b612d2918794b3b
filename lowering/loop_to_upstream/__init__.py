"""`aicf-to-upstream`: the exit to upstream MLIR. A loop-level program (or a
tensor-level one, through aicf.compile's tensor pipeline) becomes `func`, `scf`,
`memref`, `arith` and `math` only, in the subset MLIR 16 (Debian's mlir-16-tools)
parses and lowers to the LLVM dialect. Print it with `--print-no-properties`
(aicf-opt) or `aicf.upstream.to_upstream_mlir`: MLIR 16 has no `<{...}>` property
syntax.

One pattern per op family:
- `group`: an `aicf_loop.group` runs its members in order (its plain semantics);
- `nest`: an `aicf_loop.nest` becomes `scf.for` loops (the reduction dims innermost,
  carrying the accumulators), loads and stores through its access maps spelled in
  `arith` on `index`, and its body inlined;
- `gather`: `aicf_loop.gather` becomes loops that wrap and clamp the index;
- memref ops (alloc, dealloc, globals, copy) are upstream ops already and stay;
- `scalar`: body ops MLIR 16 lacks or defines differently (NaN-propagating
  min/max, integer division by 0 or -1, integer powers) become ops it has, with
  aicf's semantics (those of the cpu target).

What has no upstream meaning is dropped: `aicf.schedule` attributes (how a nest is
run, not what it computes). `aicf.num_outputs` stays on the function (a discardable
attribute upstream tools keep): the trailing arguments it counts are the outputs.
"""

from aicf.lowering.loop_to_upstream.lower import LoopToUpstreamPass

__all__ = ["LoopToUpstreamPass"]
