#!/usr/bin/env bash
# The checks a GPU session owes, in priority order, in one device call (start-up costs
# a minute): each step has its own time limit and its log under OUT, so a step that
# fails or runs long does not take the rest with it. Session 5 left these unchecked on
# the H100: the flash kernel (forced), cuBLAS capture in a model's graph, the third
# attack's CUDA codegen (signed wrap, f64 -> f16/bf16 rounding), the sync-policy
# default, and the full suite on the final main.
#
#   bash bench/gpu_session.sh OUT [STEP...]     (steps: flash graphs suite bench compile sanitize)
set -u
out=${1:?OUT}; shift
steps=${*:-flash graphs suite bench compile}
mkdir -p "$out"
export AICF_CACHE_DIR=${AICF_CACHE_DIR:-/tmp/aicf-gpu-session}
run() {  # name, limit in seconds, command...
  local name=$1 limit=$2; shift 2
  local t0=$SECONDS
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  echo "$name: rc=$? in $((SECONDS - t0)) s; $(grep -E 'passed|failed|error' "$out/$name.log" | tail -1)"
}
for s in $steps; do
  case $s in
    flash)
      run flash-tests 240 python3 -m pytest -m gpu -q -p no:cacheprovider test/python/test_flash_attention.py
      run flash-bench 240 python3 bench/flash_attention.py --json "$out/flash-attention.json" ;;
    graphs)
      run graphs 180 python3 -m pytest -m gpu -q -p no:cacheprovider test/python/test_cuda_graphs.py -rA
      run call-overhead 150 python3 bench/call_overhead.py --json "$out/call-overhead.json" ;;
    suite)
      run suite 480 python3 -m pytest -m gpu -q -p no:cacheprovider test/python ;;
    bench)
      run bench 300 python3 bench/run.py ;;
    compile)
      run gpt2-compile 240 python3 bench/gpt2_compile_time.py --device cuda --json "$out/gpt2-compile.json"
      run gpt2-bench 300 python3 examples/gpt2_torch.py --config small --device cuda --dtype float16 --batch 8 --seq 1024 --bench ;;
    sanitize)
      run sanitize 540 bash bench/sanitize_gpu_suite.sh "$out/sanitizer" 14 ;;
    *) echo "unknown step $s" ;;
  esac
done
