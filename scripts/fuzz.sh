#!/usr/bin/env bash
# Builds the table-reader fuzzer (clang, libFuzzer + ASan + UBSan) and runs it for a bounded time.
# Usage: scripts/fuzz.sh [seconds=60] [extra libFuzzer flags...]
# Seeds: tests/data/golden_*.sdb. Crashes are written to build-fuzz/crashes/.
set -euo pipefail

seconds="${1:-60}"
shift || true
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SOWDB_FUZZ_BUILD_DIR:-${root}/build-fuzz}"

CC=clang CXX=clang++ cmake -S "${root}" -B "${build}" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSOWDB_BUILD_FUZZ=ON -DSOWDB_BUILD_GEN=OFF -DSOWDB_BUILD_TESTS=OFF -DSOWDB_BUILD_BENCH=OFF \
  -DSOWDB_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "${build}" --target sowdb_fuzz_reader

corpus="${build}/corpus"
mkdir -p "${corpus}" "${build}/crashes"
cp -n "${root}"/tests/data/golden_*.sdb "${corpus}/"

"${build}/format/fuzz/sowdb_fuzz_reader" "${corpus}" \
  -max_total_time="${seconds}" -max_len=8192 -rss_limit_mb=2048 -timeout=10 \
  -artifact_prefix="${build}/crashes/" -print_final_stats=1 "$@"
