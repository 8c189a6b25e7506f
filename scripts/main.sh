#!/usr/bin/env bash
# The main job: install what is missing, build, and run the demonstration runs into results/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build --target dalembert
scripts/demo.sh build/dalembert results
