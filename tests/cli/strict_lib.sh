# Shared by the CLI test scripts that stop at the first failure (gen_cli_test.sh,
# directory_test.sh), sourced after setting `sowdb` (the program): a scratch directory `dir`
# (removed at exit), `fail`, `fails_with`, `running` and `wait_for_handler`.
set -euo pipefail
dir="$(mktemp -d)"
trap 'rm -rf "${dir}"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# fails_with RC PATTERN ARGS...: sowdb ARGS exits with RC and prints one line on stderr that
# matches PATTERN (any line when PATTERN is empty).
fails_with() {
  local want=$1 pattern=$2 rc
  shift 2
  set +e
  "${sowdb}" "$@" >/dev/null 2>"${dir}/err"
  rc=$?
  set -e
  [[ ${rc} -eq ${want} ]] || fail "'$*' exited ${rc}, want ${want}: $(cat "${dir}/err")"
  [[ "$(wc -l <"${dir}/err")" == 1 ]] || fail "'$*': not one line: $(cat "${dir}/err")"
  grep -q -- "${pattern}" "${dir}/err" ||
    fail "'$*': the error lacks '${pattern}': $(cat "${dir}/err")"
}
# running PID: process PID exists and has not ended. `kill -0` alone also succeeds on a child
# that ended and was not waited for yet (a zombie), and a loop on it would never end.
running() {
  local state
  state=$(sed -E 's/^.*\) ([A-Za-z]).*$/\1/' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ -n "${state}" && "${state}" != Z && "${state}" != X ]]
}
# wait_for_handler PID: waits until process PID runs ${sowdb} and has a handler for SIGINT
# (bit 2 of SigCgt): a real event, no sleep. The program must be checked: between fork and exec
# the child is still the shell, which catches SIGINT too, and a signal sent then is lost.
wait_for_handler() {
  local pid=$1 mask program
  program="$(readlink -f "$(command -v "${sowdb}")")"
  while running "${pid}"; do
    if [[ "$(readlink -f "/proc/${pid}/exe" 2>/dev/null)" == "${program}" ]]; then
      mask=$(awk '/^SigCgt:/ {print $2}' "/proc/${pid}/status" 2>/dev/null || true)
      [[ -n "${mask}" ]] && (((16#${mask} & 2) != 0)) && return 0
    fi
  done
  fail "process ${pid} ended before it caught SIGINT"
}
