"""What `aicf-opt --help` says about passes: aicf's first, each with the first sentence
of its docstring and its options, then xDSL's by name, then the output targets."""

from __future__ import annotations

import inspect
import sys
import textwrap
from collections.abc import Callable

from xdsl.passes import ModulePass, get_pass_option_infos

PIPELINE_HELP = (
    "the passes to run: 'PASS,PASS{option=value option=value}' (xDSL), or MLIR's "
    "'builtin.module(PASS,func.func(PASS,...))'; the passes are listed below"
)


def pass_summary(cls: type[ModulePass]) -> str:
    """The first sentence of the pass's docstring (of its module's, where the class
    defers to it)."""
    doc = inspect.getdoc(cls) or ""
    if not doc or doc.startswith("See the module docstring"):
        doc = inspect.getdoc(sys.modules[cls.__module__]) or doc
    paragraph = " ".join(doc.split("\n\n", 1)[0].split())
    paragraph = paragraph.removeprefix(f"`{cls.name}`: ")  # module docstrings open so
    end = paragraph.find(". ")
    sentence = paragraph if end < 0 else paragraph[: end + 1]
    return sentence[:1].upper() + sentence[1:]


def pass_options(cls: type[ModulePass]) -> list[str]:
    """`name: type = default` for each option, named as the pipeline spells them."""
    return [
        f"{o.name.replace('_', '-')}: {o.expected_type.strip(chr(39))}"
        + ("" if o.default_value is None else f" = {o.default_value or chr(34) * 2}")
        for o in get_pass_option_infos(cls)
    ]


def pass_list(
    available: dict[str, Callable[[], type[ModulePass]]],
    ours: dict[str, Callable[[], type[ModulePass]]],
    targets: dict[str, object],
) -> str:
    width = max(map(len, ours)) + 4
    lines = ["aicf passes:"]
    for name in sorted(ours):
        cls = ours[name]()
        body = textwrap.wrap(pass_summary(cls), 88 - width)
        options = pass_options(cls)
        if options:
            body += textwrap.wrap("options: " + ", ".join(options), 88 - width)
        lines.append(f"  {name:<{width - 2}}{body[0]}")
        lines += [" " * width + line for line in body[1:]]
    others = ", ".join(sorted(n for n in available if n not in ours))
    lines += ["", "xDSL passes (xdsl-opt --help says more):"]
    lines += textwrap.wrap(others, 86, initial_indent="  ", subsequent_indent="  ",
                           break_on_hyphens=False)
    lines += ["", "targets (-t): " + ", ".join(targets)]
    return "\n".join(lines)
