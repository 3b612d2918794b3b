"""A hand-written loop-level program writes only its outputs, and every element of
each (issue 10: no silent wrong answer, no message from gcc). A write to an input, or
to any argument of an entry without `aicf.num_outputs`, is a located compile error;
an output its nests are not proven to write in full is zero-filled first, on every
target, and `explain()` says so (dialects/outputs.py). Programs lowered from the
tensor level are proven covered and left alone."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("AICF_CACHE_DIR", tempfile.mkdtemp(prefix="aicf-test-cache-"))

import aicf  # noqa: E402
from aicf.compiler import OUTPUT_NOTES, pipeline_for, run_pipeline  # noqa: E402
from aicf.context import make_context  # noqa: E402
from aicf.diagnostics import parse_module  # noqa: E402
from aicf.dialects.loop import NestOp  # noqa: E402
from aicf.dialects.outputs import uncovered_outputs  # noqa: E402
from aicf.errors import CompileError  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def copy_nest(domain, src: str, src_type: str, dst: str, dst_type: str, in_map: str, out_map: str,
              elt: str = "f32") -> str:  # fmt: skip
    its = ", ".join(["parallel"] * len(domain))
    return f"""
  aicf_loop.nest domain = {list(domain)} iterators = [{its}] ins({src} : {src_type}) outs({dst} : {dst_type})
      maps = [{in_map}, {out_map}] {{
  ^bb0(%a: {elt}):
    aicf_loop.yield %a : {elt}
  }}"""


def program(args: str, *nests: str, num_outputs: int | None = 1) -> str:
    attrs = "" if num_outputs is None else f" attributes {{aicf.num_outputs = {num_outputs} : i64}}"
    return f"func.func @f({args}){attrs} {{{''.join(nests)}\n  func.return\n}}\n"


HALF = program("%x: memref<8x4xf32>, %y: memref<8x4xf32>",
               copy_nest([4, 4], "%x", "memref<8x4xf32>", "%y", "memref<8x4xf32>",
                         "(d0, d1) -> (d0, d1)", "(d0, d1) -> (d0, d1)"))  # fmt: skip


def uncovered(text: str) -> list[int]:
    module = parse_module(make_context(), text)
    return [k for k, _ in uncovered_outputs(next(iter(module.ops)))]


# --- writes to inputs -----------------------------------------------------------------------


def test_a_nest_that_writes_an_input_is_a_located_compile_error():
    src = program("%x: memref<4xf32>, %y: memref<4xf32>",
                  copy_nest([4], "%y", "memref<4xf32>", "%x", "memref<4xf32>", "(d0) -> (d0)", "(d0) -> (d0)"))  # fmt: skip
    with pytest.raises(CompileError) as e:
        aicf.compile(src, target="cpu")
    message = str(e.value)
    assert message.startswith("<string>:2:3: error: 'aicf_loop.nest' writes %x (argument #0 of @f), an input")
    assert "\n" not in message and "read-only location" not in message and "cc" not in message.split(":")[0]


def test_an_entry_without_num_outputs_that_writes_an_argument_is_a_located_compile_error():
    src = program("%x: memref<4xf32>, %y: memref<4xf32>",
                  copy_nest([4], "%x", "memref<4xf32>", "%y", "memref<4xf32>", "(d0) -> (d0)", "(d0) -> (d0)"),
                  num_outputs=None)  # fmt: skip
    with pytest.raises(CompileError, match=r"^<string>:2:3: error: 'aicf_loop.nest' writes %y \(argument #1 of "
                       r"@f\), but @f has no aicf.num_outputs, so every argument is an input"):  # fmt: skip
        aicf.compile(src, target="cpu")


def test_a_built_module_without_locations_names_the_op():
    module = parse_module(make_context(), program(
        "%x: memref<4xf32>, %y: memref<4xf32>",
        copy_nest([4], "%x", "memref<4xf32>", "%y", "memref<4xf32>", "(d0) -> (d0)", "(d0) -> (d0)"),
        num_outputs=None))  # fmt: skip
    from xdsl.dialects.builtin import UnknownLoc

    for op in module.walk():  # as a module built in Python has them
        op.location = UnknownLoc()
    with pytest.raises(CompileError, match=r"^@f, op #0 \(no source location\): error: 'aicf_loop.nest' writes %y"):
        aicf.compile(module, target="cpu")


# --- partial outputs --------------------------------------------------------------------------


def test_an_output_written_in_part_is_zero_elsewhere(target):
    exe = aicf.compile(HALF, target=target)
    x = np.arange(1, 33, dtype=np.float32).reshape(8, 4)
    got = exe(x)
    got = got.get() if hasattr(got, "get") else got
    np.testing.assert_array_equal(got, np.concatenate([x[:4], np.zeros((4, 4), np.float32)]))


def test_the_zero_fill_holds_in_debug_mode_and_for_other_dtypes():
    """Debug mode poisons outputs with NaN before the call: the fill still comes first."""
    for elt, dtype in (("i32", np.int32), ("f16", np.float16), ("f64", np.float64)):
        t = f"memref<8x{elt}>"
        src = program(f"%x: {t}, %y: {t}", copy_nest([4], "%x", t, "%y", t, "(d0) -> (d0)", "(d0) -> (d0)", elt))
        got = aicf.compile(src, target="cpu", debug=True)(np.arange(1, 9).astype(dtype))
        np.testing.assert_array_equal(got, np.array([1, 2, 3, 4, 0, 0, 0, 0], dtype))


def test_an_output_nothing_writes_is_zero():
    src = program("%x: memref<4xf32>, %y: memref<4xf32>, %s: memref<f32>",
                  copy_nest([4], "%x", "memref<4xf32>", "%y", "memref<4xf32>", "(d0) -> (d0)", "(d0) -> (d0)"),
                  num_outputs=2)  # fmt: skip
    y, s = aicf.compile(src, target="cpu", debug=True)(np.ones(4, np.float32))
    np.testing.assert_array_equal(y, np.ones(4, np.float32))
    assert s.shape == () and s == 0


def test_explain_names_the_zero_filled_output_and_its_writers():
    exe = aicf.compile(HALF, target="cpu")
    text = exe.explain()
    assert "outputs:\n  output #0 (%y: memref<8x4xf32>) is zero-filled first: the writes to it are not " \
           "proven to cover it (<string>:2:3)" in text  # fmt: skip
    nests = [op for op in exe.module.walk() if isinstance(op, NestOp)]
    assert len(nests) == 2 and not nests[0].inputs  # the fill, first


def test_a_covered_output_gets_no_fill():
    src = program("%x: memref<4xf32>, %y: memref<8xf32>",
                  copy_nest([4], "%x", "memref<4xf32>", "%y", "memref<8xf32>", "(d0) -> (d0)", "(d0) -> (d0)"),
                  copy_nest([4], "%x", "memref<4xf32>", "%y", "memref<8xf32>", "(d0) -> (d0)", "(d0) -> (d0 + 4)"))  # fmt: skip
    exe = aicf.compile(src, target="cpu")
    assert OUTPUT_NOTES not in exe.module.attributes and "outputs:" not in exe.explain()
    assert len([op for op in exe.module.walk() if isinstance(op, NestOp)]) == 2
    np.testing.assert_array_equal(exe(np.arange(4, dtype=np.float32)), np.tile(np.arange(4, dtype=np.float32), 2))


M8 = "memref<8xf32>"


@pytest.mark.parametrize("nests, covered", [
    ([copy_nest([8], "%x", M8, "%y", M8, "(d0) -> (d0)", "(d0) -> (d0)")], True),
    ([copy_nest([8], "%x", M8, "%y", M8, "(d0) -> (d0)", "(d0) -> (-d0 + 7)")], True),  # a flip
    ([copy_nest([2, 4], "%x", M8, "%y", "memref<4x2xf32>", "(d0, d1) -> (d0 * 4 + d1)", "(d0, d1) -> (d1, d0)")], True),
    ([copy_nest([8], "%x", M8, "%y", "memref<2x4xf32>", "(d0) -> (d0)", "(d0) -> (d0 floordiv 4, d0 mod 4)")], True),
    ([copy_nest([4], "%x", M8, "%y", M8, "(d0) -> (d0)", "(d0) -> (d0 * 2)"),
      copy_nest([4], "%x", M8, "%y", M8, "(d0) -> (d0)", "(d0) -> (d0 * 2 + 1)")], True),  # evens, then odds
    ([copy_nest([4], "%x", M8, "%y", M8, "(d0) -> (d0)", "(d0) -> (d0 * 2)")], False),  # evens only
    ([copy_nest([4], "%x", M8, "%y", M8, "(d0) -> (d0)", "(d0) -> (d0)")], False),
    ([copy_nest([4], "%x", M8, "%y", M8, "(d0) -> (d0)", "(d0) -> (d0)"),
      copy_nest([3], "%x", M8, "%y", M8, "(d0) -> (d0)", "(d0) -> (d0 + 5)")], False),  # y[4] is left
    ([copy_nest([0], "%x", M8, "%y", M8, "(d0) -> (d0)", "(d0) -> (d0)")], False),  # an empty nest
    ([], False),
])  # fmt: skip
def test_coverage(nests, covered):
    out_type = next((n.split("outs(%y : ")[1].split(")")[0] for n in nests), M8)
    assert uncovered(program(f"%x: {M8}, %y: {out_type}", *nests)) == ([] if covered else [0])


def test_a_reduction_over_an_empty_axis_covers_its_output():
    """It writes the combiner's identity everywhere (the domain is empty only along
    the reduced dim)."""
    src = """func.func @f(%x: memref<3x0xf32>, %y: memref<3xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [3, 0] iterators = [parallel, reduction] ins(%x : memref<3x0xf32>) outs(%y : memref<3xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}"""
    assert uncovered(src) == []


def test_an_output_written_through_a_view_is_filled_then_written():
    src = f"""func.func @f(%x: {M8}, %y: memref<2x4xf32>) attributes {{aicf.num_outputs = 1 : i64}} {{
  %v = memref.collapse_shape %y [[0, 1]] : memref<2x4xf32> into {M8}
{copy_nest([8], "%x", M8, "%v", M8, "(d0) -> (d0)", "(d0) -> (d0)")}
  func.return
}}"""
    assert uncovered(src) == [0]
    x = np.arange(8, dtype=np.float32)
    np.testing.assert_array_equal(aicf.compile(src, target="cpu")(x), x.reshape(2, 4))


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*.mlir")), ids=lambda p: p.name)
@pytest.mark.parametrize("target", ["cpu", "cuda"])
def test_programs_from_the_tensor_level_are_proven_covered(path, target):
    """What the tensor-to-loop lowering makes needs no fill (and compile does not look:
    these lines only show that the proof handles the usual maps)."""
    module = parse_module(make_context(), path.read_text(), str(path))
    run_pipeline(module, pipeline_for(target))
    for fn in module.ops:
        if fn.name == "func.func":
            assert uncovered_outputs(fn) == []  # type: ignore[arg-type]


def test_a_tensor_level_program_is_not_touched():
    exe = aicf.compile(ROOT / "examples" / "chain.mlir", target="cpu")
    assert OUTPUT_NOTES not in exe.module.attributes
    assert all(op.inputs for op in exe.module.walk() if isinstance(op, NestOp))


def test_the_upstream_round_trip_runs_the_same_filled_program():
    from aicf import upstream

    try:
        upstream.find_mlir_tools()
    except upstream.UpstreamError as e:
        pytest.skip(f"the upstream round trip needs MLIR 16: {e}")
    x = np.arange(1, 33, dtype=np.float32).reshape(8, 4)
    np.testing.assert_array_equal(upstream.compile_upstream(HALF)(x), aicf.compile(HALF, target="cpu")(x))


# --- outputs updated in place -----------------------------------------------------------------

IN_PLACE = """
func.func @f(%x: memref<4xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x, %y : memref<4xf32>, memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    aicf_loop.yield %s : f32
  }
  func.return
}
"""

READ_AFTER_WRITE = """
func.func @f(%x: memref<4xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%y : memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32):
    %s = arith.addf %a, %a : f32
    aicf_loop.yield %s : f32
  }
  func.return
}
"""


def test_an_output_updated_in_place_starts_as_zeros_when_the_program_allocates_it(target):
    """y += x on an output: its incoming contents are part of the result, so when the
    executable allocates it (exe(x)) it starts as zeros, call after call (stale memory
    before: 1, 2, 3, ... on the cpu target); explain says so."""
    exe = aicf.compile(IN_PLACE, target=target)
    x = np.ones(4, np.float32)
    if target == "cuda":
        import cupy as cp

        x = cp.asarray(x)
    for _ in range(3):
        got = exe(x)
        got = got.get() if hasattr(got, "get") else got
        np.testing.assert_array_equal(got, np.ones(4, np.float32))
    assert exe.zero_outputs == (0,)
    assert "output #0 is read before it is written in full" in exe.explain()


def test_an_output_read_after_it_is_written_is_not_zeroed():
    exe = aicf.compile(READ_AFTER_WRITE, target="cpu")
    assert exe.zero_outputs == ()
    np.testing.assert_array_equal(exe(np.arange(4, dtype=np.float32)), 2 * np.arange(4, dtype=np.float32))


@pytest.mark.gpu
def test_a_host_array_given_as_a_cuda_output_is_named_as_such():
    """The program writes its outputs on the device: a NumPy array there is refused
    with a message that says so (it read "expected a CuPy or NumPy array, got ndarray")."""
    import cupy as cp

    from aicf.errors import ArgumentError

    exe = aicf.compile(IN_PLACE, target="cuda")
    with pytest.raises(ArgumentError, match=r"output #0 .*expected a CuPy array .* got numpy\.ndarray"):
        exe.call_into([cp.ones(4, np.float32)], [np.zeros(4, np.float32)])


# --- intermediates read before they are written ------------------------------------------------


def test_an_intermediate_read_before_it_is_written_in_full_starts_as_zeros():
    """A hand-written `memref.alloc` read before anything wrote all of it gave the
    allocator's garbage (2.9e-30 in one run): it is zero-filled right after its alloc,
    and explain() says so."""
    t = "memref<8xf32>"
    src = program(f"%x: {t}, %y: {t}",
                  "\n  %t = memref.alloc() : memref<8xf32>",
                  copy_nest([4], "%x", t, "%t", t, "(d0) -> (d0)", "(d0) -> (d0)"),  # half of %t
                  copy_nest([8], "%t", t, "%y", t, "(d0) -> (d0)", "(d0) -> (d0)"),
                  "\n  memref.dealloc %t : memref<8xf32>")  # fmt: skip
    exe = aicf.compile(src, target="cpu")
    got = exe(np.arange(1, 9, dtype=np.float32))
    np.testing.assert_array_equal(got, np.array([1, 2, 3, 4, 0, 0, 0, 0], np.float32))
    nests = [op for op in exe.module.walk() if isinstance(op, NestOp)]
    assert len(nests) == 3 and not nests[0].inputs and nests[0].outputs[0] is nests[1].outputs[0]
    assert "the buffer allocated at <string>:2:3 is zero-filled first: <string>:8:3 reads it" in exe.explain()


def test_an_intermediate_written_in_full_first_gets_no_fill():
    t = "memref<8xf32>"
    src = program(f"%x: {t}, %y: {t}",
                  "\n  %t = memref.alloc() : memref<8xf32>",
                  copy_nest([8], "%x", t, "%t", t, "(d0) -> (d0)", "(d0) -> (d0)"),
                  copy_nest([8], "%t", t, "%y", t, "(d0) -> (d0)", "(d0) -> (d0)"))  # fmt: skip
    exe = aicf.compile(src, target="cpu")
    np.testing.assert_array_equal(exe(np.arange(8, dtype=np.float32)), np.arange(8, dtype=np.float32))
    assert len([op for op in exe.module.walk() if isinstance(op, NestOp)]) == 2
    assert OUTPUT_NOTES not in exe.module.attributes
