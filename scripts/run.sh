#!/usr/bin/env bash
# Installs what sowdb needs, builds it (Release) and runs the main job.
#
# The main job: when the CLI has the `gen` subcommand, solve Oware (oware/6x4) for every stone
# count up to SOWDB_RUN_STONES (default 16) into tables/oware-6 and look up the VARIANTS.md
# reference position (value 0; moves -1 -1 -2 -2 -2 0). Until the generator exists, it shows the
# rules at work instead: the presets, and the legal moves of three positions.
#
# Usage: scripts/run.sh
# Environment:
#   SOWDB_BUILD_DIR   build directory (default: build, relative to the repository root)
#   SOWDB_RUN_STONES  largest stone count to solve (default: 16)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

build_dir="${SOWDB_BUILD_DIR:-build}"
stones="${SOWDB_RUN_STONES:-16}"
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

sowdb="$build_dir/gen/sowdb"
if [[ ! -x "$sowdb" ]]; then
  echo "run: error: $sowdb was not built" >&2
  exit 1
fi

# CLI11 prints the top-level help for `sowdb gen --help` even when there is no such subcommand,
# so look for the subcommand's own usage line.
if "$sowdb" gen --help 2>/dev/null | grep -q 'Usage: .*sowdb gen'; then
  out="tables/oware-6"
  step "generate: oware, up to $stones stones, into $out"
  run "$sowdb" gen --variant oware --max-stones "$stones" --out "$out"

  step "probe: the VARIANTS.md reference position (published value 0; moves -1 -1 -2 -2 -2 0)"
  run "$sowdb" probe --tables "$out" 1 1 1 1 1 2 4 2 3 0 0 0
else
  step "the generator is not built yet: showing the rules instead"

  step "presets"
  run "$sowdb" variants

  step "Oware start position"
  run "$sowdb" show --variant oware 4 4 4 4 4 4 4 4 4 4 4 4

  step "VARIANTS.md reference position (oware)"
  run "$sowdb" show --variant oware 1 1 1 1 1 2 4 2 3 0 0 0

  step "Kalah(4,3) start position"
  run "$sowdb" show --variant kalah/4x3 3 3 3 3 3 3 3 3
fi

step "done"
