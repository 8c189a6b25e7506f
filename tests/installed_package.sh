#!/bin/bash
# The installed CMake package (CMakeLists.txt, "Installation"): install this build into a prefix
# under the build tree, configure and build examples/consumer (the README's quickstart against
# find_package(dalembert CONFIG REQUIRED)) with the same compiler, run it and its second example
# (examples/rolling_disk.cpp, a 5-coordinate system of its own), and run the installed
# `dalembert --version` and the installed `dalembert` on models/rolling-disk.toml, which must give
# the positions of the C++ example to 1e-12, and stands alone (no path of the trees; its model files
# by name; a study with figures drawn by the installed plotting script). No network; everything is written under SCRATCH,
# which is recreated. With a tenth argument, the Python interpreter of the build's package, the
# installed package is imported from the prefix (PYTHONPATH) and runs the model file too.
# Exit 0 if every step works and every output is the expected one, 1 otherwise.
set -euo pipefail
if [ "$#" -ne 9 ] && [ "$#" -ne 10 ]; then
  echo "usage: $0 CMAKE BUILD_DIR CONFIG CONSUMER_SOURCE CXX GENERATOR MAKE_PROGRAM VERSION SCRATCH [PYTHON]" >&2
  exit 1
fi
cmake=$1 build=$2 config=$3 consumer=$4 cxx=$5 generator=$6 make_program=$7 version=$8 scratch=$9
python=${10:-}
case "$scratch" in
  "$build"/?*) ;;
  *) echo "the scratch directory must be inside the build tree: $scratch" >&2; exit 1 ;;
esac
fail() { echo "installed_package: $*" >&2; exit 1; }

rm -rf -- "$scratch"
mkdir -p -- "$scratch"
prefix=$scratch/prefix

# (a) install
"$cmake" --install "$build" --config "$config" --prefix "$prefix" >"$scratch/install.log" ||
  { cat "$scratch/install.log"; fail "cmake --install failed"; }
package_dir=
for dir in "$prefix"/lib*/cmake/dalembert; do
  [ -f "$dir/dalembertConfig.cmake" ] && package_dir=$dir
done
[ -n "$package_dir" ] || fail "no dalembertConfig.cmake under $prefix/lib*/cmake/dalembert"
for header in dalembert/version.hpp dalembert/method/dla.hpp dalembert/models/particle.hpp; do
  [ -f "$prefix/include/$header" ] || fail "not installed: include/$header"
done
# The installed target is clean: no build-tree include paths, no warning options.
if grep -rqe '-Wall' -e "$build/generated" -- "$package_dir"; then
  grep -rne '-Wall' -e "$build/generated" -- "$package_dir" >&2
  fail "the installed package mentions the build tree or its warning options"
fi

# (b) configure the consumer against the prefix only (no package registry, no build tree)
"$cmake" -S "$consumer" -B "$scratch/consumer-build" -G "$generator" -DCMAKE_MAKE_PROGRAM="$make_program" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >"$scratch/configure.log" 2>&1 ||
  { cat "$scratch/configure.log"; fail "configuring examples/consumer failed"; }

# (c) build and run it; the README's numbers, as the readme_quickstart test checks them
"$cmake" --build "$scratch/consumer-build" --config Release >"$scratch/build.log" 2>&1 ||
  { cat "$scratch/build.log"; fail "building examples/consumer failed"; }
quickstart=$scratch/consumer-build/quickstart
[ -x "$quickstart" ] || quickstart=$scratch/consumer-build/Release/quickstart
output=$("$quickstart") || fail "the consumer's quickstart exited with status $?"
echo "$output"
grep -Eq 't = 100 .*E = 1\.55' <<<"$output" || fail "unexpected quickstart output"

# (d) the installed command line
version_output=$("$prefix/bin/dalembert" --version) || fail "installed dalembert --version exited with status $?"
# the release, then the commit it was built from as a local version label (+g<commit>[.modified])
[[ "$version_output" =~ ^"dalembert $version"(\+g[0-9a-f]{12}(\.modified)?)?$ ]] ||
  fail "installed dalembert --version printed '$version_output', expected 'dalembert $version[+g<commit>]'"
echo "$version_output"

