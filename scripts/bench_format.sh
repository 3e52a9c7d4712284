#!/usr/bin/env bash
# Table file benchmark: bytes/position of every layer of a table directory and probe speed
# (cached and cold) on one layer, printed as a table.
# Usage: scripts/bench_format.sh [TABLE_DIR] [PROBE_LAYER]
#   TABLE_DIR    a directory of layer-NNN.sdb files (sowdb gen --out); none: a synthetic layer.
#   PROBE_LAYER  the layer to probe (default: the largest).
# Environment: SOWDB_BENCH_BUILD_DIR (default build-bench) is the build directory used.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SOWDB_BENCH_BUILD_DIR:-${root}/build-bench}"
tables="${1:-}"
layer="${2:-}"

cmake -S "${root}" -B "${build}" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "${build}" --target sowdb_format_bench >/dev/null

json="$(mktemp)"
trap 'rm -f "${json}"' EXIT
SOWDB_BENCH_TABLES="${tables}" SOWDB_BENCH_LAYER="${layer}" \
  "${build}/bench/sowdb_format_bench" --benchmark_format=json --benchmark_min_time=0.5 \
  >"${json}"

python3 - "${json}" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["benchmarks"]
print(f"{'layer':>5} {'positions':>12} {'file bytes':>12} {'values B/pos':>12} "
      f"{'depths B/pos':>12} {'total B/pos':>11} {'vs 1 B raw':>10}")
for r in runs:
    if r["name"].startswith("size/"):
        n = int(r["name"].split("layer:")[1][:3])
        print(f"{n:>5} {int(r['positions']):>12} {int(r['file_bytes']):>12} "
              f"{r['value_B/pos']:>12.4f} {r['depth_B/pos']:>12.4f} {r['B/pos']:>11.4f} "
              f"{r['B/pos']:>9.1%}")
print()
print(f"{'probe':<50} {'ns/probe':>10} {'probes/s':>12}")
for r in runs:
    if r["name"].startswith("probe"):
        ns = r['ns/probe'] * 1e9
        print(f"{r['name']:<50} {ns:>10.1f} {1e9 / ns:>12,.0f}")
PY
