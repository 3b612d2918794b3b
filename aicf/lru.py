"""A bounded in-memory cache (least recently used out first) for compiled code.

Every in-memory cache of built programs uses it, so a long-running process that sees
many shapes keeps a bounded number of libraries loaded. The bound is
`$AICF_MEMORY_CACHE_ENTRIES` (default 64) per cache; an evicted executable is unloaded
(its shared library closed) once nothing else refers to it.
"""

from __future__ import annotations

import os
import warnings
from collections import OrderedDict

DEFAULT_ENTRIES = 64


def memory_cache_entries() -> int:
    text = os.environ.get("AICF_MEMORY_CACHE_ENTRIES", "").strip()
    if not text:
        return DEFAULT_ENTRIES
    try:
        return max(1, int(text))
    except ValueError:
        warnings.warn(f"aicf: AICF_MEMORY_CACHE_ENTRIES={text!r} is not a whole number; using "
                      f"{DEFAULT_ENTRIES}", RuntimeWarning, stacklevel=3)
        return DEFAULT_ENTRIES


class LruCache(OrderedDict):
    """A dict of at most `maxsize` entries; `get` and stores make an entry the newest."""

    def __init__(self, maxsize: int | None = None):
        super().__init__()
        self.maxsize = maxsize if maxsize is not None else memory_cache_entries()

    def get(self, key, default=None):
        try:  # one lookup: another thread may evict the key between two
            self.move_to_end(key)
            return self[key]
        except KeyError:
            return default

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, value)
        self.move_to_end(key)
        while len(self) > self.maxsize:
            self.popitem(last=False)
