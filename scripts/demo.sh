#!/usr/bin/env bash
# Demonstration runs of the foundation: midpoint DLA against RK4 on the particle with potential
# (long-run energy), DLA on every nonholonomic catalogue system, and a table of the summaries.
# Usage: scripts/demo.sh DALEMBERT_BINARY OUTPUT_DIR
set -euo pipefail
bin=${1:-build/dalembert}
out=${2:-results}
mkdir -p "$out"
run() {  # name system method extra-args...
  local name=$1; shift
  printf '%-34s' "$name"
  "$bin" run "$@" --out "$out/$name.csv" --summary "$out/$name.json"
  python3 -c "import json,sys; s=json.load(open('$out/$name.json')); print('max|dE| = %.3e   max|M v| = %.1e   Newton mean %.2f   %.3f s' % (s['max_energy_error'], s['max_constraint_residual'], s['newton_iterations']['mean'], s['wall_time_seconds']))"
}
echo "dalembert demonstration runs -> $out/"
run particle-dla-long   particle --method dla --h 0.1 --steps 100000 --every 100 --param potential=1
run particle-rk4-long   particle --method rk4 --h 0.1 --steps 100000 --every 100 --param potential=1
for sys in particle knife-edge perturbed-knife-edge vertical-disk chaplygin-sleigh; do
  run "$sys-dla" "$sys" --method dla --h 0.05 --t-end 20
  run "$sys-reference" "$sys" --method reference --h 0.05 --t-end 20
done
