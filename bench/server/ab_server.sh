#!/usr/bin/env bash
# Alternated A/B load runs of two `sowdb serve` binaries over the same tables (docs/BENCHMARKS.md):
# both servers start side by side on free ports of 127.0.0.1, then wrk runs against A, then B,
# PAIRS times, and each run prints its requests, rate, p50 and p99.
# Usage: bench/server/ab_server.sh SOWDB_A SOWDB_B OWARE_TABLES [SECONDS=12] [PAIRS=3] [random]
# "random" as the sixth argument: random positions of layers 0..20 instead of the hot position.
# WRK_NICE=N runs wrk at nice N (the client then yields the cores to the server).
# TABLES_B=DIR: B serves DIR instead (the same layers in another format version, say, for a
# binary that cannot read OWARE_TABLES).
set -euo pipefail
a="$1"
b="$2"
tables="$3"
seconds="${4:-12}"
pairs="${5:-3}"
mode="${6:-hot}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=serve_lib.sh
source "${here}/serve_lib.sh"
start_server "${a}" "${tables}"
pid_a="${pid}"
port_a="${port}"
log_a="${log}"
start_server "${b}" "${TABLES_B:-${tables}}"
pid_b="${pid}"
port_b="${port}"
trap 'kill -TERM ${pid_a} ${pid_b} 2>/dev/null || true; wait 2>/dev/null || true
      rm -f "${log_a}" "${log}"' EXIT
hot="/api/v1/position?variant=oware/6x4&board=1,0,0,2,0,0,0,1,0,1,0,0&stores=0,0"
script=()
target="${hot}"
if [[ "${mode}" == random ]]; then
  script=(-s "${here}/random_positions.lua")
  target="/"
fi
nice_cmd=()
[[ -n "${WRK_NICE:-}" ]] && nice_cmd=(nice -n "${WRK_NICE}")
for i in $(seq 1 "${pairs}"); do
  for side in A B; do
    p="${port_a}"
    [[ "${side}" == B ]] && p="${port_b}"
    out="$("${nice_cmd[@]}" wrk -t2 -c256 -d"${seconds}s" --latency "${script[@]}" \
      "http://127.0.0.1:${p}${target}")"
    echo "${out}" | awk -v pair="${i}" -v side="${side}" -v load="$(cut -d' ' -f1 /proc/loadavg)" '
      /requests in/ {n = $1} /Requests\/sec/ {rate = $2} $1 == "50%" {p50 = $2} $1 == "99%" {p99 = $2}
      /Socket errors|Non-2xx/ {bad = bad " " $0}
      END {printf "pair %d %s: %s requests, %s requests/s, p50 %s, p99 %s, load %s%s\n",
           pair, side, n, rate, p50, p99, load, bad}'
  done
done
