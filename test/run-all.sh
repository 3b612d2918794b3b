#!/usr/bin/env bash
# Runs every test that needs no GPU: lit (FileCheck tests of each dialect and pass) and
# pytest (numerics on the cpu target, API and CLI behaviour, nvcc/ptxas checks of the
# emitted CUDA when nvcc is on PATH). Installs the project into .venv first, from scratch
# on a fresh machine. GPU tests are marked `gpu` and skip without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${VIRTUAL_ENV:-}" ]; then
  [ -x .venv/bin/python ] || python3 -m venv .venv
  # shellcheck disable=SC1091
  . .venv/bin/activate
fi
python -m pip install -q --upgrade pip >/dev/null
python -m pip install -q -e '.[test]'
echo "== lit"
lit -sv test/lit
echo "== pytest"
python -m pytest -q
