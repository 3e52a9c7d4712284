#!/usr/bin/env bash
# `sowdb probe` above the tables: a position with more seeds than the tables hold is searched
# (--search-time, default 10 s). Checks, on kalah/4x3 with tables 0..8 against complete tables
# 0..16: the --json fields (method, value, lower, upper, each move's worth, lower and upper, depth
# null) equal the complete tables' answers; the text says the answer came by search; bulk mode
# searches each line; a second run answers from the proof store ("stored"); --search-time 0
# keeps the refusal; a search interrupted by SIGINT prints the bounds so far and exits 130.
# Usage: probe_search_cli_test.sh PATH/TO/sowdb
set -u

if [[ $# -lt 1 || ! -x "$1" ]]; then
  echo "usage: $0 PATH/TO/sowdb" >&2
  exit 2
fi
SOWDB=$1
# shellcheck source=cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"
# The proof store lives in the cache: this run's own.
export SOWDB_CACHE_DIR="$TMP/cache"

PART="$TMP/part"
FULL="$TMP/full"
BIG="$TMP/big"
if ! "$SOWDB" gen --variant kalah/4x3 --max-stones 8 --out "$PART" --quiet ||
  ! "$SOWDB" gen --variant kalah/4x3 --max-stones 16 --out "$FULL" --quiet ||
  ! "$SOWDB" gen --variant kalah/6x4 --max-stones 4 --out "$BIG" --quiet; then
  echo "FAIL: sowdb gen could not build the test tables" >&2
  exit 1
fi

# compare BOARD...: the search over 0..8 and complete tables agree on every figure.
compare() {
  CHECKS=$((CHECKS + 1))
  "$SOWDB" probe --tables "$PART" --json "$@" >"$TMP/got" 2>"$TMP/err" ||
    { fail "search of $*: $(cat "$TMP/err")"; return; }
  "$SOWDB" probe --tables "$FULL" --json "$@" >"$TMP/want" 2>"$TMP/err" ||
    { fail "tables of $*: $(cat "$TMP/err")"; return; }
  if ! python3 - "$TMP/got" "$TMP/want" 2>"$TMP/pyerr" <<'PY'; then
import json, sys
g = json.load(open(sys.argv[1]))
w = json.load(open(sys.argv[2]))
assert g["method"] == "search" and w["method"] == "table", (g["method"], w["method"])
assert g["value"] == g["lower"] == g["upper"] == w["value"], (g["value"], w["value"])
assert g["depth"] is None and g["search"]["complete"], g["search"]
assert g["result"] == w["result"] and g["final"] == w["final"]
assert [m["pit"] for m in g["moves"]] == [m["pit"] for m in w["moves"]]
for a, b in zip(g["moves"], w["moves"]):
    assert a["worth"] == a["lower"] == a["upper"] == b["worth"], (a, b)
    assert a["depth"] is None and a["category"] == b["category"], (a, b)
assert g["best"] in [m["pit"] for m in w["moves"] if m["worth"] == w["value"]]
assert g["line"] and g["line"][0] == g["best"], g["line"]
assert w["search"] is None
PY
    fail "search of $* differs from the tables: $(tail -1 "$TMP/pyerr")"
  fi
}

compare 2 1 2 0 1 3 2 1
compare 0 3 1 2 2 1 3 2
compare 2 2 2 2 1 1 1 4
compare --stores 3,2 2 0 0 4 1 2 3 1

# The text says how the answer came.
good probe --tables "$PART" 2 1 2 0 1 3 2 1 && {
  CHECKS=$((CHECKS + 1))
  grep -q 'answered by search above them' "$TMP/out" || fail "text: no word of the search"
  grep -Eq '^value [+-][0-9]+ for the mover, proved by search' "$TMP/out" ||
    fail "text: no proved value: $(head -c 600 "$TMP/out")"
}

# Proved once, answered from the proof store.
good probe --tables "$PART" --json 0 3 1 2 2 1 3 2 && {
  CHECKS=$((CHECKS + 1))
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["search"]["stored"], j["search"]' \
    "$TMP/out" 2>"$TMP/pyerr" || fail "second run not from the proof store: $(cat "$TMP/pyerr")"
  ls "$SOWDB_CACHE_DIR"/proofs/*.sowproof >/dev/null 2>&1 || fail "no proof store in the cache"
}
good probe --tables "$PART" --json --no-proof-store 0 3 1 2 2 1 3 2 && {
  CHECKS=$((CHECKS + 1))
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert not j["search"]["stored"]' \
    "$TMP/out" 2>"$TMP/pyerr" || fail "--no-proof-store read the store"
}

# Bulk mode searches each line above the tables.
CHECKS=$((CHECKS + 1))
printf '2 1 2 0 1 3 2 1\n0 0 1 0 0 1 0 0\n' |
  "$SOWDB" probe --tables "$PART" --json - >"$TMP/out" 2>"$TMP/err" ||
  fail "bulk mode with searches: $(cat "$TMP/err")"
python3 -c '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert [j["method"] for j in lines] == ["search", "table"], lines
' "$TMP/out" 2>"$TMP/pyerr" || fail "bulk mode: $(tail -1 "$TMP/pyerr")"

# --search-time 0 keeps the refusal of a position above the tables; a bad budget is refused.
bad probe --tables "$PART" --search-time 0 2 1 2 0 1 3 2 1
grep -q 'position has 12 seeds; tables in .* hold up to 8' "$TMP/err" ||
  fail "--search-time 0: unclear refusal: $(cat "$TMP/err")"
bad probe --tables "$PART" --search-time -1 2 1 2 0 1 3 2 1
bad probe --tables "$PART" --search-time soon 2 1 2 0 1 3 2 1

# A search far too long for its budget shows bounds that hold; SIGINT prints them and exits 130.
good probe --tables "$BIG" --json --search-time 0.5 4 4 4 4 4 4 4 4 4 4 4 4 && {
  CHECKS=$((CHECKS + 1))
  python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["method"] == "search" and j["value"] is None, j["value"]
assert -48 <= j["lower"] < j["upper"] <= 48, (j["lower"], j["upper"])
assert j["search"]["stopped_by"] == "time_limit" and not j["search"]["complete"]
assert j["final"] is None and j["depth"] is None
' "$TMP/out" 2>"$TMP/pyerr" || fail "a budget too small: $(tail -1 "$TMP/pyerr")"
}
CHECKS=$((CHECKS + 1))
timeout --preserve-status -s INT 2 "$SOWDB" probe --tables "$BIG" --search-time 600 4 4 4 4 4 4 4 4 4 4 4 4 \
  >"$TMP/out" 2>"$TMP/err"
rc=$?
[[ $rc -eq 130 ]] || fail "SIGINT during a search: exit code $rc, want 130: $(cat "$TMP/err")"
grep -q '^value between' "$TMP/out" || fail "SIGINT: no bounds printed: $(head -c 400 "$TMP/out")"
grep -q 'interrupted by SIGINT' "$TMP/err" || fail "SIGINT: not said: $(cat "$TMP/err")"

finish
