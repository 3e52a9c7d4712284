#!/usr/bin/env bash
# Installs what sowdb needs, builds it (Release) and runs the main job.
#
# The main job: solve Oware (oware/6x4) for every stone count up to SOWDB_RUN_STONES (default 20,
# about 25 seconds on 2 cores) into tables/oware-6 and look up the reference position
# (value 0; moves -1 -1 -2 -2 -2 0). A second run reuses the layers already written. The last
# lines printed are the reference position's value and worths beside the published ones.
#
# Usage: scripts/run.sh
# Environment:
#   SOWDB_BUILD_DIR   build directory (default: build, relative to the repository root)
#   SOWDB_RUN_STONES  largest stone count to solve (default: 20)
#   SOWDB_RUN_OUT     table directory (default: tables/oware-6)
#   SOWDB_PROGRAM     an already built sowdb: skips setup and build (the tests use it)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

build_dir="${SOWDB_BUILD_DIR:-build}"
stones="${SOWDB_RUN_STONES:-20}"
out="${SOWDB_RUN_OUT:-tables/oware-6}"
jobs="$(nproc 2>/dev/null || echo 2)"

step() { printf '\n==> %s\n' "$*"; }
# Echo a command, then run it.
run() {
  printf '$ %s\n' "$*"
  "$@"
}

if [[ -n "${SOWDB_PROGRAM:-}" ]]; then
  sowdb="${SOWDB_PROGRAM}"
else
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
fi
if [[ ! -x "$sowdb" ]]; then
  echo "run: error: $sowdb was not built" >&2
  exit 1
fi

step "generate: oware, every layer up to $stones seeds, into $out (layers already there are reused)"
run "$sowdb" gen --variant oware --max-stones "$stones" --out "$out"

if (( stones < 16 )); then
  # The reference position has 16 seeds: below that, a position the tables hold.
  position=(0 0 0 0 1 2 2 1 0 3 2 1)
  if (( stones < 12 )); then
    position=()
    for ((i = 0; i < 12; ++i)); do
      position+=($((i < stones ? 1 : 0)))
    done
  fi
  step "probe: a position of $stones seeds or fewer"
  run "$sowdb" probe --tables "$out" --max-plies 12 "${position[@]}"
  step "done"
  exit 0
fi

reference=(1 1 1 1 1 2 4 2 3 0 0 0)
# The principal line of the reference position runs 140 plies: the first 12 show how it
# starts, and the values the main job promises come last, where they stay on the screen.
step "probe: the reference position, its principal line cut at 12 plies"
run "$sowdb" probe --tables "$out" --max-plies 12 "${reference[@]}"

step "check: the reference position against the published values (Romein & Bal)"
json="$("$sowdb" probe --tables "$out" --json --max-plies 0 "${reference[@]}")"
value="$(sed -E 's/.*"value":(-?[0-9]+).*/\1/' <<<"$json")"
worths="$(grep -oE '"worth":-?[0-9]+' <<<"$json" | sed 's/"worth"://' | tr '\n' ' ')"
worths="${worths% }"
echo "value  ${value}   (published 0)"
echo "worths ${worths}   (published -1 -1 -2 -2 -2 0)"
if [[ "$value" != 0 || "$worths" != "-1 -1 -2 -2 -2 0" ]]; then
  echo "run: error: the reference position does not match the published values" >&2
  exit 1
fi
step "done: the reference position matches the published values"
# The page over the same tables, when the program was built with the server.
if "$sowdb" serve --help >/dev/null 2>&1; then
  echo "next: $sowdb serve --tables $out   # then open http://127.0.0.1:8080/"
fi
