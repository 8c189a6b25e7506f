#!/bin/sh
# A shape module that is missing is built on first use (src/modelfile/shapes.hpp): remove the
# module of 1 coordinate and 0 constraints, run a model file of that shape, and find the run done,
# the notice printed once, and the module back. CTest runs this alone (RUN_SERIAL): other tests
# use that module.
set -eu
dalembert=$1 shapes=$2 model=$3 scratch=$4
mkdir -p "$scratch"
rm -f "$shapes/dalembert_shape_1_0.so"
"$dalembert" run "$model" --method dla --h 0.1 --steps 10 >"$scratch/first.csv" 2>"$scratch/first.err"
grep -q "compiling the methods for model files with 1 coordinate and 0 constraints" "$scratch/first.err" ||
  { echo "no notice on first use:"; cat "$scratch/first.err"; exit 1; }
test -f "$shapes/dalembert_shape_1_0.so" || { echo "the module was not built"; exit 1; }
"$dalembert" run "$model" --method dla --h 0.1 --steps 10 >"$scratch/second.csv" 2>"$scratch/second.err"
test ! -s "$scratch/second.err" || { echo "notice again on second use:"; cat "$scratch/second.err"; exit 1; }
cmp "$scratch/first.csv" "$scratch/second.csv"
test "$(wc -l <"$scratch/first.csv")" -eq 12 || { echo "expected 12 rows"; exit 1; }
echo "module built on first use; both runs wrote the same 11 steps"
