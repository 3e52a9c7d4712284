# Shared by the CLI test scripts that stop at the first failure (gen_cli_test.sh,
# directory_test.sh), sourced after setting `sowdb` (the program): a scratch directory `dir`
# (removed at exit), `fail`, and `fails_with`.
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
