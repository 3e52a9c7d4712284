#!/usr/bin/env bash
# The fixture of the installed-package tests: `cmake --install BUILD_DIR --prefix PREFIX` into an
# emptied PREFIX, as a user installs a build (what was not built is skipped, with a line saying
# so: cmake/install_built.cmake).
# Usage: install_prefix.sh CMAKE BUILD_DIR PREFIX
set -euo pipefail
cmake=$1
build_dir=$2
prefix=$3
rm -rf "$prefix"
"$cmake" --install "$build_dir" --prefix "$prefix"
[[ -n "$(find "$prefix" -name sowdb.pc -print -quit)" ]] ||
  { echo "FAIL: no sowdb.pc under $prefix"; exit 1; }
echo "install_prefix: installed into $prefix"
