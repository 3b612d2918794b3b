"""`aicf-fuse`: group `aicf_tensor` ops into `aicf_tensor.fused` kernels, by cost.

Fusion is a graph rewrite that lowers the cost model's estimate (global memory
traffic, launches, recomputation; aicf/cost/fusion.py) within a register/operand budget,
not a flag. The groups it forms:
- elementwise chains (unary, binary, cast); broadcast operands stay un-materialised:
  they are group inputs read through a broadcast map;
- elementwise producers into a reduction (prologue), elementwise consumers of a
  reduction (epilogue: a mean's scaling, `sum * 0.5`);
- row groups: reductions over the same axes of the same domain, with elementwise ops
  on the full domain that read the reductions broadcast back. Softmax over the last
  axis and layer norm each become one group (`fusion_domain` says what is legal);
- a value with several consumers is either kept inside one group and written out for
  the others (materialised), or its cheap elementwise producer chain is recomputed
  inside a consumer's group, whichever the cost model prefers.
Matmul, layout ops (reshape, transpose, broadcast_to), non-splat constants and ops on
dynamic shapes are never fused; splat constants and iotas are cloned into the groups
that use them. A group of one op is not created.

Greedy, in program order: for each fusible op c and each fusible producer p of its
operands, score merging p's group into c's group and recomputing p's chain inside c's
group; take the better one if it lowers the estimate, keeps the group acyclic with
the rest of the program and within the budget.

    %0 = aicf_tensor.mul %x, %a : (tensor<1024xf32>, tensor<f32>) -> tensor<1024xf32>
    %1 = aicf_tensor.sin %0 : (tensor<1024xf32>) -> tensor<1024xf32>

becomes

    %1 = aicf_tensor.fused ins(%x, %a : tensor<1024xf32>, tensor<f32>) -> tensor<1024xf32> {
    ^bb0(%2 : tensor<1024xf32>, %3 : tensor<f32>):
      %4 = aicf_tensor.mul %2, %3 : (tensor<1024xf32>, tensor<f32>) -> tensor<1024xf32>
      %5 = aicf_tensor.sin %4 : (tensor<1024xf32>) -> tensor<1024xf32>
      aicf_tensor.yield %5 : tensor<1024xf32>
    }
"""

from __future__ import annotations

import heapq
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.transforms.dead_code_elimination import dce

from aicf.dialects import tensor as t
from aicf.cost.fusion import Cost, CostModel, FusionBudget
from aicf.diagnostics import location_of
from aicf.logs import getLogger
from aicf.passes.tensor.fusion_domain import (
    GroupDomain,
    NotFusible,
    analyze,
    fusible_op,
    is_leaf,
)

_log = getLogger("fusion")


# readers of one tensor a sibling merge looks ahead to (2000 readers of one value
# took over 10 minutes trying every pair; siblings are alike, the window loses little)
SIBLING_WINDOW = 8


class Group:
    """A kernel in the making: ops in program order. An op belongs to one group as its
    home (the group that computes it for everybody else) and may be recomputed in
    others."""

    def __init__(self, ops: Sequence[Operation], fusible: bool):
        self.ops = list(ops)
        self.fusible = fusible
        self.members = set(ops)
        self.domain: GroupDomain | None = None  # its analysis, once priced

    def __repr__(self) -> str:
        return f"Group({[op.name for op in self.ops]})"


@dataclass
class _Candidate:
    """The groups a decision replaces and the ones it makes (`home` ops per new group)."""

    score: float
    replaced: list[Group]
    made: list[tuple[Group, set[Operation]]]
    # the made group's own estimate once applied, where the scoring computed it
    seconds: float | None = None


