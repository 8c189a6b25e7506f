#!/usr/bin/env bash
# Wall time of one `dalembert ensemble` with 1, 2, ... threads (and, if mpirun is present, 2 MPI
# ranks of one thread), each repeated, with the 1-minute load average before each run: the machine
# may be shared, and the load says how many cores the run really had. Quoted in docs/ensembles.md.
# Usage: scripts/ensemble-speedup.sh [build-dir] [repetitions] [max-threads]
set -euo pipefail
build=${1:-build}
reps=${2:-3}
max_threads=${3:-$(nproc)}
args=(ensemble chaplygin-sleigh --method dla --h 0.01 --steps 50000 --param-range a=0.1:0.9 --samples 128)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {  # label, command...
  local label=$1; shift
  local load; load=$(cut -d' ' -f1 /proc/loadavg)
  local s e; s=$(date +%s.%N); "$@" --out "$tmp/$label.csv"; e=$(date +%s.%N)
  printf '%-14s %8.3f s   load %s\n' "$label" "$(echo "$e - $s" | bc)" "$load"
}
echo "cores: $(nproc); ${args[*]}"
for rep in $(seq "$reps"); do
  for k in $(seq "$max_threads"); do run "threads-$k" "$build/dalembert" "${args[@]}" --threads "$k"; done
  if command -v mpirun >/dev/null; then
    root=(); [ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
    run "mpi-2x1" mpirun -n 2 --oversubscribe "${root[@]}" "$build/dalembert" "${args[@]}" --threads 1
  fi
done
for f in "$tmp"/*.csv; do cmp -s "$f" "$tmp/threads-1.csv" || { echo "DIFFERENT: $f"; exit 1; }; done
echo "all CSV files identical"
