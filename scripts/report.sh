#!/usr/bin/env bash
# Writes docs/results/ (the solved-games tables, per-layer statistics, plots) from this machine's
# runs: builds sowdb (Release), installs gnuplot if it is missing, and runs scripts/report.py.
# A benchmark-sized job, not a test: commit what it writes.
# Usage: scripts/report.sh [--solve-timeout SECONDS] [--layers N]
# Environment: SOWDB_REPORT_WORK (default build/report: caches, tables, and the answers of
# `sowdb solve`, which a rerun with the same binary reuses; report.py --fresh searches again).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${SOWDB_REPORT_WORK:-${root}/build/report}"
if ! command -v gnuplot >/dev/null; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends gnuplot-nox
fi
"${root}/scripts/setup.sh"
cmake -S "${root}" -B "${root}/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "${root}/build" --target sowdb
python3 "${root}/scripts/report.py" "${root}/build/cli/sowdb" "${root}/docs/results" "${work}" "$@"
echo "==> report: ${root}/docs/results/README.md"
