#!/usr/bin/env bash
# Runs every test that needs no GPU: lit (FileCheck tests of each dialect and pass) and
# pytest (numerics on the cpu target, API and CLI behaviour, nvcc/ptxas checks of the
# emitted CUDA when nvcc is on PATH). Installs the project into .venv first, from scratch
# on a fresh machine. GPU tests are marked `gpu` and skip without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."

# Upstream MLIR 16 for the aicf-to-upstream round trips (mlir-opt-16 lowers our output
# to the LLVM dialect, mlir-cpu-runner-16 runs it): Debian's packages, installed when
# missing and apt-get can install them (root). Otherwise those tests skip, saying why;
# a failed install where apt-get can install is an error.
have_mlir16() {
  command -v mlir-opt-16 >/dev/null && command -v mlir-cpu-runner-16 >/dev/null &&
    compgen -G "/usr/lib/llvm-16/lib/libmlir_c_runner_utils.so*" >/dev/null
}
if ! have_mlir16; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "== installing MLIR 16 (mlir-16-tools, libmlir-16)"
    if ! apt-cache policy mlir-16-tools 2>/dev/null | grep -q 'Candidate: [0-9]'; then
      apt-get update -qq
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mlir-16-tools libmlir-16 >/dev/null
  else
    echo "== MLIR 16 is not installed and apt-get cannot install it here (not root):" \
      "the upstream round-trip tests skip"
  fi
fi
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
