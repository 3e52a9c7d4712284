#!/usr/bin/env bash
# Installs what sowdb needs, builds it (Release) and runs the main job.
#
# The main job: solve Oware (oware/6x4) for every stone count up to SOWDB_RUN_STONES (default 20,
# about 25 seconds on 2 cores) into tables/oware-6 and look up the reference position
# (value 0; moves -1 -1 -2 -2 -2 0). A second run reuses the layers already written.
#
# Usage: scripts/run.sh
# Environment:
#   SOWDB_BUILD_DIR   build directory (default: build, relative to the repository root)
#   SOWDB_RUN_STONES  largest stone count to solve (default: 20)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

build_dir="${SOWDB_BUILD_DIR:-build}"
stones="${SOWDB_RUN_STONES:-20}"
jobs="$(nproc 2>/dev/null || echo 2)"

step() { printf '\n==> %s\n' "$*"; }
# Echo a command, then run it.
run() {
  printf '$ %s\n' "$*"
  "$@"
}

step "setup: system packages"
"$root/scripts/setup.sh"

step "configure: $build_dir (Release)"
generator_args=()
if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
  generator_args=(-G Ninja)
fi
cmake -S . -B "$build_dir" "${generator_args[@]}" -DCMAKE_BUILD_TYPE=Release

step "build: sowdb, $jobs jobs"
cmake --build "$build_dir" --parallel "$jobs" --target sowdb

sowdb="$build_dir/cli/sowdb"
if [[ ! -x "$sowdb" ]]; then
  echo "run: error: $sowdb was not built" >&2
  exit 1
fi

out="tables/oware-6"
step "generate: oware, every layer up to $stones seeds, into $out (layers already there are reused)"
run "$sowdb" gen --variant oware --max-stones "$stones" --out "$out"

if (( stones >= 16 )); then
  step "probe: the reference position (published value 0; moves -1 -1 -2 -2 -2 0)"
  run "$sowdb" probe --tables "$out" 1 1 1 1 1 2 4 2 3 0 0 0
else
  step "probe: a position of $stones seeds or fewer"
  run "$sowdb" probe --tables "$out" 0 0 0 0 1 2 2 1 0 3 2 1
fi

step "done"
