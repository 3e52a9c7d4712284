#!/usr/bin/env bash
# `sowdb probe`'s rough edges with hostile input: a bulk line past the limit is answered as
# "line too long" without being held in memory, a line that never ends (/dev/zero) ends the
# input with an error, and a missing PITS points at `sowdb probe --help`.
# Usage: probe_input_test.sh SOWDB
SOWDB="$1"
source "$(dirname "$0")/cli_lib.sh"

OW="$TMP/ow"
"$SOWDB" gen --variant oware/6x4 --max-stones 6 --out "$OW" --quiet || {
  echo "FAIL: gen" >&2
  exit 1
}

# A line of 5,000 bytes between two good ones: an error object naming its length, the lines
# around it answered, exit 1 as for any bad line.
CHECKS=$((CHECKS + 1))
python3 -c '
import sys
sys.stdout.write("0 0 0 0 1 1 0 1 0 1 1 0\n" + "1 " * 2500 + "\n0 0 0 0 1 1 0 1 0 1 1 0\n")' |
  "$SOWDB" probe --tables "$OW" --json - >"$TMP/out" 2>"$TMP/err"
rc=$?
[[ $rc -eq 1 ]] || fail "a 5000-byte line: exit code $rc, want 1"
[[ ! -s "$TMP/err" ]] || fail "a 5000-byte line: wrote to stderr: $(cat "$TMP/err")"
python3 - "$TMP/out" <<'PY' || fail "a 5000-byte line: $(head -c 600 "$TMP/out")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 3, lines
assert "error" not in lines[0] and "error" not in lines[2], lines
e = lines[1]
assert e["line"] == 2, e
assert e["error"].startswith("line too long: 5000 bytes"), e
assert e["input"] == "1 " * 100 + "... (5000 bytes)", e
PY

# 200 MB in one line under a 600 MB address-space limit: it is counted, not held (a release
# before the limit held it and split it into words, 2.5 GB per 100 MB, and died of
# std::bad_alloc).
CHECKS=$((CHECKS + 1))
(
  ulimit -v 600000
  head -c 200000000 /dev/zero | tr '\0' 'x' | "$SOWDB" probe --tables "$OW" --json - \
    >"$TMP/out" 2>"$TMP/err"
)
rc=$?
[[ $rc -eq 1 ]] || fail "a 200 MB line: exit code $rc, want 1: $(cat "$TMP/err")"
grep -q '^{"error":"line too long: 200000000 bytes' "$TMP/out" ||
  fail "a 200 MB line: no line too long error: $(head -c 300 "$TMP/out")"

# /dev/zero has no line end: after 1 GiB without one the input ends with one error line. (The
# address-space limit keeps a regression that holds the line from taking the machine's memory.)
CHECKS=$((CHECKS + 1))
(
  ulimit -v 600000
  "$SOWDB" probe --tables "$OW" --json - </dev/zero >"$TMP/out" 2>"$TMP/err"
)
rc=$?
[[ $rc -eq 1 ]] || fail "/dev/zero: exit code $rc, want 1"
[[ ! -s "$TMP/out" ]] || fail "/dev/zero: wrote to stdout: $(head -c 300 "$TMP/out")"
grep -qx 'sowdb: error: line 1: line too long: no line end in [0-9]* bytes' "$TMP/err" ||
  fail "/dev/zero: $(cat "$TMP/err")"

# Good lines before an endless one are answered first.
CHECKS=$((CHECKS + 1))
(
  ulimit -v 600000
  cat <(printf '0 0 0 0 1 1 0 1 0 1 1 0\n\n') /dev/zero | head -c 1200000000 |
    "$SOWDB" probe --tables "$OW" --json - >"$TMP/out" 2>"$TMP/err"
)
grep -q '"best"' "$TMP/out" || fail "lines before /dev/zero: not answered: $(cat "$TMP/err")"
grep -q '^sowdb: error: line 3: line too long' "$TMP/err" ||
  fail "lines before /dev/zero: $(cat "$TMP/err")"

# A NUL byte in a count: the whole message, the byte shown as \x00 (the message had ended at
# the NUL).
CHECKS=$((CHECKS + 1))
printf '0 0 0 0 1 1 0 1 0 1 1 0\x00\n' | "$SOWDB" probe --tables "$OW" --json - >"$TMP/out" 2>"$TMP/err"
python3 - "$TMP/out" <<'PY' || fail "a NUL byte: $(head -c 300 "$TMP/out")"
import json, sys
e = json.loads(open(sys.argv[1]).read())
assert e["error"] == "pit 11: '0\\x00' is not a whole number of seeds", e
PY

# A missing position points at the command's own help.
bad probe --tables "$OW"
[[ $rc_last -eq 2 ]] || fail "probe without PITS: exit code $rc_last, want 2"
grep -qx 'sowdb: error: PITS is required (see sowdb probe --help)' "$TMP/err" ||
  fail "probe without PITS: $(cat "$TMP/err")"
bad probe --tables "$OW" --json
grep -q 'see sowdb probe --help' "$TMP/err" || fail "probe --json without PITS: $(cat "$TMP/err")"

finish
