#!/usr/bin/env bash
# Builds sowdb with ThreadSanitizer and runs the tests that share state between threads, so that
# a data race fails the run even where the answers happen to come out right:
#  - format and probe: one reader, one table set or one C handle shared between threads (the block
#    caches, the probes, read_layer on several threads, the C API's per-thread sowdb_last_error);
#  - the generator: the parallel loops themselves, the retrograde solvers at one and two threads
#    (their tables must agree, and their shared updates must be atomic in the C++ memory model),
#    the brute-force comparisons (at the machine's thread count, at least 2 here), gen::generate
#    at one and two threads, and the start-position search with its shared transposition table.
# oneTBB's own synchronisation lives in a prebuilt library that TSan cannot see, so this build
# sets SOWDB_STD_THREADS=ON: the generator's loops (gen/src/parallel_loops.h) then run on
# std::thread, with the same loop bodies and thread count. Every parallel loop of the generator
# goes through that header; the table writer's block compression runs through its Executor
# (gen::tbb_executor, built on the same header).
# Environment: SOWDB_TSAN_BUILD_DIR (default build-tsan), SOWDB_JOBS,
#   SOWDB_TSAN_THREADS (threads of the generator's loops; default 2, since TSan needs 2 to see a race),
#   SOWDB_UNITY_BUILD (below).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SOWDB_TSAN_BUILD_DIR:-${root}/build-tsan}"
jobs="${SOWDB_JOBS:-$(nproc)}"

"${root}/scripts/setup.sh"
flags="-O1 -g1 -fno-omit-frame-pointer -fsanitize=thread"
echo "==> tsan: configure ${build}"
# Debug without its own -g: the -g1 above (line tables) is what the reports need, and the full
# debug info that -g adds took about a quarter of this build's compile time (CI time, 2026-11-29).
# A unity build (SOWDB_UNITY_BUILD, default ON; OFF compiles each file alone): CMake compiles up
# to 8 files of a target as one translation unit, so their headers (nlohmann/json, CLI11, oneTBB,
# GoogleTest) are parsed and their templates compiled once for the 8. This build took 133 s
# against 231 s file by file (2026-11-30, the project machine, a search at nice 19 beside it).
# The Release build of scripts/test.sh compiles every file alone, so a file that leans on
# another's includes still fails there; files whose anonymous namespaces share names cannot
# share a unity file (tests/server/CMakeLists.txt turns it off for its target).
cmake -S "${root}" -B "${build}" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_UNITY_BUILD="${SOWDB_UNITY_BUILD:-ON}" \
  -DCMAKE_C_FLAGS_DEBUG= -DCMAKE_CXX_FLAGS_DEBUG= \
  -DCMAKE_C_FLAGS="${flags}" -DCMAKE_CXX_FLAGS="${flags}" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" \
  -DSOWDB_BUILD_GEN=ON -DSOWDB_STD_THREADS=ON -DSOWDB_BUILD_BENCH=OFF \
  -DSOWDB_BUILD_EXAMPLES=OFF -DSOWDB_BUILD_PYTHON=OFF >/dev/null
echo "==> tsan: build, ${jobs} jobs"
cmake --build "${build}" --parallel "${jobs}" --target sowdb_format_tests sowdb_probe_tests \
  sowdb_gen_tests sowdb_start_searcher_tests sowdb_published_tests sowdb_generate_tests \
  sowdb_server_tests
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
echo "==> tsan: the tests that share readers, table sets and handles between threads"
"${build}/tests/format/sowdb_format_tests" --gtest_filter='*Thread*:BlockCache.*:V6Cache.ThreadsShareACachedReader'
"${build}/tests/probe/sowdb_probe_tests" --gtest_filter='*Thread*:CApi.*'
echo "==> tsan: the generator's threaded tests (loops, values read beside a search, solvers at 1 and 2 threads, generate, solve)"
"${build}/tests/gen/sowdb_start_searcher_tests" --gtest_filter='ParallelLoops.*:TableValuesDeferred.*:BusyTable.*:SharedSearch.*'
# The brute-force comparison runs its one-pit-a-side cases here (every rule family through the
# same parallel loops): the larger boards take minutes each under TSan. SolverOnDirtyHeap runs the
# acyclic solver over recycled memory (its per-thread scratch once leaked heap bytes into boards);
# its smallest case only, and the threads-agree comparison its cyclic (oware) and acyclic
# (kalah-tournament) boards: the others take minutes each under TSan (ctest runs them all).
"${build}/tests/gen/sowdb_gen_tests" \
  --gtest_filter='*GeneratorThreads.*/oware_P6:*GeneratorThreads.*/kalah_tournament_P6:Presets/GeneratorVsBruteForce.*/*_P1:*SolverOnDirtyHeap.*/kalah_tournament_P4'
# The tables of 1 and 2 threads byte for byte: Oware (cycles) and kalah-tournament (none); wari-us
# (Oware's solver again, 45 s more under TSan) runs in the plain build only.
"${build}/tests/gen/sowdb_published_tests" \
  --gtest_filter='Variants/Generate.TablesAreByteIdenticalForOneAndTwoThreads/oware:Variants/Generate.TablesAreByteIdenticalForOneAndTwoThreads/kalah_tournament'
"${build}/tests/gen/sowdb_generate_tests" --gtest_filter='*SolveStart*'
# The server's search jobs (a thread each, polled, cancelled, freeing their slot) and the proof
# store a book filled, shared by the server's threads: 4 s under TSan (2026-11-29; the job test
# that searches to the end takes 39 s, and ctest runs it). The rest of the server's tests are
# not run under TSan in CI: their time was not measured within CI's budget (issue 31).
echo "==> tsan: the server's connection table and search jobs"
"${build}/tests/server/sowdb_server_tests" --gtest_filter='FairService.*:SearchJob.DeleteStopsAJobAndFreesItsSlot:SearchJob.AJobNobodyFollowsStops:SearchApi.ValueOnlyIsAnsweredByABook:SearchApi.BoundsAreSentNoStoreAndHoldTheValue'

echo "==> tsan: passed"
