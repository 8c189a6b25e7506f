#!/usr/bin/env bash
# The main job: install what is missing, build, and reproduce every experiment of the papers into
# results/ (CSV data, PNG and SVG figures, results/report.md and results/report.html).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ -DDALEMBERT_BUILD_TESTS=OFF
cmake --build build --target dalembert dalembert_python  # the command line and the Python package (docs/python.md)
build/dalembert reproduce --out results
