#!/usr/bin/env bash
# Solver benchmark (issue: parallel retrograde solver). Solves every layer in memory (no table
# files) and prints positions per second and working bytes per position, at 1 and 2 threads:
#   - Oware (6 pits), all layers <= 20 seeds
#   - Kalah (6 pits), all layers <= 20 seeds
#   - with --full: all Oware layers <= 24 seeds (1.25 billion positions) at 2 threads
# Then, if a table directory is given with --tables DIR, the table-file benchmark
# (scripts/bench_format.sh: bytes/position per layer, cached and cold probes).
# A benchmark, not a test: it asserts nothing. Environment: SOWDB_BENCH_BUILD_DIR (default
# build-bench), SOWDB_BENCH_STONES (default 20) to shorten a run.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SOWDB_BENCH_BUILD_DIR:-${root}/build-bench}"
stones="${SOWDB_BENCH_STONES:-20}"
full=0
tables=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --full) full=1 ;;
    --tables) tables="$2"; shift ;;
    *) echo "usage: scripts/bench.sh [--full] [--tables DIR]" >&2; exit 2 ;;
  esac
  shift
done

"${root}/scripts/setup.sh" >/dev/null
cmake -S "${root}" -B "${build}" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "${build}" --target sowdb_solve_bench >/dev/null

out="$(mktemp)"
trap 'rm -f "${out}"' EXIT
run() {  # variant max_stones threads
  echo "== $1, layers 0..$2, $3 thread(s)" >&2
  local TIMEFORMAT='{"cpu_seconds": %U, "sys_seconds": %S}'
  { time "${build}/bench/sowdb_solve_bench" "$1" "$2" "$3" | grep '"summary"' >>"${out}"; } \
    2>>"${out}"
}
run oware "${stones}" 1
run oware "${stones}" 2
run kalah "${stones}" 1
run kalah "${stones}" 2
if [[ "${full}" == 1 ]]; then
  run oware 24 2
fi

python3 - "${out}" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(f"{'variant':<12} {'layers':>7} {'threads':>7} {'positions':>14} {'wall s':>8} "
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
