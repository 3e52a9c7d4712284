#!/usr/bin/env bash
# The 5-minute run of `sowdb serve` (docs/BENCHMARKS.md): random positions of Oware layers 0..20
# over 256 connections for SECONDS, the server's RSS every 30 s, its peak, wrk's errors.
# Usage: bench/server/soak.sh SOWDB OWARE_TABLES [SECONDS=300] [extra serve flags]
set -euo pipefail
sowdb="$1"
tables="$2"
seconds="${3:-300}"
shift $(( $# < 3 ? $# : 3 ))
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=serve_lib.sh
source "${here}/serve_lib.sh"
start_server "${sowdb}" "${tables}" "$@"
echo "== load before: $(uptime)"
wrk -t2 -c256 -d"${seconds}s" --latency -s "${here}/random_positions.lua" "http://127.0.0.1:${port}" &
wrk_pid=$!
for (( t = 30; t <= seconds; t += 30 )); do
  sleep 30
  echo "t=${t}s $(grep VmRSS "/proc/${pid}/status" | tr -s ' \t' ' ') load $(cut -d' ' -f1-3 /proc/loadavg)"
done
wait "${wrk_pid}"
grep -E '^VmHWM' "/proc/${pid}/status"
curl -s "http://127.0.0.1:${port}/metrics" | grep -E '^sowdb_(cache_(hits|misses|bytes|entries|evictions)|http_requests_total)'
echo "== load after: $(uptime)"
