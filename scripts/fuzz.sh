#!/usr/bin/env bash
# Builds the fuzzers (clang, libFuzzer + ASan + UBSan) and runs each for a bounded time: the table
# reader for three quarters of `seconds`, the variant text, the manifest readers and the server's
# query parser for a quarter of it each (in all 1.5 x `seconds`, as before the query fuzzer).
# Usage: scripts/fuzz.sh [seconds=60] [extra libFuzzer flags...]
# Seeds: tests/data/golden_*.sdb (a version 6 file is about 10 KB: its depth code table alone
# is 9,184 bytes, hence -max_len=16384), every preset's variant text, a manifest of each, request targets. Crashes are
# written to build-fuzz/crashes/.
set -euo pipefail

seconds="${1:-60}"
shift || true
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SOWDB_FUZZ_BUILD_DIR:-${root}/build-fuzz}"

CC=clang CXX=clang++ cmake -S "${root}" -B "${build}" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSOWDB_BUILD_FUZZ=ON -DSOWDB_BUILD_GEN=OFF -DSOWDB_BUILD_TESTS=OFF -DSOWDB_BUILD_BENCH=OFF \
  -DSOWDB_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "${build}" --target sowdb_fuzz_reader sowdb_fuzz_variant sowdb_fuzz_manifest \
  sowdb_fuzz_query
quarter=$(( (seconds + 3) / 4 ))
reader_seconds=$(( seconds - quarter > 1 ? seconds - quarter : 1 ))

corpus="${build}/corpus"
mkdir -p "${corpus}" "${build}/crashes"
cp -n "${root}"/tests/data/golden_*.sdb "${corpus}/"

"${build}/format/fuzz/sowdb_fuzz_reader" "${corpus}" \
  -max_total_time="${reader_seconds}" -max_len=16384 -rss_limit_mb=2048 -timeout=10 \
  -artifact_prefix="${build}/crashes/" -print_final_stats=1 "$@"

# The text readers: seeds written here, since they are a line each.
for target in variant manifest query; do
  corpus="${build}/corpus-${target}"
  mkdir -p "${corpus}"
done
printf 'oware' >"${build}/corpus-variant/1"
printf 'kalah-irving/4x3' >"${build}/corpus-variant/2"
printf 'wari-us/3x2/skip_origin=off,grand_slam=capture' >"${build}/corpus-variant/3"
printf 'kalah/6x6/capture_empty_opposite=on,end=empty_side' >"${build}/corpus-variant/4"
printf '{"variant": "oware/6x4"}\n' >"${build}/corpus-manifest/1"
# A manifest that holds (the checksum is that of its variant and rules).
printf '{"variant": "oware/6x4", "rules": "oware rules, 6 pits per side, skip_origin=on, grand_slam=forbidden", "checksum": "524e40f318c72119"}\n' \
  >"${build}/corpus-manifest/2"
printf '/api/v1/position?variant=oware/6x4&board=4,4,4,4,4,4,4,4,4,4,4,4&stores=0,0' \
  >"${build}/corpus-query/1"
printf '/static/%%2e%%2e/x?a=%%41+b&&c=1,%%202' >"${build}/corpus-query/2"
for target in variant manifest; do
  "${build}/probe/fuzz/sowdb_fuzz_${target}" "${build}/corpus-${target}" \
    -max_total_time="${quarter}" -max_len=512 -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="${build}/crashes/" -print_final_stats=1 "$@"
done
"${build}/server/fuzz/sowdb_fuzz_query" "${build}/corpus-query" \
  -max_total_time="${quarter}" -max_len=2048 -rss_limit_mb=2048 -timeout=10 \
  -artifact_prefix="${build}/crashes/" -print_final_stats=1 "$@"
