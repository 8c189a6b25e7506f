#!/usr/bin/env bash
# Installs the Debian packages dalembert needs, by name, and only those that are missing.
# Runs `apt-get update` once, and only if something has to be installed.
# Usage: scripts/install-deps.sh [--tests | --benchmarks]   (as root, or with sudo available)
#   (none)        what the main job needs (scripts/main.sh): the tool, the Python package, figures
#   --tests       and what the tests need (scripts/test.sh)
#   --benchmarks  and what the tests and the optional benchmarks need (bench/),
#                 among them SUNDIALS for the IDA rows of bench/time_to_accuracy.cpp (about 90
#                 packages with its MPI and PETSc dependencies)
set -euo pipefail

main=(
  g++ clang cmake ninja-build pkg-config git # toolchain: clang++ builds dalembert (docs/decisions.md), cc compiles model files, git names the commit
  lld                                    # LLVM's linker: links the tests in a seventh of the time (docs/decisions.md)
  libeigen3-dev                          # linear algebra
  libboost-dev                           # Boost.Odeint (reference solver)
  libginac-dev libtomlplusplus-dev       # model files: symbolic expressions, TOML (docs/model-files.md)
  libcli11-dev nlohmann-json3-dev        # command line, JSON summaries
  libssl-dev                             # SHA-256 digests of the model cache (docs/security.md)
  zlib1g-dev                             # CRC-32 of the .npz output
  python3 python3-matplotlib             # figures of compare, convergence, reproduce (scripts/plot.py)
  python3-dev pybind11-dev python3-pybind11 python3-numpy # the Python package (docs/python.md)
)
tests=(
  libgtest-dev libgmock-dev              # tests
  python3-pytest python3-sympy           # the Python package's tests and tutorial
  python3-venv python3-build             # the package's installs into virtual environments, tested
  python3-scipy                          # the independent references of tests/python, bench/python_dla_baseline.py
  libopenmpi-dev openmpi-bin             # `dalembert ensemble` over MPI ranks (docs/ensembles.md), tested where present
  chromium                               # test that the HTML report renders (headless)
)
benchmarks=(
  libbenchmark-dev                       # Google Benchmark
  libceres-dev                           # ceres::Jet, one of the automatic differentiation back ends compared
  libsundials-dev                        # SUNDIALS IDA, bench/time_to_accuracy.cpp
)
packages=("${main[@]}")
case "${1:-}" in
  "") ;;
  --tests) packages+=("${tests[@]}") ;;
  --benchmarks) packages+=("${tests[@]}" "${benchmarks[@]}") ;;
  *) echo "install-deps: unknown option '$1' (known: --tests, --benchmarks)" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update
"${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
