"""aicf: a multi-level IR compiler for tensor programs, on xDSL."""
