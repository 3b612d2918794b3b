"""xDSL interpreter functions for aicf's dialects (see `aicf.interpreters.tensor`)."""
