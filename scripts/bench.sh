#!/usr/bin/env bash
# Benchmark of what a user waits for, then of the solver alone. A benchmark, not a test: it
# asserts nothing. Figures go to docs/BENCHMARKS.md with the date, the machine and the build.
#
#  1. `sowdb gen` writing its tables to a fresh directory, at 1 and 2 threads, for Oware and
#     kalah-irving (6 pits) layers 0..20: solve seconds, write seconds, their ratio, end-to-end
#     positions/s, peak RSS and bytes/position (from `gen --json`'s summary).
#  2. The solver alone, in memory (bench/solve_layers.cpp): positions/s and working bytes per
#     position, at 1 and 2 threads, for Oware and Kalah layers 0..20.
#  3. With --full: `sowdb gen` of Oware 0..24 at 2 threads, and the solver alone on it.
#  4. With --tables DIR: the table-file benchmark on DIR (scripts/bench_format.sh).
#
# Usage: scripts/bench.sh [--full] [--tables DIR] [--gen-only]
# Environment: SOWDB_BENCH_BUILD_DIR (default build-bench), SOWDB_BENCH_STONES (default 20) to
# shorten a run, SOWDB_BENCH_OUT (default: a temporary directory) for the tables gen writes.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SOWDB_BENCH_BUILD_DIR:-${root}/build-bench}"
stones="${SOWDB_BENCH_STONES:-20}"
full=0
gen_only=0
tables=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --full) full=1 ;;
    --gen-only) gen_only=1 ;;
    --tables) tables="$2"; shift ;;
    *) echo "usage: scripts/bench.sh [--full] [--tables DIR] [--gen-only]" >&2; exit 2 ;;
  esac
  shift
done

"${root}/scripts/setup.sh" >/dev/null
cmake -S "${root}" -B "${build}" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "${build}" --target sowdb sowdb_solve_bench >/dev/null

# Calls "$1 VARIANT MAX_STONES THREADS" for every job of the benchmark: the same jobs for sowdb
# gen and for the solver alone ($2 is the Kalah preset to use).
each_job() {
  "$1" oware "${stones}" 1
  "$1" oware "${stones}" 2
  "$1" "$2" "${stones}" 1
  "$1" "$2" "${stones}" 2
  if [[ "${full}" == 1 ]]; then
    "$1" oware 24 2
  fi
}

work="$(mktemp -d)"
out_root="${SOWDB_BENCH_OUT:-${work}}"
trap 'rm -rf "${work}"' EXIT

echo "== build: $(git -C "${root}" rev-parse --short HEAD 2>/dev/null || echo '?')$(
  git -C "${root}" diff --quiet 2>/dev/null || echo ' (with uncommitted changes)'), $(date -u +%F\ %H:%M) UTC, $(nproc) cores" >&2

# 1. sowdb gen to files: one summary line per run.
gen_runs="${work}/gen.jsonl"
gen() {  # variant max_stones threads
  local dir="${out_root}/gen-$1-$2-$3"
  rm -rf "${dir}"
  echo "== sowdb gen --variant $1 --max-stones $2 --threads $3" >&2
  "${build}/cli/sowdb" gen --variant "$1" --max-stones "$2" --threads "$3" --out "${dir}" \
    --json | tail -n 1 >>"${gen_runs}"
  rm -rf "${dir}"
}
each_job gen kalah-irving
python3 - "${gen_runs}" <<'PY'
import json, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(f"{'sowdb gen':<18} {'layers':>7} {'thr':>3} {'positions':>14} {'wall s':>8} {'solve s':>8} "
      f"{'write s':>8} {'write/solve':>11} {'M pos/s':>8} {'peak RSS':>10} {'B/pos':>7}")
for r in runs:
    print(f"{r['variant']:<18} {'0..' + str(r['max_stones']):>7} {r['threads']:>3} "
          f"{r['positions']:>14,} {r['seconds']:>8.1f} {r['solve_seconds']:>8.1f} "
          f"{r['write_seconds']:>8.2f} {r['write_seconds'] / r['solve_seconds']:>11.3f} "
          f"{r['positions_per_s'] / 1e6:>8.2f} {r['peak_rss_bytes'] / 2**30:>6.2f} GiB "
          f"{r['bytes_per_position']:>7.4f}")
print("wall s: the whole run; solve s and write s: sums over the layers (write: compressing and "
      "writing the files);\nM pos/s: positions per wall-clock second, files included; B/pos: "
      "bytes on disk per position.")
PY

if [[ "${gen_only}" == 1 ]]; then
  exit 0
fi

# 2. The solver alone, in memory.
out="${work}/solve.txt"
run() {  # variant max_stones threads
  echo "== solver alone: $1, layers 0..$2, $3 thread(s)" >&2
  local TIMEFORMAT='{"cpu_seconds": %U, "sys_seconds": %S}'
  { time "${build}/bench/sowdb_solve_bench" "$1" "$2" "$3" | grep '"summary"' >>"${out}"; } \
    2>>"${out}"
}
each_job run kalah

python3 - "${out}" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(f"{'solver alone':<12} {'layers':>7} {'threads':>7} {'positions':>14} {'wall s':>8} "
      f"{'M pos/s':>8} {'CPU s':>8} {'M pos/CPU-s':>11} {'work B/pos':>10} {'peak RSS':>10}")
for summary, t in zip(lines[0::2], lines[1::2]):
    cpu = t["cpu_seconds"] + t["sys_seconds"]
    print(f"{summary['variant']:<12} {'0..' + str(summary['max_stones']):>7} "
          f"{summary['threads']:>7} {summary['positions']:>14,} {summary['seconds']:>8.1f} "
          f"{summary['positions_per_s'] / 1e6:>8.2f} {cpu:>8.1f} "
          f"{summary['positions'] / cpu / 1e6:>11.2f} "
          f"{summary['largest_layer_peak_rss_growth_bytes_per_position']:>10.2f} "
          f"{summary['peak_rss_bytes'] / 2**30:>8.2f} GiB")
print("work B/pos: growth of the peak RSS while the largest layer is solved, per position of "
      "that layer\n(value 1 B + state/depth cell 2 B + frontier flags; the smaller layers' values "
      "stay in memory too).")
PY

if [[ -n "${tables}" ]]; then
  SOWDB_BENCH_BUILD_DIR="${build}" "${root}/scripts/bench_format.sh" "${tables}"
fi
