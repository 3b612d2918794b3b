"""The generated own-outputs call of a one-kernel cuda program
(backend/cuda/fast_call.py), on stand-ins for CuPy's arrays, pool and launch (no GPU
here): what must hold is that it launches only on arrays the plan takes (dtype, shape,
contiguity, alignment), writes each argument's pointer into the kernel's parameter
cell in the kernel's order, hands back fresh outputs (or the outputs it was given),
and declines (None) whatever it
does not take, so the program's general call decides."""

from __future__ import annotations

import ctypes
import threading
from types import SimpleNamespace

import numpy as np
import pytest

from aicf import profiling
from aicf.backend.cuda.fast_call import own_outputs_call


class FakeArray:
    """CuPy's ndarray as the call sees it: made on a pointer (an input) or on a pool
    block (an output)."""

    def __init__(self, shape, dtype, ptr=None, contiguous=True, memptr=None):
        self.shape, self.dtype, self.memptr = tuple(shape), np.dtype(dtype), memptr
        self.data = SimpleNamespace(ptr=memptr.ptr if memptr is not None else ptr)
        self.flags = SimpleNamespace(c_contiguous=contiguous)


def make(slots=(0, 1, 2), nin=2, outs=(((4, 8), np.float32),), align=(16, 1)):
    """A direct launch of one kernel with parameter `slots` (slot numbers: inputs,
    then outputs) and the launches it made."""
    launched, allocs = [], []
    cells = (ctypes.c_void_p * len(slots))()
    next_ptr = [0x10000]

    def alloc(n):
        next_ptr[0] += 0x1000
        m = SimpleNamespace(ptr=next_ptr[0], nbytes=n)
        allocs.append(m)
        return m

    def launch(fptr, gx, gy, gz, bx, by, bz, smem, stream, params, extra):
        launched.append(dict(fptr=fptr, grid=(gx, gy, gz), block=(bx, by, bz), smem=smem, stream=stream,
                             params=params, cells=[cells[i] for i in range(len(slots))]))

    local = threading.local()
    local.ok = True
    base = [0] * (max(slots) + 1)
    direct = SimpleNamespace(
        launches=[(0xF00, (3, 1, 1), (128, 1, 1), 0, tuple(slots), cells, None, 0xBEEF)],
        intermediates=False, outs=list(outs),
        nbytes=[int(np.prod(s)) * np.dtype(d).itemsize for s, d in outs],
        names=["k0"], ndarray=FakeArray, alloc=alloc, launch=launch, lock=threading.Lock(), local=local,
        get_device=lambda: 0, device=0, base=base)
    specs = [(np.float32, (4, 8), align[i] if i < len(align) else 1) for i in range(nin)]
    specs += [(d, s, 1) for s, d in outs]
    program = SimpleNamespace(debug=False, records=[])
    program._record = lambda stream: program.records.append(stream)
    program._launch_error = lambda *a: RuntimeError(a)
    return direct, specs, program, launched, allocs


STREAM = SimpleNamespace(ptr=0x5)


class DriverError(Exception):
    pass


CP = SimpleNamespace(cuda=SimpleNamespace(driver=SimpleNamespace(CUDADriverError=DriverError),
                                          runtime=SimpleNamespace(CUDARuntimeError=DriverError),
                                          get_current_stream=lambda: STREAM))


def test_launch_writes_pointers_in_parameter_order_and_returns_fresh_outputs():
    # the kernel takes (out, x1, x0): not the argument order
    direct, specs, program, launched, allocs = make(slots=(2, 1, 0))
    fast = own_outputs_call(direct, specs, 2, program, record=False, cp=CP)
    x0, x1 = FakeArray((4, 8), np.float32, 0x100), FakeArray((4, 8), np.float32, 0x200)
    y = fast((x0, x1), STREAM)
    y2 = fast((x0, x1), STREAM)
    assert [L["cells"] for L in launched] == [[allocs[0].ptr, 0x200, 0x100], [allocs[1].ptr, 0x200, 0x100]]
    assert launched[0]["grid"] == (3, 1, 1) and launched[0]["block"] == (128, 1, 1)
    assert launched[0]["stream"] == STREAM.ptr and launched[0]["params"] == 0xBEEF
    assert isinstance(y, FakeArray) and y.shape == (4, 8) and y.dtype == np.float32
    assert y.memptr is allocs[0] and y2.memptr is allocs[1] and allocs[0].nbytes == 4 * 8 * 4
    assert program.records == []


def test_outputs_given_are_written_and_returned_without_allocating():
    direct, specs, program, launched, allocs = make(slots=(2, 1, 0))
    fast = own_outputs_call(direct, specs, 2, program, record=False, cp=CP)
    x0, x1 = FakeArray((4, 8), np.float32, 0x100), FakeArray((4, 8), np.float32, 0x200)
    out = FakeArray((4, 8), np.float32, 0x300)
    assert fast((x0, x1, out), STREAM) is out
    assert launched[0]["cells"] == [0x300, 0x200, 0x100] and allocs == []
    # right after an input's last byte is not an overlap
    assert fast((x0, x1, FakeArray((4, 8), np.float32, 0x180)), STREAM) is not None


