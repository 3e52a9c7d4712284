#!/usr/bin/env bash
# Rewrites the golden tiny tables (tests/data/golden_*.sdb) and tests/data/CHECKSUMS with the
# current writer and zstd, after a deliberate format change: FORMAT.md asks for new golden files,
# a version bump and a change log line in the same commit. Builds the tool sowdb_regenerate_golden
# (tests/format/regenerate_golden.cpp) and runs it, then shows what changed. The test
# Golden.* (sowdb_format_tests) checks the committed files.
#
# Usage: scripts/regenerate_golden.sh [DIR]   (default: tests/data of this repository)
# Environment:
#   SOWDB_BUILD_DIR   build directory (default: build, relative to the repository root)
# Exits non-zero when the build or the tool fails.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

build_dir="${SOWDB_BUILD_DIR:-build}"
out="${1:-$root/tests/data}"

if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$build_dir" --target sowdb_regenerate_golden
"$build_dir/tests/format/sowdb_regenerate_golden" "$out"

if [[ "$out" == "$root/tests/data" ]] && git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
  echo
  echo "Changed under tests/data (commit them with the format change):"
  git -C "$root" status --short -- tests/data
fi
