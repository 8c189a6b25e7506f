#!/bin/bash
# The Python package installs as Python packages do (pyproject.toml, setup.py), offline and with
# Debian's python3: `pip install --no-build-isolation .` and `python3 -m build --wheel
# --no-isolation`, each into a virtual environment created with --system-site-packages (numpy
# from Debian). Both reuse BUILD_DIR (DALEMBERT_BUILD_DIR), so nothing is compiled again. The
# installed package is imported from a directory that has neither tree in reach, finds its data
# (the plotting script, the model files) and runs a model file by name.
# Usage: python_package_installs.sh PYTHON SOURCE_DIR BUILD_DIR SCRATCH   (exit 0 if all works)
set -euo pipefail
python=$1 source=$2 build=$3 scratch=$4
fail() { echo "python_package_installs: $*" >&2; exit 1; }
rm -rf -- "$scratch"
mkdir -p -- "$scratch/elsewhere"
export DALEMBERT_BUILD_DIR=$build DALEMBERT_CACHE_DIR=$scratch/cache PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1

check() {  # a virtual environment's python: the package from the environment, not from a tree
  (cd "$scratch/elsewhere" && "$1" -c '
import os, sys, dalembert
assert dalembert.__file__.startswith(sys.prefix), dalembert.__file__
assert os.path.isfile(os.path.join(os.path.dirname(dalembert.__file__), "data", "plot.py"))
r = dalembert.run(dalembert.system("two-skates"), "dla", h=0.05, steps=40)
assert abs(r.energy[-1] - r.energy[0]) < 1e-3 * abs(r.energy[0]), r.energy
print(dalembert.__file__)') || fail "$2: the installed package does not run"
}

"$python" -m venv --system-site-packages "$scratch/pip"
(cd "$source" && "$scratch/pip/bin/pip" install --no-build-isolation --quiet .) > "$scratch/pip.log" 2>&1 ||
  { cat "$scratch/pip.log"; fail "pip install --no-build-isolation . failed"; }
check "$scratch/pip/bin/python" "pip install"

(cd "$source" && "$python" -m build --wheel --no-isolation --outdir "$scratch/dist" .) > "$scratch/build.log" 2>&1 ||
  { cat "$scratch/build.log"; fail "python3 -m build --wheel --no-isolation failed"; }
"$python" -m venv --system-site-packages "$scratch/wheel"
"$scratch/wheel/bin/pip" install --quiet "$scratch"/dist/dalembert-*.whl || fail "the wheel does not install"
check "$scratch/wheel/bin/python" "the wheel"
echo "python_package_installs: pip install and the wheel both work"