class _Fuser:
    def __init__(self, block: Block, model: CostModel, budget: FusionBudget):
        self.block = block
        self.model = model
        self.budget = budget
        self.index = {op: i for i, op in enumerate(block.ops)}
        self.unused = {op for op in block.ops if not any(r.uses for r in op.results)}
        self.home: dict[Operation, Group] = {}
        self.containing: dict[Operation, set[Group]] = {}
        self.splats: set[Operation] = set()
        for op in block.ops:
            if is_leaf(op):
                self.splats.add(op)
                continue
            g = Group([op], fusible_op(op))
            self.home[op] = g
            self.containing[op] = {g}
        # the graph does not change until `rewrite`: producers are looked up once
        self.producers: dict[Operation, list[Operation]] = {
            op: list(dict.fromkeys(o.owner for o in op.operands if o.owner in self.home))  # type: ignore[misc]
            for op in self.home
        }
        # each live group's own estimate, until the next decision changes the groups
        self.seconds_of: dict[Group, float | None] = {}

    # --- the group graph ---------------------------------------------------------------

    def _producer(self, v: SSAValue) -> Operation | None:
        op = v.owner
        if isinstance(op, Operation) and op in self.home:
            return op
        return None

    def inputs(self, g: Group) -> list[SSAValue]:
        seen: dict[SSAValue, None] = {}
        for op in g.ops:
            for v in op.operands:
                owner = v.owner
                if owner in g.members or owner in self.splats:
                    continue
                seen[v] = None
        return list(seen)

    def outputs(self, g: Group, homed: set[Operation], gone: Iterable[Group] = ()) -> list[SSAValue]:
        """Values of `homed` ops some other group (or a non-group user) reads from g."""
        gone = set(gone)
        out: list[SSAValue] = []
        for op in g.ops:
            if op not in homed:
                continue
            for v in op.results:
                for use in v.uses:
                    user = use.operation
                    if user in g.members:
                        continue
                    # the groups holding user, less `gone` (without building a set
                    # per use: this is on the pass's hot path)
                    holders = [h for h in self.containing.get(user, ()) if h not in gone]
                    if not holders or any(op not in h.members for h in holders):
                        out.append(v)
                        break
        return out

    def homed(self, g: Group) -> set[Operation]:
        return {op for op in g.ops if self.home[op] is g}

    def preds(self, ops: Iterable[Operation], members: set[Operation]) -> set[Group]:
        return {self.home[p] for op in ops for p in self.producers[op] if p not in members}

    def creates_cycle(self, merged: set[Group], members: set[Operation]) -> bool:
        """Whether a group outside `merged` sits on a path between two of its groups.

        Walks producers backwards from the merged groups' inputs. A group can lead
        back to a merged group only if one of its ops comes after the merged group's
        first op in program order (data flows forward), so the walk skips groups that
        end before it: on chains it stops at once, which keeps the pass linear."""
        first = min(self.index[g.ops[0]] for g in merged)  # group ops are in order

        def may_reach(g: Group) -> bool:
            return self.index[g.ops[-1]] > first

        ops = [op for g in merged for op in g.ops]
        stack = [g for g in self.preds(ops, members) - merged if may_reach(g)]
        seen = set(stack)
        while stack:
            g = stack.pop()
            for p in self.preds(g.ops, g.members):
                if p in merged:
                    return True
                if p not in seen and may_reach(p):
                    seen.add(p)
                    stack.append(p)
        return False

    # --- costs ---------------------------------------------------------------------------

    def cost(self, g: Group, homed: set[Operation], gone: Iterable[Group] = (),
             prefix: Group | None = None) -> Cost | None:
        """The estimate of g as one kernel, None if it is not a legal group. `prefix`:
        a group whose ops begin g's (its analysis is resumed, not redone)."""
        outputs = self.outputs(g, homed, gone)
        if not outputs and all(op in homed for op in g.ops):
            return Cost(0, 0, 0, 0)  # nobody reads it any more
        inputs = self.inputs(g)
        if len(inputs) > self.budget.max_inputs or len(g.ops) > self.budget.max_ops:
            return None
        try:  # groups hold fusible ops only
            dom = analyze(g.ops, outputs, checked=True, prefix=prefix.domain if prefix is not None else None)
        except NotFusible:
            return None
        g.domain = dom
        return self.model.group_cost(dom, inputs, outputs)

    def own_seconds(self, g: Group) -> float | None:
        """The estimate of a live group as it is (memoised until the next `apply`)."""
        if g not in self.seconds_of:
            self.seconds_of[g] = self._seconds(self.cost(g, self.homed(g)))
        return self.seconds_of[g]

    def _before(self, *groups: Group) -> float | None:
        own = [self.own_seconds(g) for g in groups]
        return None if None in own else sum(own)  # type: ignore[arg-type]

    def _seconds(self, *costs: Cost | None) -> float | None:
        if any(c is None for c in costs):
            return None
        return sum(self.model.seconds(c) for c in costs)  # type: ignore[arg-type]

    def _ordered(self, ops: Iterable[Operation]) -> list[Operation]:
        return sorted(set(ops), key=self.index.__getitem__)

    # --- decisions -------------------------------------------------------------------------

    def try_merge(self, p: Group, c: Group) -> _Candidate | None:
        if len(p.members | c.members) > self.budget.max_ops:
            return None  # (unless both are dead, then nothing is gained either)
        g = Group(self._ordered([*p.ops, *c.ops]), True)
        homed = self.homed(p) | self.homed(c)
        # the costs first: an over-budget group is refused in O(its size), and the
        # cycle check is the dearer test
        before = self._before(p, c)
        prefix = p if g.ops[: len(p.ops)] == p.ops else None  # c after p: a chain grows
        after = self._seconds(self.cost(g, homed, {p, c}, prefix))
        if before is None or after is None or self.creates_cycle({p, c}, g.members):
            return None
        return _Candidate(before - after, [p, c], [(g, homed)], after)

    def try_recompute(self, p: Group, c: Group, v: SSAValue, merge: _Candidate | None) -> _Candidate | None:
        """Copy v's producer chain (elementwise, inside p) into c; p keeps it for
        its other users. Not scored when the chain is all of p and merging p into c is
        legal (`merge`): the merged kernel then reads, writes and computes no more
        than the two kernels would (the cost is additive), so it wins anyway."""
        root = v.owner
        assert isinstance(root, Operation)
        cone: dict[Operation, None] = {}  # ordered, with O(1) membership
        members = p.members
        stack = [root]
        while stack:
            op = stack.pop()
            if op in cone or op not in members:
                continue
            if isinstance(op, t.ReduceOp):
                return None
            cone[op] = None
            # op's producers looked up once in __init__, those in p (the cone is a set:
            # the order they are walked in does not matter)
            stack.extend(q for q in self.producers[op] if q in members)
        if merge is not None and len(cone) == len(p.members):
            return None
        if len(c.members | cone.keys()) > self.budget.max_ops:
            # over the budget (`cost` would price it None): refused before pricing p
            # and the copy, as try_merge refuses; a chain whose groups are full asks
            # this for every op
            return None
        g = Group(self._ordered([*c.ops, *cone]), True)
        # p as it would be with v's readers in c served by the copy
        self.containing_swap(c, g)
        try:
            after = self._seconds(
                self.cost(p, self.homed(p)), self.cost(g, self.homed(c), {c})
            )
        finally:
            self.containing_swap(g, c)
        before = self._before(p, c)
        if before is None or after is None:
            return None
        return _Candidate(before - after, [c], [(g, self.homed(c))])

    def containing_swap(self, old: Group, new: Group) -> None:
        for op in old.ops:
            self.containing[op].discard(old)
        for op in new.ops:
            self.containing.setdefault(op, set()).add(new)

    def apply(self, cand: _Candidate) -> None:
        self.seconds_of.clear()
        for g in cand.replaced:
            for op in g.ops:
                self.containing[op].discard(g)
        for g, homed in cand.made:
            for op in g.ops:
                self.containing[op].add(g)
            for op in homed:
                self.home[op] = g
        if cand.seconds is not None:  # a merge: its group was priced in this state
            self.seconds_of[cand.made[0][0]] = cand.seconds

    def run(self) -> None:
        for c in list(self.block.ops):
            if c not in self.home or not self.home[c].fusible:
                continue
            for v in dict.fromkeys(c.operands):
                prod_op = self._producer(v)
                if prod_op is None:
                    continue
                p, cg = self.home[prod_op], self.home[c]
                if p is cg or not p.fusible or prod_op in cg.members:
                    continue
                merge = self.try_merge(p, cg)
                options = [
                    x
                    for x in (merge, self.try_recompute(p, cg, v, merge))
                    if x is not None and x.score > 0
                ]
                if options:
                    self.apply(max(options, key=lambda x: x.score))

    def run_siblings(self) -> None:
        """Horizontal fusion: groups reading the same tensor run as one kernel when
        that pays (one read of the shared input, one launch less). Each step merges the
        first reader with the best of the next SIBLING_WINDOW, so n readers cost
        O(n * window) priced merges, not O(n^2)."""
        values = [*self.block.args, *(r for op in self.block.ops for r in op.results)]
        for v in values:
            readers = [self.home[u.operation] for u in v.uses if u.operation in self.home]
            readers = [g for g in dict.fromkeys(readers) if g.fusible]
            while len(readers) > 1:
                first, rest = readers[0], readers[1:]
                options = [
                    (c, x) for c in rest[:SIBLING_WINDOW]
                    if (x := self.try_merge(first, c)) is not None and x.score > 0
                ]  # fmt: skip
                if not options:
                    readers = rest
                    continue
                c, best = max(options, key=lambda o: o[1].score)
                self.apply(best)
                merged = best.made[0][0]
                readers = [merged, *(g for g in rest if g is not c)]

    # --- rewriting -----------------------------------------------------------------------

    def groups(self) -> list[Group]:
        seen: dict[Group, None] = {}
        for gs in self.containing.values():
            for g in gs:
                seen[g] = None
        return sorted(seen, key=lambda g: self.index[g.ops[-1]])

    def rewrite(self, explain: bool) -> None:
        fused: dict[Group, t.FusedOp] = {}
        results: dict[SSAValue, SSAValue] = {}  # value -> the fused result carrying it
        for g in self.groups():
            homed = self.homed(g)
            if len(g.ops) < 2:
                continue
            outputs = self.outputs(g, homed)
            if not outputs:
                continue
            op = self._build(g, outputs)
            if explain or _log.isEnabledFor(logging.INFO):
                unfused = sum((self.model.op_cost(o) for o in g.ops), Cost(0, 0, 0, 0))
                fused_cost = self.cost(g, homed)
                if explain:
                    op.attributes["aicf.fusion"] = StringAttr(
                        f"fused: {fused_cost}; unfused: {unfused}"
                    )
                _log.info("%s: %d ops into one kernel (%s); fused: %s; unfused: %s",
                          location_of(g.ops[0]), len(g.ops),
                          " ".join(o.name.removeprefix("aicf_tensor.") for o in g.ops),
                          fused_cost, unfused)  # fmt: skip
            fused[g] = op
            for v, r in zip(outputs, op.outputs):
                results[v] = r
        if not fused:
            return
        # what stays outside the groups reads a value from its home group's kernel
        # (members are about to go; copies in other groups read their own)
        gone = {op for g in fused for op in g.ops if self.home[op] in fused}
        for v, r in results.items():
            v.replace_uses_with_if(r, lambda use: use.operation not in gone)
        self._reorder(gone)
        for op in reversed(list(self.block.ops)):
            if op in gone:
                self.block.erase_op(op, safe_erase=False)
        # constants now cloned into groups, and producers every reader recomputes
        for op in reversed(list(self.block.ops)):
            if (
                isinstance(op, t.TensorOp)
                and op not in self.unused
                and not any(r.uses for r in op.results)
            ):
                self.block.erase_op(op)

    def _build(self, g: Group, outputs: Sequence[SSAValue]) -> t.FusedOp:
        inputs = self.inputs(g)
        block = Block(arg_types=[v.type for v in inputs])
        mapper: dict[SSAValue, SSAValue] = dict(zip(inputs, block.args))
        for op in g.ops:
            for o in op.operands:
                owner = o.owner
                if o not in mapper and isinstance(owner, Operation) and is_leaf(owner):
                    mapper[o] = _clone_into(block, owner)
            new = op.clone(mapper)
            block.add_op(new)
            for a, b in zip(op.results, new.results):
                mapper[a] = b
        block.add_op(t.YieldOp(*(mapper[v] for v in outputs)))
        fused = t.FusedOp(inputs, [v.type for v in outputs], Region(block))
        fused.location = g.ops[-1].location
        self.block.insert_op_before(fused, g.ops[-1])
        return fused

    def _reorder(self, erased: set[Operation]) -> None:
        """Put the block in an order where every value is defined before its uses: a
        group's kernel runs after all its inputs, even when one of its members came
        before an op it now depends on. `erased` ops are left out (at the front)."""
        units = [op for op in self.block.ops if op not in erased]
        key = {op: i for i, op in enumerate(units)}
        pending = {
            op: {o.owner for o in op.operands if o.owner in key and o.owner is not op}
            for op in units
        }
        users: dict[Operation, list[Operation]] = {op: [] for op in units}
        for op, deps in pending.items():
            for d in deps:
                users[d].append(op)  # type: ignore[index]
        ready = [(key[op], op) for op, deps in pending.items() if not deps]
        heapq.heapify(ready)
        order: list[Operation] = []
        while ready:
            _, op = heapq.heappop(ready)
            order.append(op)
            for u in users[op]:
                pending[u].discard(op)
                if not pending[u]:
                    heapq.heappush(ready, (key[u], u))
        assert len(order) == len(units), "aicf-fuse made a cycle"
        for op in units:
            self.block.detach_op(op)
        # the erased members stay (at the front) until they are deleted
        self.block.add_ops(order)


