#!/usr/bin/env bash
# Installs what sowdb needs, builds it (Release, Ninja) and runs every test through ctest.
# Then installs the build into a local prefix and, when examples/standalone/ exists, builds that
# example against the installed package, as an engine author would (find_package(sowdb)).
#
# Usage: scripts/test.sh
# Environment:
#   SOWDB_BUILD_DIR      build directory (default: build, relative to the repository root)
#   SOWDB_CMAKE_ARGS     extra arguments for the cmake configure step (word-split)
#   CTEST_PARALLEL_LEVEL tests run at once (default: number of cores)
# Exits non-zero when any step fails.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

build_dir="${SOWDB_BUILD_DIR:-build}"
jobs="$(nproc 2>/dev/null || echo 2)"
test_jobs="${CTEST_PARALLEL_LEVEL:-$jobs}"
read -r -a extra_cmake_args <<<"${SOWDB_CMAKE_ARGS:-}"

step() { printf '\n==> %s\n' "$*"; }

step "setup: system packages"
"$root/scripts/setup.sh"

step "configure: $build_dir (Release)"
generator_args=()
# An existing build directory keeps the generator it was made with; a new one uses Ninja.
if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
  generator_args=(-G Ninja)
fi
# Warnings are errors here as in CI (CONTRIBUTING.md); SOWDB_CMAKE_ARGS may turn it off.
cmake -S . -B "$build_dir" "${generator_args[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DSOWDB_WARNINGS_AS_ERRORS=ON "${extra_cmake_args[@]}"

step "build: $jobs jobs"
cmake --build "$build_dir" --parallel "$jobs"

step "test: ctest, $test_jobs at a time"
status=0
if ! ctest --test-dir "$build_dir" --output-on-failure --parallel "$test_jobs"; then
  echo "test: ctest reported failures" >&2
  status=1
fi

# Install into a prefix inside the build directory when the project has install rules, and check
# that a separate project can consume the installed package.
# (Ninja lists "install: phony", Makefiles "... install".) The list is read whole first: under
# pipefail, `grep -q` quitting at the first match could kill cmake with SIGPIPE and skip this.
targets="$(cmake --build "$build_dir" --target help 2>/dev/null || true)"
if grep -Eq '^(\.\.\. )?install(:|$| )' <<<"$targets"; then
  prefix="$root/$build_dir/install"
  [[ "$build_dir" = /* ]] && prefix="$build_dir/install"
  step "install: $prefix"
  rm -rf "$prefix"
  cmake --install "$build_dir" --prefix "$prefix"

  if [[ -f examples/standalone/CMakeLists.txt ]]; then
    standalone_dir="$build_dir/standalone"
    step "standalone example: build against $prefix"
    rm -rf "$standalone_dir"
    cmake -S examples/standalone -B "$standalone_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$prefix"
    cmake --build "$standalone_dir" --parallel "$jobs"
    if [[ -f "$standalone_dir/CTestTestfile.cmake" ]]; then
      ctest --test-dir "$standalone_dir" --output-on-failure --parallel "$test_jobs" || status=1
    fi
  else
    echo "(no examples/standalone/CMakeLists.txt: skipping the installed-package build)"
  fi
fi

if ((status != 0)); then
  step "FAILED"
  exit "$status"
fi
step "all tests passed"
