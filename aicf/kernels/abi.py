"""The calling convention an external kernel follows (the design's kernel ABI:
pointer, shape, strides in elements, plus a workspace), for each target.

Arguments come in the kernel's argument order: the pattern's inputs, then its results
(unless `arg_order` permutes them). Inputs are read-only; results are written
completely (the runtime poisons them in tests, so an element left unwritten shows);
nothing outside the operands' elements (and the workspace) may be written. Element
types: f32 float, f64 double, f16 half (uint16_t bits in C), bf16 uint16_t bits, i32
int32_t, i64 int64_t. Data pointers are aligned to the element size (an input may be a
view into a NumPy array; the gate's runs align to 256 bytes). A kernel must handle
every shape its guard admits, including 0-sized extents.
"""

from __future__ import annotations

C_HEADER = r"""#include <stdint.h>
#include <stddef.h>
/* aicf external kernel ABI (aicf/kernels/abi.py) */
typedef struct {
  void *data;             /* element (0, ..., 0) */
  int64_t rank;
  const int64_t *shape;   /* rank extents */
  const int64_t *strides; /* rank strides, in elements */
} aicf_tensor;
"""

C_SIGNATURE = "int ENTRY(const aicf_tensor *args, int64_t nargs, void *workspace)"

C_DOC = (
    "C (C11 with GNU extensions, built with the cpu target's flags: -O3 -march=native "
    "-ffp-contract=off -fopenmp -fPIC). The source is compiled as its own translation unit "
    "after aicf's ABI header (aicf_tensor); define `" + C_SIGNATURE + "` (ENTRY: your entry name) and make every other "
    "function and global `static`. args[i] is kernel argument i; `workspace` has the bytes the "
    "kernel's workspace expression asked for (NULL when 0). Return 0; a nonzero return is a "
    "failure. OpenMP may be used."
)

# NVRTC finds no standard headers (no include path is given, as for our own kernels):
# the fixed-width integers are spelt here, as glibc spells them on LP64 (a kernel that
# includes <cstdint> where it can gets the same typedefs, which C++ allows twice)
CUDA_HEADER = r"""typedef signed char int8_t; typedef short int16_t; typedef int int32_t; typedef long int64_t;
typedef unsigned char uint8_t; typedef unsigned short uint16_t; typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
/* aicf external kernel ABI (aicf/kernels/abi.py) */
"""

CUDA_DOC = (
    "CUDA C++ compiled by NVRTC (-std=c++17, -arch of the GPU). Define "
    "`extern \"C\" __global__ void ENTRY(...)` taking: one pointer per kernel argument "
    "(`const T*` for inputs, `T*` for results), then for each argument its extents and then its "
    "strides in elements (int64_t each, in argument order), then `void *workspace` when the "
    "workspace expression is nonzero. The launch uses the grid, block and dynamic shared memory "
    "bytes of the kernel's `launch` expressions, on the program's stream. Use int64 indices where "
    "extents may pass 2^31."
)


def describe(target: str) -> dict:
    """The ABI as the proposer receives it."""
    if target == "cpu":
        return {"language": "c", "header": C_HEADER, "signature": C_SIGNATURE, "doc": C_DOC}
    return {"language": "cuda", "header": CUDA_HEADER,
            "signature": 'extern "C" __global__ void ENTRY(T0 *a0, ..., int64_t a0_shape0, ..., '
                         "int64_t a0_stride0, ..., [void *workspace])",
            "doc": CUDA_DOC}


def c_source(source: str, entry: str, symbol: str) -> str:
    """The translation unit the C compiler sees: the ABI header, the entry renamed to
    its unique symbol (two kernels may share an entry name), the kernel's source."""
    return f"{C_HEADER}#define {entry} {symbol}\n#line 1 \"kernel.c\"\n{source}\n"


def cuda_source(source: str) -> str:
    return f"{CUDA_HEADER}#line 1 \"kernel.cu\"\n{source}\n"