def _clone_into(block: Block, op: Operation) -> SSAValue:
    new = op.clone()
    block.add_op(new)
    return new.results[0]


@dataclass(frozen=True)
class FusePass(ModulePass):
    """See the module docstring. `max_inputs`/`max_ops` override the target's budget;
    `explain` attaches each group's estimated cost, fused and unfused."""

    name = "aicf-fuse"

    max_inputs: int | None = None
    max_ops: int | None = None
    explain: bool = False
    # the description the costs are priced on (aicf.target: h100, a100, cpu, auto)
    target: str = "auto"

    def __post_init__(self) -> None:
        for option in ("max_inputs", "max_ops"):
            value = getattr(self, option)
            if value is not None and value < 1:
                raise ValueError(f"{option.replace('_', '-')} must be at least 1, got {value}")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # Dead ops would be grouped too, and a dead group is never built: its members
        # would stay behind reading values their group does not export.
        dce(op)
        from aicf.target import resolve_target

        model = CostModel(resolve_target(self.target))
        budget = model.budget()
        budget = FusionBudget(
            self.max_inputs if self.max_inputs is not None else budget.max_inputs,
            self.max_ops if self.max_ops is not None else budget.max_ops,
        )
        for f in op.walk():
            if isinstance(f, func.FuncOp) and f.body.blocks:
                fuser = _Fuser(f.body.block, model, budget)
                fuser.run()
                fuser.run_siblings()
                fuser.rewrite(self.explain)
