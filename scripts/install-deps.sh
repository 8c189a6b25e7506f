#!/usr/bin/env bash
# Installs the Debian packages dalembert needs, by name, and only those that are missing.
# Runs `apt-get update` once, and only if something has to be installed.
# Usage: scripts/install-deps.sh [--benchmarks]   (as root, or with sudo available)
#   --benchmarks  also what only the optional benchmarks use: SUNDIALS, for the IDA rows of
#                 bench/time_to_accuracy.cpp (about 90 packages with its MPI and PETSc dependencies)
set -euo pipefail

packages=(
  g++ clang cmake ninja-build pkg-config # toolchain: clang++ builds dalembert (docs/decisions.md), cc compiles model files
  libeigen3-dev                          # linear algebra
  libceres-dev                           # ceres::Jet (automatic differentiation), see docs/decisions.md
  libboost-dev                           # Boost.Odeint (reference solver)
  libginac-dev libtomlplusplus-dev       # model files: symbolic expressions, TOML (docs/model-files.md)
  libcli11-dev nlohmann-json3-dev        # command line, JSON summaries
  libssl-dev                             # SHA-256 digests of the model cache (docs/security.md)
  libgtest-dev libgmock-dev              # tests
  libbenchmark-dev                       # benchmarks
  libopenmpi-dev openmpi-bin             # optional: `dalembert ensemble` over MPI ranks (docs/ensembles.md)
  python3 python3-matplotlib             # figures of compare, convergence, reproduce (scripts/plot.py)
  python3-numpy python3-scipy            # bench/python_dla_baseline.py, tests/python/model_file_reference.py
  python3-dev pybind11-dev python3-pybind11 # the Python package (docs/python.md)
  python3-pytest python3-sympy           # its tests and tutorial
  chromium                               # test that the HTML report renders (headless)
)
case "${1:-}" in
  "") ;;
  --benchmarks) packages+=(libsundials-dev) ;;
  *) echo "install-deps: unknown option '$1' (known: --benchmarks)" >&2; exit 2 ;;
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