# (e) a 5-coordinate system in C++ (the consumer's own) and as a model file run by the installed
# dalembert, which needs nothing from the build tree: the same positions after 40 steps
rolling=$scratch/consumer-build/rolling_disk
[ -x "$rolling" ] || rolling=$scratch/consumer-build/Release/rolling_disk
cpp_output=$("$rolling") || fail "the consumer's rolling_disk exited with status $?"
echo "$cpp_output"
cpp_q=$(sed -n 's/^q = //p' <<<"$cpp_output")
mkdir -m 700 "$scratch/cache"
file_output=$(DALEMBERT_CACHE_DIR=$scratch/cache "$prefix/bin/dalembert" run "$consumer/../../models/rolling-disk.toml" \
  --method dla --h 0.05 --steps 40 --every 40) || fail "the installed dalembert could not run models/rolling-disk.toml"
file_q=$(tail -n 1 <<<"$file_output" | cut -d, -f2-6)
echo "model file: q = $file_q"
awk -F, -v a="$cpp_q" -v b="$file_q" 'BEGIN {
  n = split(a, x, ","); split(b, y, ","); worst = 0
  for (i = 1; i <= n; ++i) { d = x[i] - y[i]; if (d < 0) d = -d; if (d > worst) worst = d }
  printf "largest difference %.1e\n", worst
  exit (n == 5 && worst <= 1e-12) ? 0 : 1 }' || fail "the C++ rolling disk and models/rolling-disk.toml differ"
# (f) the installed dalembert stands alone: it names no file of the source or the build tree, takes
# an installed model file by its name, and draws a study's figure with its installed plotting script
# (run where neither tree is in reach: the scratch directory, with no models/ of its own)
source_tree=$(cd "$consumer/../.." && pwd)
if grep -aqF -e "$source_tree/" -e "$build/" "$prefix/bin/dalembert"; then
  fail "the installed dalembert names a path of the source or build tree"
fi
[ -f "$prefix/share/dalembert/plot.py" ] && [ -f "$prefix/share/dalembert/models/rolling-disk.toml" ] ||
  fail "the plotting script or the model files are not installed under $prefix/share/dalembert"
(cd "$scratch" && DALEMBERT_CACHE_DIR=$scratch/cache "$prefix/bin/dalembert" list --names | grep -qx rolling-disk) ||
  fail "the installed dalembert does not list its model files"
study=$(cd "$scratch" && DALEMBERT_CACHE_DIR=$scratch/cache "$prefix/bin/dalembert" convergence rolling-disk \
  --method dla --h-list 0.1,0.05 --t-end 1 --out-dir "$scratch/study" --quiet 2>&1) ||
  { echo "$study"; fail "the installed dalembert could not run a convergence study of rolling-disk"; }
awk '/^fitted order:/ { found = 1; ok = $3 > 1.9 && $3 < 2.1 } END { exit found && ok ? 0 : 1 }' <<<"$study" ||
  { echo "$study"; fail "dla's fitted order on rolling-disk is not 2"; }
[ -s "$scratch/study/convergence.png" ] || { echo "$study"; fail "the installed dalembert drew no figure"; }
! grep -q warning <<<"$study" || { echo "$study"; fail "the installed dalembert warned"; }
echo "installed dalembert: no path of the trees, model files by name, figures with the installed script"

# (g) the installed Python package, with the build tree out of its path: the same positions
if [ -n "$python" ]; then
  site=$(ls -d "$prefix"/lib/python*/*-packages 2>/dev/null | head -n 1)
  [ -n "$site" ] && [ -f "$site/dalembert/__init__.py" ] || fail "no Python package under $prefix/lib/python*/*-packages"
  python_q=$(cd "$scratch" && DALEMBERT_CACHE_DIR=$scratch/cache PYTHONPATH=$site "$python" -c '
import sys, dalembert
assert dalembert.__file__.startswith(sys.argv[1]), dalembert.__file__
r = dalembert.run(dalembert.model_file(sys.argv[2]), "dla", h=0.05, steps=40, every=40)
print(",".join(repr(x) for x in r.q[-1]))' "$site" "$consumer/../../models/rolling-disk.toml") ||
    fail "the installed Python package could not run models/rolling-disk.toml"
  echo "Python package: q = $python_q"
  awk -v a="$python_q" -v b="$file_q" 'BEGIN { n = split(a, x, ","); split(b, y, ","); worst = 0
    for (i = 1; i <= n; ++i) { d = x[i] - y[i]; if (d < 0) d = -d; if (d > worst) worst = d }
    exit (n == 5 && worst <= 1e-14) ? 0 : 1 }' || fail "the installed Python package and dalembert differ"
fi
echo "installed package: consumer built with find_package(dalembert) and run; dalembert --version ok; the installed dalembert runs a 5-coordinate model file and stands alone"
