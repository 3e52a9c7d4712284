#!/usr/bin/env bash
# The load benchmark of `sowdb serve` (docs/BENCHMARKS.md): wrk on one hot position and on
# random positions of Oware layers 0..20, with the server's peak RSS.
# Usage: bench/server/bench_server.sh SOWDB OWARE_TABLES [SECONDS=30] [CONNECTIONS=256] [extra serve flags]
# OWARE_TABLES: `sowdb gen --variant oware --max-stones 20 --out DIR`. Binds 127.0.0.1 only.
set -euo pipefail
sowdb="$1"
tables="$2"
seconds="${3:-30}"
connections="${4:-256}"
shift $(( $# < 4 ? $# : 4 ))
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=serve_lib.sh
source "${here}/serve_lib.sh"
start_server "${sowdb}" "${tables}" "$@"
url="http://127.0.0.1:${port}"
# CPU seconds the server and wrk used (user + system): a figure of work that the machine's load
# does not inflate as much as the rate.
cpu() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$1/stat"; }
hot="${url}/api/v1/position?variant=oware/6x4&board=1,0,0,2,0,0,0,1,0,1,0,0&stores=0,0"
echo "== load before: $(uptime)"
echo "== hot position, ${connections} connections, ${seconds} s (body $(curl -s "${hot}" | wc -c) bytes)"
before="$(cpu "${pid}")"
/usr/bin/time -f "wrk CPU: %U s user, %S s system" \
  wrk -t2 -c"${connections}" -d"${seconds}s" --latency "${hot}"
echo "server CPU: $(awk -v a="${before}" -v b="$(cpu "${pid}")" 'BEGIN {printf "%.2f", b - a}') s"
echo "== load: $(uptime)"
echo "== random positions of layers 0..20, ${connections} connections, ${seconds} s"
before="$(cpu "${pid}")"
/usr/bin/time -f "wrk CPU: %U s user, %S s system" \
  wrk -t2 -c"${connections}" -d"${seconds}s" --latency -s "${here}/random_positions.lua" "${url}"
echo "server CPU: $(awk -v a="${before}" -v b="$(cpu "${pid}")" 'BEGIN {printf "%.2f", b - a}') s"
echo "== load: $(uptime)"
grep -E '^(VmHWM|VmRSS)' "/proc/${pid}/status"
curl -s "${url}/metrics" | grep -E '^sowdb_cache_(hits|misses|bytes|entries)'
