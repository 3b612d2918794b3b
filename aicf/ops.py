"""`aicf.ops`: the tensor operations of traced functions (see aicf/frontend/ops.py)."""

from aicf.frontend.ops import *  # noqa: F401,F403
from aicf.frontend.ops import __all__  # noqa: F401
