#!/usr/bin/env bash
# compute-sanitizer over the GPU test suite (issue 10): every test file that holds GPU
# tests, under memcheck, racecheck and synccheck (child processes too: the kernel
# gate runs proposals in one), several files at a time. One line per (tool, file):
# the sanitizer's error count and pytest's summary; then the tool reports of any run
# with errors. Tests that time kernels may fail under the sanitizer's slowdown: such
# a failure is a pytest failure with "0 errors", reported as it is.
#
#   bash bench/sanitize_gpu_suite.sh OUTDIR [JOBS] [TOOLS...]
set -u
out=${1:?OUTDIR}; jobs=${2:-8}; shift $(( $# >= 2 ? 2 : $# ))
tools=${*:-memcheck racecheck synccheck}
mkdir -p "$out/runs"; : > "$out/summary.txt"  # a line per finished run, as it finishes
# the files that hold GPU tests, the largest first (they take longest)
files=$(python3 -m pytest -m gpu --collect-only -q -p no:cacheprovider test/python 2>/dev/null |
  grep "::" | cut -d: -f1 | sort | uniq -c | sort -rn | awk '{print $2}')
for t in $tools; do for f in $files; do echo "$t $f"; done; done |
  xargs -P "$jobs" -L 1 bash -c '
    t=$0; f=$1; log='"$out"'/runs/$t-$(basename $f .py).log
    timeout 900 compute-sanitizer --tool $t --target-processes all --print-limit 20 \
      python3 -m pytest -m gpu -q -p no:cacheprovider -x "$f" > "$log" 2>&1
    rc=$?
    # memcheck/synccheck: "ERROR SUMMARY: N errors"; racecheck: "RACECHECK SUMMARY: H hazards displayed (N errors, W warnings)"
    errs=$(grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" "$log" |
      sed -E "s/.*ERROR SUMMARY: ([0-9]+).*/\1/; s/.*\(([0-9]+) errors.*/\1/" | awk "{s += \$1} END {print s+0}")
    summ=$(grep -E "passed|failed|error" "$log" | grep -v "ERROR SUMMARY" | tail -1)
    echo "$t $f rc=$rc sanitizer_errors=$errs $summ" >> '"$out"'/summary.txt'
sort -o "$out/summary.txt" "$out/summary.txt"
cat "$out/summary.txt"
echo "--- runs with sanitizer errors"
awk '$4 != "sanitizer_errors=0" {print $1, $2}' "$out/summary.txt" | while read -r t f; do
  echo "== $t $f"; grep -B2 -A12 "=========" "$out/runs/$t-$(basename "$f" .py).log" | head -60
done
