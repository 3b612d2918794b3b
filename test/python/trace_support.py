"""What the front-end tests share: finding the line of a tagged statement, so that a
test can assert that an error names the user's line.

    x = np.split(t, 2)  # SPLIT-LINE
    ...
    assert f"{__file__}:{line_of(__file__, 'SPLIT-LINE')}: error:" in message
"""


def line_of(path: str, marker: str) -> int:
    """The line number in `path` of the statement tagged `# <marker>`."""
    with open(path) as f:
        for i, text in enumerate(f, 1):
            if text.rstrip().endswith(f"# {marker}") and "line_of(" not in text:
                return i
    raise AssertionError(marker)
