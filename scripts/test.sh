#!/usr/bin/env bash
# Installs what is missing, builds everything and runs every test (the README's test command): the
# C++ tests and most of the Python package's in parallel, then those that time runs or install the
# package (label `python`) alone.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --tests
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ -DDALEMBERT_BUILD_TESTS=ON
cmake --build build
ctest --test-dir build --output-on-failure -j "$(nproc)" --label-exclude python
ctest --test-dir build --output-on-failure --label-regex python
