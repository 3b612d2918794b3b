"""Pytrees: nested dicts, lists and tuples (namedtuples included) of arrays, flattened
to a list of leaves and a structure that rebuilds them, in JAX's order (dict keys
sorted; an OrderedDict's in its order, and rebuilt as one, as JAX's; a defaultdict
rebuilt with its default_factory). None is an empty subtree. Small enough to own rather than depend on JAX's
or PyTorch's private implementations.
"""

from __future__ import annotations

from collections import OrderedDict, defaultdict
from typing import Any, NamedTuple

from aicf.errors import ArgumentError  # a TypeError too


class TreeDef(NamedTuple):
    """The structure of a pytree: `kind` ("leaf", "none", "dict", "odict", "list",
    "tuple", a namedtuple class or ("defaultdict", its default_factory)), `keys` (a
    dict's sorted keys, an OrderedDict's in order) and the children's TreeDefs.
    Hashable, so it can be part of a cache key."""

    kind: Any
    keys: tuple = ()
    children: tuple = ()

    @property
    def num_leaves(self) -> int:
        if self.kind == "leaf":
            return 1
        return sum(c.num_leaves for c in self.children)


LEAF = TreeDef("leaf")


MAX_DEPTH = 100  # containers within containers: a cycle (a list holding itself) ends here


def flatten(tree: Any) -> tuple[list[Any], TreeDef]:
    leaves: list[Any] = []
    return leaves, _flatten(tree, leaves, 0)


def _flatten(tree: Any, leaves: list[Any], depth: int) -> TreeDef:
    if tree is None:
        return TreeDef("none")
    if isinstance(tree, dict | list | tuple) and depth >= MAX_DEPTH:
        raise ArgumentError(f"a pytree nested more than {MAX_DEPTH} deep (does a container hold itself?)")
    if isinstance(tree, OrderedDict):
        # in its own order, as JAX's: sorted, `for w in layers.values()` ran "layer10"
        # before "layer2" (and the function got a plain dict)
        keys = tuple(tree)
        return TreeDef("odict", keys, tuple(_flatten(tree[k], leaves, depth + 1) for k in keys))
    if isinstance(tree, dict):
        try:
            keys = tuple(sorted(tree))
        except TypeError:
            raise ArgumentError("dict keys of a pytree must be sortable (as in JAX), got keys of types "
                                f"{', '.join(sorted({type(k).__name__ for k in tree}))}") from None
        kind = "dict"
        if isinstance(tree, defaultdict):  # its default_factory kept, as JAX's (a plain dict raised KeyError)
            try:
                hash(tree.default_factory)
                kind = ("defaultdict", tree.default_factory)
            except TypeError:
                pass
        return TreeDef(kind, keys, tuple(_flatten(tree[k], leaves, depth + 1) for k in keys))
    if isinstance(tree, list):
        return TreeDef("list", (), tuple(_flatten(v, leaves, depth + 1) for v in tree))
    if isinstance(tree, tuple):
        kind = type(tree) if hasattr(tree, "_fields") else "tuple"
        return TreeDef(kind, (), tuple(_flatten(v, leaves, depth + 1) for v in tree))
    leaves.append(tree)
    return LEAF


def unflatten(treedef: TreeDef, leaves: list[Any]) -> Any:
    it = iter(leaves)
    return _unflatten(treedef, it)


def _unflatten(td: TreeDef, it) -> Any:
    if td.kind == "leaf":
        return next(it)
    if td.kind == "none":
        return None
    children = [_unflatten(c, it) for c in td.children]
    if td.kind == "dict":
        return dict(zip(td.keys, children))
    if td.kind == "odict":
        return OrderedDict(zip(td.keys, children))
    if isinstance(td.kind, tuple):
        return defaultdict(td.kind[1], zip(td.keys, children))
    if td.kind == "list":
        return children
    if td.kind == "tuple":
        return tuple(children)
    # a namedtuple, rebuilt field by field as _make does: a subclass whose __new__ takes
    # other arguments (derived fields) raised a raw TypeError from kind(*children)
    make = getattr(td.kind, "_make", None)
    return make(children) if callable(make) else td.kind(*children)


def leaf_paths(treedef: TreeDef, root: str) -> list[str]:
    """A name for each leaf, as the user would index it: `params['w']`, `xs[0]`."""
    if treedef.kind == "leaf":
        return [root]
    if treedef.keys:  # a dict's
        parts = [f"{root}[{k!r}]" for k in treedef.keys]
    else:
        parts = [f"{root}[{i}]" for i in range(len(treedef.children))]
    return [p for part, c in zip(parts, treedef.children) for p in leaf_paths(c, part)]
