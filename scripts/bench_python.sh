#!/usr/bin/env bash
# Benchmark of the Python module's bulk lookup against the C++ it wraps (issue 32's acceptance:
# Python at least half the C++ rate). A benchmark, not a test: it asserts nothing. Figures go to
# docs/BENCHMARKS.md with the date, the machine, the load and the build.
#
#  1. Oware's tables of layers 0..20 (`sowdb gen`, reused when SOWDB_BENCH_TABLES holds them).
#  2. 10 million positions drawn uniformly from every position of layers 0..20
#     (sowdb.Variant.random_positions, seed 1), written to a file.
#  3. probe_bulk on them in C++ (bench/bulk_values.cpp) and TableSet.values() in Python
#     (bench/python_values.py), each after an untimed pass that fills the caches, at 1 and 2
#     threads, the fastest of SOWDB_BENCH_REPEAT passes; Python with uint8 boards and with int64
#     ones (numpy's default integer). C++ and Python alternate, each thread count in turn.
#
# Usage: scripts/bench_python.sh
# Environment: SOWDB_BENCH_BUILD_DIR (default build-bench), SOWDB_BENCH_TABLES (default: a
#   temporary directory), SOWDB_BENCH_POSITIONS (default 10000000), SOWDB_BENCH_STONES (20),
#   SOWDB_BENCH_REPEAT (timed passes of each measurement, the fastest kept; default 3).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SOWDB_BENCH_BUILD_DIR:-${root}/build-bench}"
positions="${SOWDB_BENCH_POSITIONS:-10000000}"
stones="${SOWDB_BENCH_STONES:-20}"
repeat="${SOWDB_BENCH_REPEAT:-3}"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
tables="${SOWDB_BENCH_TABLES:-${work}/oware}"
# Every layer's decoded blocks kept (3 bytes per position of the largest layer fit in 1 GiB).
cache_bytes=$((1 << 30))

cmake -S "${root}" -B "${build}" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "${build}" --target sowdb sowdb_bulk_bench sowdb_python >/dev/null
python="$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "${build}/CMakeCache.txt")"
export PYTHONPATH="${build}/python"

echo "== build: $(git -C "${root}" rev-parse --short HEAD), $(date -u +%F\ %H:%M) UTC, $(nproc) cores, ${python}" >&2
if [[ ! -f "${tables}/layer-$(printf %03d "${stones}").sdb" ]]; then
  echo "== sowdb gen oware 0..${stones} into ${tables}" >&2
  "${build}/cli/sowdb" gen --variant oware --max-stones "${stones}" --out "${tables}" >&2
fi
boards="${work}/boards.u8"
"${python}" -c "
import sowdb
b = sowdb.Variant('oware').random_positions(${positions}, ${stones}, seed=1)
b.tofile('${boards}')
"
for threads in 1 2; do
  echo "== load: $(uptime)" >&2
  "${build}/bench/sowdb_bulk_bench" "${tables}" "${boards}" "${cache_bytes}" "${repeat}" "${threads}"
  echo "== load: $(uptime)" >&2
  "${python}" "${root}/bench/python_values.py" "${tables}" "${boards}" "${cache_bytes}" "${repeat}" "${threads}"
done
