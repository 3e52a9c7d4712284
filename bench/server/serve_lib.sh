# Sourced by the server benchmarks: start_server SOWDB TABLES [serve flags] starts `sowdb serve`
# on a free port of 127.0.0.1, stops it when the script exits, and sets pid and port.
start_server() {
  local sowdb="$1" tables="$2"
  shift 2
  # wrk's connections all come from 127.0.0.1: above the per-address cap (64 by default) they
  # would be refused. A binary from before the cap has no such flag.
  local cap=()
  if "${sowdb}" serve --help 2>/dev/null | grep -q -- --max-connections-per-client; then
    cap=(--max-connections-per-client 100000)
  fi
  log="$(mktemp)"
  "${sowdb}" serve --tables "${tables}" --port 0 "${cap[@]}" "$@" >"${log}" 2>&1 &
  pid=$!
  trap 'kill -TERM ${pid} 2>/dev/null || true; wait ${pid} 2>/dev/null || true; rm -f "${log}"' EXIT
  port=""
  for _ in $(seq 1 600); do  # the URL appears once the tables are open: poll the log, bounded
    port="$(grep -o 'http://127.0.0.1:[0-9]*' "${log}" | cut -d: -f3 || true)"
    [[ -n "${port}" ]] && break
    sleep 0.1
  done
  [[ -n "${port}" ]] || { cat "${log}"; exit 1; }
}