def test_several_outputs_come_back_as_a_tuple_and_the_event_is_recorded():
    outs = (((4, 8), np.float32), ((4,), np.float16))
    direct, specs, program, launched, allocs = make(slots=(0, 1, 2), nin=1, outs=outs, align=(1,))
    fast = own_outputs_call(direct, specs, 1, program, record=True, cp=CP)
    ys = fast((FakeArray((4, 8), np.float32, 0x100),), STREAM)
    assert isinstance(ys, tuple) and [y.shape for y in ys] == [(4, 8), (4,)]
    assert [y.dtype for y in ys] == [np.float32, np.float16] and allocs[1].nbytes == 8
    assert program.records == [STREAM]


@pytest.mark.parametrize("bad", [
    lambda x: (x,),                                              # too few arguments
    lambda x: (x, x, x),                                         # an output that is an input
    lambda x: (x, FakeArray((4, 8), np.float32, 0x1000), FakeArray((4, 8), np.float32, 0x1040)),  # overlaps
    lambda x: (x, FakeArray((4, 8), np.float32, 0x1000), FakeArray((8, 4), np.float32, 0x2000)),  # out shape
    lambda x: (x, FakeArray((4, 8), np.float32, 0x1000), np.zeros((4, 8), np.float32)),  # out type
    lambda x: (FakeArray((4, 8), np.float64, 0x100), x),         # dtype
    lambda x: (FakeArray((8, 4), np.float32, 0x100), x),         # shape
    lambda x: (FakeArray((4, 8), np.float32, 0x100, contiguous=False), x),
    lambda x: (FakeArray((4, 8), np.float32, 0x104), x),         # not 16-byte aligned
    lambda x: (np.zeros((4, 8), np.float32), x),                 # not the plan's array type
])
def test_declines_what_the_plan_does_not_take(bad):
    direct, specs, program, launched, allocs = make()
    fast = own_outputs_call(direct, specs, 2, program, record=False, cp=CP)
    assert fast(bad(FakeArray((4, 8), np.float32, 0x300)), STREAM) is None
    assert launched == [] and allocs == []


def test_declines_on_a_thread_not_ready_a_profiled_call_and_debug_mode(monkeypatch):
    direct, specs, program, launched, _ = make()
    fast = own_outputs_call(direct, specs, 2, program, record=False, cp=CP)
    args = (FakeArray((4, 8), np.float32, 0x100), FakeArray((4, 8), np.float32, 0x200))
    seen = []
    t = threading.Thread(target=lambda: seen.append(fast(args, STREAM)))
    t.start()
    t.join()
    assert seen == [None]  # a new thread: CuPy has not made the context current there
    program.debug = True
    assert fast(args, STREAM) is None
    program.debug = False
    monkeypatch.setattr(profiling, "_ACTIVE", True)
    assert fast(args, STREAM) is None
    monkeypatch.setattr(profiling, "_ACTIVE", False)
    assert fast(args, STREAM) is not None and len(launched) == 1


def test_not_built_for_a_program_without_outputs():
    direct, specs, program, *_ = make(outs=())
    assert own_outputs_call(direct, specs, 2, program, record=False, cp=CP) is None


class FakeCupyArray(FakeArray):
    """An array with CuPy's own contiguity attribute, which the call reads instead of
    building `flags`."""

    @property
    def _c_contiguous(self):
        return self.flags.c_contiguous

    @property
    def flags(self):
        return self._flags

    @flags.setter
    def flags(self, v):
        self._flags = v


def test_reads_the_arrays_contiguity_attribute_where_it_has_one():
    direct, specs, program, launched, _ = make()
    direct.ndarray = FakeCupyArray
    fast = own_outputs_call(direct, specs, 2, program, record=False, cp=CP)
    x = FakeCupyArray((4, 8), np.float32, 0x100)
    assert fast((FakeCupyArray((4, 8), np.float32, 0x200, contiguous=False), x), STREAM) is None
    assert isinstance(fast((x, x), STREAM), FakeCupyArray) and len(launched) == 1


def test_several_outputs_given_come_back_as_given_checked_among_themselves():
    """Each given output is checked for its own alignment and against the outputs
    before it; the tuple holds the arrays given, in order."""
    outs = (((4, 8), np.float32), ((4,), np.float16))
    direct, specs, program, launched, allocs = make(slots=(2, 0, 1), nin=1, outs=outs, align=(1,))
    specs[1] = (np.float32, (4, 8), 16)  # the kernel stores output 0 in 16-byte vectors
    fast = own_outputs_call(direct, specs, 1, program, record=True, cp=CP)
    x = FakeArray((4, 8), np.float32, 0x100)
    o0, o1 = FakeArray((4, 8), np.float32, 0x1000), FakeArray((4,), np.float16, 0x2000)
    ys = fast((x, o0, o1), STREAM)
    assert isinstance(ys, tuple) and ys[0] is o0 and ys[1] is o1
    assert launched[0]["cells"] == [0x2000, 0x100, 0x1000] and allocs == [] and program.records == [STREAM]
    assert fast((x, FakeArray((4, 8), np.float32, 0x1004), o1), STREAM) is None  # misaligned
    assert fast((x, o0, FakeArray((4,), np.float16, 0x1000 + 120)), STREAM) is None  # in output 0
    assert fast((x, o0, FakeArray((4,), np.float16, 0x1000 + 128)), STREAM) is not None  # right after it
    assert len(launched) == 2
