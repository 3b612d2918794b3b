#!/usr/bin/env bash
# compute-sanitizer (memcheck, racecheck, synccheck) over the GPU tests of the files
# given, several runs at a time: one line per (tool, file) with the sanitizer's error
# count and pytest's summary (bench/sanitize_gpu_suite.sh does every file).
#
#   bash bench/sanitize_files.sh OUTDIR FILE[::-k EXPR]...
set -u
out=${1:?OUTDIR}; shift
mkdir -p "$out/runs"; : > "$out/summary.txt"
for t in memcheck racecheck synccheck; do for f in "$@"; do echo "$t $f"; done; done |
  xargs -P 6 -L 1 bash -c '
    t=$0; spec=$1; f=${spec%%::*}; k=""; [ "$spec" != "$f" ] && k=${spec#*::}
    log='"$out"'/runs/$t-$(basename $f .py).log
    timeout 500 compute-sanitizer --tool $t --target-processes all --print-limit 20 \
      python3 -m pytest -m gpu -q -p no:cacheprovider -x "$f" ${k:+-k "$k"} > "$log" 2>&1
    rc=$?
    errs=$(grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" "$log" |
      sed -E "s/.*ERROR SUMMARY: ([0-9]+).*/\1/; s/.*\(([0-9]+) errors.*/\1/" | awk "{s += \$1} END {print s+0}")
    summ=$(grep -E "passed|failed|error" "$log" | grep -v "ERROR SUMMARY" | tail -1)
    echo "$t $f rc=$rc sanitizer_errors=$errs $summ" >> '"$out"'/summary.txt'
sort -o "$out/summary.txt" "$out/summary.txt"
cat "$out/summary.txt"
