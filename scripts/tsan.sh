#!/usr/bin/env bash
# Builds sowdb with ThreadSanitizer and runs the tests that share state between threads, so that
# a data race fails the run even where the answers happen to come out right:
#  - format and probe: one reader, one table set or one C handle shared between threads (the block
#    caches, the probes, read_layer on several threads, the C API's per-thread sowdb_last_error);
#  - the generator: the retrograde solvers at one and two threads (their tables must agree, and
#    their shared updates must be atomic in the C++ memory model), the brute-force comparisons
#    (at the machine's thread count, at least 2 here); not yet the start-position search (below).
# oneTBB's own synchronisation lives in a prebuilt library that TSan cannot see, so this build
# sets SOWDB_STD_THREADS=ON: the generator's loops (gen/src/parallel_loops.h) then run on
# std::thread, with the same loop bodies and thread count. Code that still calls tbb::parallel_for
# directly is not covered by that switch (see the note printed below).
# Environment: SOWDB_TSAN_BUILD_DIR (default build-tsan), SOWDB_JOBS,
#   SOWDB_TSAN_THREADS (threads of the generator's loops; default 2, since TSan needs 2 to see a race).
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
  -DSOWDB_BUILD_GEN=ON -DSOWDB_STD_THREADS=ON -DSOWDB_BUILD_BENCH=OFF \
  -DSOWDB_BUILD_EXAMPLES=OFF -DSOWDB_BUILD_PYTHON=OFF >/dev/null
echo "==> tsan: build, ${jobs} jobs"
cmake --build "${build}" --parallel "${jobs}" --target sowdb_format_tests sowdb_probe_tests \
  sowdb_gen_tests
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
echo "==> tsan: the tests that share readers, table sets and handles between threads"
"${build}/tests/format/sowdb_format_tests" --gtest_filter='*Thread*:BlockCache.*'
"${build}/tests/probe/sowdb_probe_tests" --gtest_filter='*Thread*:CApi.*'
echo "==> tsan: the generator's threaded tests (solvers at 1 and 2 threads, the start search)"
# The brute-force comparison runs its one-pit-a-side cases here (every rule family through the
# same parallel loops): the larger boards take minutes each under TSan.
"${build}/tests/gen/sowdb_gen_tests" \
  --gtest_filter='*GeneratorThreads.*:Presets/GeneratorVsBruteForce.*/*_P1'
# Not run yet (issue 30 stays open for them): the tests that build tables through
# gen::generate (Generate.TablesAreByteIdenticalForOneAndTwoThreads, the *SolveStart* tests).
# With SOWDB_STD_THREADS the acyclic solver's tables come out wrong through generate (kalah
# 0..3: "value -5 outside [-3, 3]"), in a plain -O2 build too and at one thread, while the oneTBB
# build is right (compare_tables); the std::thread backend has a bug of its own to find first.
echo "==> tsan: the server (I/O threads, probe workers, the response cache), its ctest cases"
cmake --build "${build}" --parallel "${jobs}" --target sowdb
ctest --test-dir "${build}" --output-on-failure -R '^server_'
echo "==> tsan: passed"
