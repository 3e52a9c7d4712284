# Shared by the CLI test scripts, which source it after setting SOWDB (the sowdb program): a
# scratch directory TMP (removed at exit), the check and failure counts, and the helpers below.
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FAILURES=0
CHECKS=0
rc_last=0

fail() {
  echo "FAIL: $*" >&2
  FAILURES=$((FAILURES + 1))
}

# bad ARGS...: bad input (stdin empty): exit code in 1..127 (kept in rc_last), exactly one
# 'sowdb: error: ...' line on stderr, nothing on stdout.
bad() {
  CHECKS=$((CHECKS + 1))
  "$SOWDB" "$@" </dev/null >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  rc_last=$rc
  local what="sowdb $*"
  if [[ $rc -eq 0 ]]; then
    fail "$what: exit code 0 for bad input"
  elif [[ $rc -ge 128 ]]; then
    fail "$what: exit code $rc (crashed?)"
  fi
  local lines
  lines=$(wc -l <"$TMP/err")
  if [[ $lines -ne 1 ]]; then
    fail "$what: $lines lines on stderr, want 1: $(cat "$TMP/err")"
  elif ! grep -q '^sowdb: error: .' "$TMP/err"; then
    fail "$what: stderr is not 'sowdb: error: ...': $(cat "$TMP/err")"
  fi
  if [[ -s "$TMP/out" ]]; then
    fail "$what: wrote to stdout: $(head -c 200 "$TMP/out")"
  fi
}

# good ARGS...: exit 0, nothing on stderr, something on stdout (in $TMP/out); returns 1 when
# the command failed or printed nothing.
good() {
  CHECKS=$((CHECKS + 1))
  "$SOWDB" "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  if [[ $rc -ne 0 ]]; then
    fail "sowdb $*: exit code $rc: $(cat "$TMP/err")"
    return 1
  fi
  if [[ -s "$TMP/err" ]]; then
    fail "sowdb $*: wrote to stderr: $(cat "$TMP/err")"
  fi
  if [[ ! -s "$TMP/out" ]]; then
    fail "sowdb $*: no output"
    return 1
  fi
  return 0
}

# finish: reports the counts; the script's exit code says whether every check passed.
finish() {
  if [[ $FAILURES -ne 0 ]]; then
    echo "$FAILURES of $CHECKS checks failed" >&2
    exit 1
  fi
  echo "all $CHECKS checks passed"
}
