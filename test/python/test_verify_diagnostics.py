"""`aicf-opt --verify-diagnostics` with MLIR's meaning: `expected-*` annotations are
checked for severity, text and line; unexpected and missing diagnostics fail."""

from __future__ import annotations

import pytest

from aicf.tools.aicf_opt import main

BAD_ADD = "  %0 = aicf_tensor.add %x, %b : (tensor<4x8xf32>, tensor<3xf32>) -> tensor<*xf32>"
FUNC = """func.func @f(%x: tensor<4x8xf32>, %b: tensor<3xf32>) -> tensor<*xf32> {{
{before}
{op}
  func.return %0 : tensor<*xf32>
}}
"""
GOOD = """func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
"""
MESSAGE = "{{'aicf_tensor.add' shapes 4x8, 3 are not broadcast-compatible}}"


def run(tmp_path, capsys, text: str, *args: str) -> tuple[int, str]:
    path = tmp_path / "in.mlir"
    path.write_text(text)
    rc = main([str(path), "--verify-diagnostics", *args])
    captured = capsys.readouterr()
    run.out = captured.out
    return rc, captured.err


@pytest.mark.parametrize("before, op", [
    (f"  // expected-error @+1 {MESSAGE}", BAD_ADD),
    (f"  // expected-error @below {MESSAGE}", BAD_ADD),
    ("", f"{BAD_ADD} // expected-error {MESSAGE}"),
    ("  // expected-error @+1 {{not broadcast-compatible}}", BAD_ADD),  # a substring
])  # fmt: skip
def test_expected_error_at_its_line_passes(tmp_path, capsys, before, op):
    rc, err = run(tmp_path, capsys, FUNC.format(before=before, op=op))
    assert rc == 0, err


@pytest.mark.parametrize("before, op, words", [
    (f"  // expected-error @+2 {MESSAGE}", BAD_ADD, ["unexpected error", "was not produced"]),
    (f"  // expected-error @above {MESSAGE}", BAD_ADD, ["unexpected error", "at line 1 was not produced"]),
    ("  // expected-error @+1 {{some other message}}", BAD_ADD, ["unexpected error", "was not produced"]),
    (f"  // expected-warning @+1 {MESSAGE}", BAD_ADD, ["unexpected error", "expected warning"]),
])  # fmt: skip
def test_wrong_line_text_or_severity_fails(tmp_path, capsys, before, op, words):
    rc, err = run(tmp_path, capsys, FUNC.format(before=before, op=op))
    assert rc == 1
    for w in words:
        assert w in err, err
    assert "Traceback" not in err


def test_chunks_are_checked_one_by_one_with_file_lines(tmp_path, capsys):
    ok = FUNC.format(before=f"  // expected-error @+1 {MESSAGE}", op=BAD_ADD)
    text = "\n// -----\n".join([GOOD, ok, ok])
    rc, err = run(tmp_path, capsys, text, "--split-input-file")
    assert rc == 0, err
    # an error nobody expects in the last chunk fails the run, at its file line
    text = "\n// -----\n".join([ok, GOOD, FUNC.format(before="", op=BAD_ADD)])
    rc, err = run(tmp_path, capsys, text, "--split-input-file")
    assert rc == 1
    assert f"in.mlir:{text.splitlines().index(BAD_ADD, 10) + 1}: unexpected error" in err


def test_expected_error_that_does_not_happen_fails(tmp_path, capsys):
    text = GOOD.replace("  func.return", "  // expected-error @+1 {{boom}}\n  func.return")
    rc, err = run(tmp_path, capsys, text)
    assert rc == 1
    assert "in.mlir:2: expected error at line 3 was not produced: {{boom}}" in err


def test_parse_errors_are_diagnostics_too(tmp_path, capsys):
    text = GOOD.replace("  func.return %x", "  // expected-error @+1 {{use of undefined value %y}}\n  func.return %y")
    rc, err = run(tmp_path, capsys, text)
    assert rc == 0, err


def test_an_input_without_annotations_must_produce_no_diagnostic(tmp_path, capsys):
    rc, err = run(tmp_path, capsys, FUNC.format(before="", op=BAD_ADD))
    assert rc == 1
    assert "in.mlir:3: unexpected error: 'aicf_tensor.add' shapes 4x8, 3" in err
    rc, err = run(tmp_path, capsys, GOOD)
    assert rc == 0, err
    assert "func.func @g" in run.out


def test_a_diagnostic_without_location_is_matched_by_unknown(tmp_path, capsys):
    plan = 'aicf-lower-to-loops,aicf-plan{target=cpu force="gpu.matmul_tiled"}'
    text = "// expected-error @unknown {{force='gpu.matmul_tiled' is a gpu kind}}\n" + GOOD
    rc, err = run(tmp_path, capsys, text, "-p", plan)
    assert rc == 0, err
    rc, err = run(tmp_path, capsys, GOOD, "-p", plan)
    assert rc == 1
    assert "(no location): unexpected error: " in err


def test_split_marker_is_a_line_of_its_own(tmp_path, capsys):
    """`// -----` inside a comment does not split the input (a CHECK line of the
    printed separator would otherwise cut a function in two)."""
    text = GOOD.replace("  func.return", "  // CHECK: // -----\n  func.return")
    rc, err = run(tmp_path, capsys, text + "// -----\n" + GOOD, "--split-input-file")
    assert rc == 0, err
    assert run.out.count("func.func @g") == 2


def test_parse_error_lines_count_from_the_file_start(tmp_path, capsys):
    bad = "func.func @h() {\n  // expected-error @+1 {{unknown iterator}}\n  aicf_loop.nest domain = [4] iterators = [sideways]\n}\n"
    rc, err = run(tmp_path, capsys, GOOD + "// -----\n" + GOOD + "// -----\n" + bad, "--split-input-file")
    assert rc == 0, err


@pytest.mark.parametrize("annotation, words", [
    ("  // expected-error @+1 {{not broadcast-compatible", ["cannot read the annotation"]),  # unclosed
    ("  // expected-error-re @+1 {{not .* compatible}}", ["regular expressions are not supported"]),
    ("  // expected-error @next {{not broadcast-compatible}}", ["cannot read the annotation"]),
    # a line offset of 5000 digits was an internal error (int() refuses them)
    ("  // expected-error @+" + "9" * 5000 + " {{not broadcast-compatible}}", ["cannot read the annotation"]),
])  # fmt: skip
def test_an_annotation_that_cannot_be_read_fails(tmp_path, capsys, annotation, words):
    """MLIR fails on an annotation it cannot read; ignoring it would let a test of an
    error that never comes pass (the third attack, issue 10)."""
    rc, err = run(tmp_path, capsys, FUNC.format(before=annotation, op=BAD_ADD))
    assert rc == 1
    for w in words:
        assert w in err, err
    assert "line 2" in err and "Traceback" not in err


def test_a_chunk_that_is_not_utf8_is_located_at_its_file_line(tmp_path, capsys):
    """The byte that is not UTF-8 was located at its line in the chunk (2), not in the
    file (6), so the annotation above it at the file's line failed."""
    path = tmp_path / "in.mlir"
    path.write_bytes(GOOD.encode() + b"// -----\n// expected-error @+1 {{not UTF-8}}\n\xff\n")
    rc = main([str(path), "--verify-diagnostics", "--split-input-file"])
    err = capsys.readouterr().err
    assert rc == 0, err
    rc = main([str(path), "--split-input-file"])
    assert "in.mlir:6:1: error: the input is not UTF-8 text" in capsys.readouterr().err
