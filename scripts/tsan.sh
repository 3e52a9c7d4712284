#!/usr/bin/env bash
# Builds the format and probe libraries and their tests with ThreadSanitizer and runs the tests
# that share one reader, one table set or one C handle between threads (the block caches, the
# probes, read_layer on several threads, the C API with its per-thread sowdb_last_error), so that
# a data race fails the run even where the answers happen to come out right. The generator is
# left out: oneTBB's own synchronisation is not visible to ThreadSanitizer.
# Environment: SOWDB_TSAN_BUILD_DIR (default build-tsan), SOWDB_JOBS.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SOWDB_TSAN_BUILD_DIR:-${root}/build-tsan}"
jobs="${SOWDB_JOBS:-$(nproc)}"

"${root}/scripts/setup.sh"
flags="-O1 -g -fno-omit-frame-pointer -fsanitize=thread"
echo "==> tsan: configure ${build}"
cmake -S "${root}" -B "${build}" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_FLAGS="${flags}" -DCMAKE_CXX_FLAGS="${flags}" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" \
  -DSOWDB_BUILD_GEN=OFF -DSOWDB_BUILD_BENCH=OFF -DSOWDB_BUILD_EXAMPLES=OFF >/dev/null
echo "==> tsan: build, ${jobs} jobs"
cmake --build "${build}" --parallel "${jobs}" --target sowdb_format_tests sowdb_probe_tests
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
echo "==> tsan: the tests that share readers, table sets and handles between threads"
"${build}/tests/format/sowdb_format_tests" --gtest_filter='*Thread*:BlockCache.*'
"${build}/tests/probe/sowdb_probe_tests" --gtest_filter='*Thread*:CApi.*'
echo "==> tsan: passed"
