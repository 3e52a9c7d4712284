#!/usr/bin/env bash
# CLI acceptance tests of `sowdb probe` (and of the C example play_game, when given).
# Usage: probe_cli_test.sh PATH/TO/sowdb [PATH/TO/play_game]
#
# Builds small tables with `sowdb gen`, then checks: the text report; the --json contract
# (variant, stones, value, depth, result, moves [{pit, worth}], best, line); the stdin bulk mode
# (one object per line, an "error" object for a bad line, exit 1 at the end; the same answers on
# 1, 2 and 3 threads; each answer at once to a co-process that waits for it); and that bad input
# (too many seeds, another board, missing or damaged tables) gives one line on stderr, a non-zero
# exit code below 128, and nothing on stdout.
set -u

if [[ $# -lt 1 || ! -x "$1" ]]; then
  echo "usage: $0 PATH/TO/sowdb [PATH/TO/play_game]" >&2
  exit 2
fi
SOWDB=$1
PLAY=${2:-}
# shellcheck source=cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

# expect PATTERN: the last output matches the extended regular expression.
expect() {
  CHECKS=$((CHECKS + 1))
  if ! grep -Eq -- "$1" "$TMP/out"; then
    fail "output lacks /$1/: $(head -c 400 "$TMP/out")"
  fi
}

# json_check PYTHON-EXPRESSION: every line of the last output is a JSON object `j` for which
# the expression holds.
json_check() {
  CHECKS=$((CHECKS + 1))
  if ! python3 -c '
import json, sys
expr = " ".join(sys.argv[1].split())
lines = [l for l in open(sys.argv[2]) if l.strip()]
assert lines, "no output"
for l in lines:
    j = json.loads(l)
    assert isinstance(j, dict), l
    assert eval(expr), "failed for: " + l[:300]
' "$1" "$TMP/out" 2>"$TMP/pyerr"; then
    fail "JSON check ($1): $(tail -1 "$TMP/pyerr")"
  fi
}

OW="$TMP/oware"
KA="$TMP/kalah"
if ! "$SOWDB" gen --variant oware --max-stones 10 --out "$OW" --quiet --zstd-level 1 ||
  ! "$SOWDB" gen --variant kalah/4x3 --max-stones 12 --out "$KA" --quiet --zstd-level 1; then
  echo "FAIL: sowdb gen could not build the test tables" >&2
  exit 1
fi

# --- text report
good probe --tables "$OW" 0 0 0 0 1 2 2 0 0 3 2 0 && {
  expect '^variant oware/6x4, 10 seeds on the board'
  expect '^value [+-]?[0-9]+ for the mover'
  expect 'final score [0-9]+-[0-9]+'
  expect '<- best'
  expect '^principal line'
  expect '^  +1\. mover +pit [0-5]'
}
# The majority rule: a store with more than half of the game's 48 seeds has decided the game.
good probe --tables "$OW" --stores 25,3 0 0 0 0 1 2 2 0 0 3 2 0 &&
  expect 'already decided: the mover holds 25 of 48 seeds'
# A position of one seed: counts in the singular.
good probe --tables "$OW" --max-plies 1 1 0 0 0 0 0 0 0 0 0 0 1 && {
  expect '^variant oware/6x4, 2 seeds on the board'
  expect '^  \(stopped after 1 ply\)$'
}
good probe --tables "$OW" 0 0 0 0 0 0 1 0 0 0 0 0 && {
  expect '^variant oware/6x4, 1 seed on the board'
  expect 'Final split: mover 0, opponent 1'
}
good probe --tables "$KA" 1 2 0 1 2 1 2 1 && {
  expect '^variant kalah/4x3, 10 seeds'
  expect 'extra turn|gains|end:|endless'
}
# Endless play in the line is named.
good probe --tables "$OW" 1 0 0 0 0 0 1 0 0 0 0 0 && expect 'endless|end:'

# --- JSON contract
good probe --tables "$OW" --json 0 0 0 0 1 2 2 0 0 3 2 0 && json_check '
  j["variant"] == "oware/6x4" and j["stones"] == 10 and isinstance(j["value"], int)
  and isinstance(j["depth"], int) and j["result"] in ("win", "draw", "loss")
  and all(set(m) >= {"pit", "worth"} for m in j["moves"])
  and max(m["worth"] for m in j["moves"]) == j["value"]
  and j["best"] in [m["pit"] for m in j["moves"] if m["worth"] == j["value"]]
  and isinstance(j["line"], list) and len(j["line"]) >= 1 and j["line"][0] == j["best"]
  and len(j["final"]) == 2 and j["line_end"] in ("game_over", "endless", "max_plies")'
# Illegal moves are absent: pit 0 is empty.
json_check 'all(m["pit"] != 0 for m in j["moves"])'
# A finished game: no moves, best is null.
good probe --tables "$KA" --json 0 0 0 0 1 2 0 0 && json_check '
  j["moves"] == [] and j["best"] is None and j["game_over"] and j["value"] == -3'
good probe --tables "$OW" --json --stores 3,1 1 1 1 1 1 1 1 1 1 1 0 0 &&
  json_check 'j["stores"] == [3, 1] and j["final"][0] + j["final"][1] == 14'
# The final score follows from the value (README: the mover ends with stores[0] + (n + v) / 2),
# and the result from the score; checked on positions of value > 0, < 0 and 0.
for pos in "1 1 1 1 1 1 1 1 1 1 0 0" "0 0 0 0 1 2 2 1 0 2 1 0" "0 0 0 0 0 1 1 1 1 1 1 1" \
           "0 0 0 0 1 2 2 0 0 3 2 0"; do
  good probe --tables "$OW" --json --stores 2,1 $pos && json_check '
    j["final"] == [2 + (j["stones"] + j["value"]) / 2, 1 + (j["stones"] - j["value"]) / 2]
    and j["result"] == ("win" if j["value"] > -1 else "loss" if j["value"] < -1 else "draw")
    and not j["decided"]'
done
# The majority rule (docs/RULES.md): a store with more than half of the game's seeds (2PS = 48 on oware/6x4,
# not the stores plus the board) decides the game, either side's.
good probe --tables "$OW" --json --stores 25,3 0 0 0 0 1 2 2 0 0 3 2 0 &&
  json_check 'j["decided"] and j["result"] == "win"'
good probe --tables "$OW" --json --stores 3,25 0 0 0 0 1 2 2 0 0 3 2 0 &&
  json_check 'j["decided"] and j["result"] == "loss"'
good probe --tables "$OW" --json --stores 10,13 0 0 0 0 1 2 2 0 0 3 2 0 &&
  json_check 'not j["decided"]'
# 20 of the 35 seeds given is more than half of those, but not of the game's 48.
good probe --tables "$OW" --json --stores 20,5 0 0 0 0 1 2 2 0 0 3 2 0 &&
  json_check 'not j["decided"] and j["final"][0] + j["final"][1] == 35'
good probe --tables "$OW" --stores 20,5 0 0 0 0 1 2 2 0 0 3 2 0 && {
  CHECKS=$((CHECKS + 1))
  grep -Eq 'already decided|majority' "$TMP/out" &&
    fail "--stores 20,5 with 10 seeds: a majority of 35 seeds reported: $(grep stores "$TMP/out")"
}
# Stores and board that hold every seed of the game: the majority is out of 48.
good probe --tables "$OW" --stores 20,18 0 0 0 0 1 2 2 0 0 3 2 0 &&
  expect 'final score [0-9]+-[0-9]+ \(majority: more than 24 of 48 seeds\)$'

# --- impossible totals: the stores and the board hold more seeds than the game's 2PS
bad probe --tables "$OW" --stores 20,20 0 0 0 0 1 2 2 0 0 3 2 0
[[ $rc_last -eq 2 ]] || fail "--stores 20,20 with 10 seeds: exit code $rc_last, want 2"
grep -q 'stores 20 + 20 and 10 seeds on the board make 50 seeds; a game of oware/6x4 holds 48 (2 x 6 pits x 4 seeds)' \
  "$TMP/err" || fail "--stores 20,20 with 10 seeds: unclear message: $(cat "$TMP/err")"
bad probe --tables "$OW" --json --stores 40,8 1 0 0 0 0 0 0 0 0 0 0 0
grep -q 'make 49 seeds; a game of oware/6x4 holds 48' "$TMP/err" ||
  fail "--stores 40,8 with 1 seed: unclear message: $(cat "$TMP/err")"
for stores in 40,40 256,0 0,256 99999999999,0 99999999999999999999999999,1; do
  bad probe --tables "$OW" --stores "$stores" 1 0 0 0 0 0 0 0 0 0 0 0
  [[ $rc_last -eq 2 ]] || fail "--stores $stores: exit code $rc_last, want 2"
  grep -q -- "--stores $stores: the stores alone hold more than a game of oware/6x4, which has 48 seeds" \
    "$TMP/err" || fail "--stores $stores: the message lacks the limit: $(cat "$TMP/err")"
done
# Exactly the game's seeds is possible.
good probe --tables "$OW" --json --stores 30,8 0 0 0 0 1 2 2 0 0 3 2 0 &&
  json_check 'j["final"][0] + j["final"][1] == 48 and j["decided"]'
# Bulk mode: an impossible line is a bad line (an error object, the stream goes on, exit 1);
# stores impossible for every line are refused at once (exit 2).
CHECKS=$((CHECKS + 1))
printf '0 0 0 0 1 2 2 0 0 3 2 0\n1 1 1 1 1 1 1 1 1 0 0 0\n0 0 0 0 1 2 2 0 0 3 2 0\n' |
  "$SOWDB" probe --tables "$OW" --json --max-plies 0 --stores 30,9 - >"$TMP/out" 2>"$TMP/err"
rc=$?
[[ $rc -eq 1 ]] || fail "bulk mode with an impossible line: exit code $rc, want 1"
[[ $(wc -l <"$TMP/out") -eq 3 ]] || fail "bulk mode with an impossible line: want 3 lines"
json_check '("error" in j) == (j.get("line") == 1 or j.get("line") == 3)
  and ("error" not in j or "make 49 seeds; a game of oware/6x4 holds 48" in j["error"])'
bad probe --tables "$OW" --json --stores 256,0 -
[[ $rc_last -eq 2 ]] || fail "bulk mode with --stores 256,0: exit code $rc_last, want 2"

# --- stdin bulk mode
CHECKS=$((CHECKS + 1))
printf '0 0 0 0 1 2 2 0 0 3 2 0\n\n1 1 1 1 1 1 1 1 1 1 0 0\n' |
  "$SOWDB" probe --tables "$OW" --json - >"$TMP/out" 2>"$TMP/err"
rc=$?
[[ $rc -eq 0 ]] || fail "bulk mode, good lines: exit code $rc: $(cat "$TMP/err")"
[[ $(wc -l <"$TMP/out") -eq 2 ]] || fail "bulk mode: want 2 lines, got $(wc -l <"$TMP/out")"
json_check '"value" in j and "moves" in j and "best" in j and "line" in j'

CHECKS=$((CHECKS + 1))
printf '0 0 0 0 1 2 2 0 0 3 2 0\n1 2 3\n9 9 9 9 9 9 0 0 0 0 0 0\nx 0 0 0 0 0 0 0 0 0 0 1\n1 1 1 1 1 1 1 1 1 1 0 0\n' |
  "$SOWDB" probe --tables "$OW" --search-time 0 --json - >"$TMP/out" 2>"$TMP/err"
rc=$?
[[ $rc -ne 0 && $rc -lt 128 ]] || fail "bulk mode with bad lines: exit code $rc, want 1"
[[ $(wc -l <"$TMP/out") -eq 5 ]] || fail "bulk mode: want 5 lines, got $(wc -l <"$TMP/out")"
json_check '("error" in j) == (j.get("line") in (2, 3, 4))'
grep -q '"error":"position has 54 seeds; tables in .* hold up to 10"' "$TMP/out" ||
  fail "bulk mode: no too-many-seeds error line: $(cat "$TMP/out")"

# Blank and whitespace-only lines are skipped; garbage, a CR line end and bytes that are not
# UTF-8 give an error object (or, for the CR, an answer), never a crash.
CHECKS=$((CHECKS + 1))
printf '\n   \n\t\ngarbage\n\x00\xff\xfe\n1,1,1,1,1,1,1,1,1,1,0,0\n1 1 1 1 1 1 1 1 1 1 0 0\r\n' |
  "$SOWDB" probe --tables "$OW" --json - >"$TMP/out" 2>"$TMP/err"
rc=$?
[[ $rc -eq 1 ]] || fail "bulk mode with garbage lines: exit code $rc, want 1"
[[ ! -s "$TMP/err" ]] || fail "bulk mode with garbage lines: wrote to stderr: $(cat "$TMP/err")"
[[ $(wc -l <"$TMP/out") -eq 4 ]] || fail "bulk mode with garbage: want 4 lines, got $(wc -l <"$TMP/out")"
json_check '("error" in j) == (j.get("line") in (4, 5, 6))'

# A huge bad line is not echoed whole: its first 200 bytes and its size. Nor is a huge word
# quoted whole in the message.
CHECKS=$((CHECKS + 1))
python3 -c '
import sys
sys.stdout.write("x" * 10000000 + "\n" + " ".join(["7" * 1000000] * 12) + "\n")' |
  "$SOWDB" probe --tables "$OW" --json - >"$TMP/out" 2>"$TMP/err"
rc=$?
[[ $rc -eq 1 ]] || fail "bulk mode with a 10 MB line: exit code $rc, want 1"
[[ $(wc -c <"$TMP/out") -lt 2000 ]] ||
  fail "bulk mode with a 10 MB line: $(wc -c <"$TMP/out") bytes of output echo it"
json_check 'j["input"] == ("x" * 200 + "... (10000000 bytes)" if j["line"] == 1
  else "7" * 200 + "... (12000011 bytes)") and len(j["error"]) < 300'

# Bulk mode looks the lines that have arrived up in batches (of up to 4096 lines) spread over
# the threads: the answers are the same, in the same order, for every thread count, across
# batches (blank lines, bad lines and a last line without a line end included). The lines of
# 54 seeds stay refusals (--search-time 0): this is about lookups in the tables.
CHECKS=$((CHECKS + 1))
python3 - "$TMP/many" <<'PY'
import random, sys
random.seed(7)
lines = []
for i in range(5000):
    if i % 97 == 5:
        lines.append("")
    elif i % 89 == 7:
        lines.append("1 2 3")
    elif i % 83 == 11:
        lines.append("9 9 9 9 9 9 0 0 0 0 0 0")
    else:
        n = random.randint(0, 10)
        pits = [0] * 12
        for _ in range(n):
            pits[random.randrange(12)] += 1
        lines.append(" ".join(map(str, pits)))
open(sys.argv[1], "w").write("\n".join(lines))
PY
for t in 1 2 3; do
  "$SOWDB" probe --tables "$OW" --json --max-plies 20 --threads "$t" --search-time 0 - \
    <"$TMP/many" \
    >"$TMP/many.$t" 2>"$TMP/err"
  rc=$?
  [[ $rc -eq 1 ]] || fail "bulk mode on $t threads: exit code $rc, want 1 (bad lines)"
  [[ ! -s "$TMP/err" ]] || fail "bulk mode on $t threads wrote to stderr: $(head -3 "$TMP/err")"
done
# The answer of line k names line k: numbering goes on across batches.
python3 - "$TMP/many" "$TMP/many.1" <<'PY' || fail "bulk mode: error objects name the wrong line"
import json, sys
lines = open(sys.argv[1]).read().split("\n")
for a in map(json.loads, open(sys.argv[2])):
    if "error" in a:
        assert lines[a["line"] - 1] == a["input"], a
PY
blank=$(python3 -c 'print(sum(1 for i in range(5000) if i % 97 == 5))')
[[ $(wc -l <"$TMP/many.1") -eq $((5000 - blank)) ]] ||
  fail "bulk mode: want $((5000 - blank)) answers ($blank of 5000 lines blank): $(wc -l <"$TMP/many.1")"
cmp -s "$TMP/many.1" "$TMP/many.2" && cmp -s "$TMP/many.1" "$TMP/many.3" ||
  fail "bulk mode: the answers differ between 1, 2 and 3 threads"
# The block cache changes the time, never an answer: none, one block, and bulk mode's default.
for c in 0 1; do
  "$SOWDB" probe --tables "$OW" --json --max-plies 20 --cache-blocks "$c" --search-time 0 - \
    <"$TMP/many" \
    >"$TMP/many.c$c" 2>/dev/null
  cmp -s "$TMP/many.1" "$TMP/many.c$c" || fail "bulk mode: --cache-blocks $c changes the answers"
done
cp "$TMP/many.1" "$TMP/out"
json_check '("error" in j) == (j.get("input") in ("1 2 3", "9 9 9 9 9 9 0 0 0 0 0 0"))'
bad probe --tables "$OW" --json --threads 0 -
bad probe --tables "$OW" --json --cache-blocks -1 -
[[ $rc_last -eq 2 ]] || fail "--cache-blocks -1: exit code $rc_last, want 2"
# With one position --threads is its search's (above the tables): 14 seeds over 0..12, proved
# on 1 and 2 threads alike (only the positions searched and the seconds may differ).
for t in 1 2; do
  "$SOWDB" probe --tables "$KA" --json --no-proof-store --search-time 600 --threads "$t" \
    3 2 2 1 2 2 1 1 >"$TMP/t$t" || fail "--threads $t with one position: exit code $?"
done
/usr/bin/python3 - "$TMP/t1" "$TMP/t2" <<'PY' || fail "--threads 2 changes the answer of one position"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for j in (a, b):
    assert j["method"] == "search" and j["search"]["complete"], j["search"]
    for k in ("positions", "seconds", "value_seconds", "best_seconds"):
        j["search"][k] = None
assert a == b
PY

# A program that writes one line and waits for its answer (an engine using sowdb probe as a
# co-process) gets each answer before it writes the next line or closes the input.
CHECKS=$((CHECKS + 1))
coproc PROBE { timeout 120 "$SOWDB" probe --tables "$OW" --json --threads 2 - 2>/dev/null; }
# Bash unsets PROBE_PID once the co-process has exited, which may be before the wait below.
probe_pid=$PROBE_PID
answers=0
for q in "0 0 0 0 1 2 2 0 0 3 2 0" "1 1 1 1 1 1 1 1 1 1 0 0" "1 2 3"; do
  echo "$q" >&"${PROBE[1]}"
  if read -t 30 -r reply <&"${PROBE[0]}" &&
    [[ $reply == *'"input":"1 2 3"'* || $reply == *'"value"'* ]]; then
    answers=$((answers + 1))
  fi
done
exec {PROBE[1]}>&-
wait "$probe_pid"
rc=$?
[[ $answers -eq 3 ]] ||
  fail "bulk mode as a co-process: $answers of 3 answers came while the input stayed open"
[[ $rc -eq 1 ]] || fail "bulk mode as a co-process: exit code $rc, want 1 (a bad line)"

# A caller may hand over a non-blocking pipe: the command waits for input (it used to take the
# first "no data yet" for the end of the input and stop without a word).
CHECKS=$((CHECKS + 1))
if ! python3 - "$SOWDB" "$OW" <<'PY' 2>"$TMP/pyerr"; then
import fcntl, os, select, subprocess, sys
r, w = os.pipe()
fcntl.fcntl(r, fcntl.F_SETFL, fcntl.fcntl(r, fcntl.F_GETFL) | os.O_NONBLOCK)
p = subprocess.Popen([sys.argv[1], "probe", "--tables", sys.argv[2], "--json", "-"], stdin=r,
                     stdout=subprocess.PIPE)
os.close(r)
answers = []
for line in (b"0 0 0 0 1 2 2 0 0 3 2 0\n", b"1 1 1 1 1 1 1 1 1 1 0 0\n"):
    os.write(w, line)
    # A bounded wait: a program that never answers fails the check instead of hanging it.
    assert select.select([p.stdout], [], [], 60)[0], "no answer within 60 s"
    answers.append(p.stdout.readline())
os.close(w)
p.wait(timeout=60)
assert all(b'"value"' in a for a in answers), answers
assert p.returncode == 0, p.returncode
PY
  fail "bulk mode on a non-blocking pipe: $(tail -1 "$TMP/pyerr")"
fi

# --- errors
bad probe --tables "$OW" --search-time 0 9 9 9 9 9 9 0 0 0 0 0 0
grep -q 'position has 54 seeds; tables in .* hold up to 10' "$TMP/err" ||
  fail "too many seeds: unclear message: $(cat "$TMP/err")"
bad probe --tables "$KA" 1 1 1 1 1 1 1 1 1 1 1 1
grep -q 'kalah/4x3' "$TMP/err" || fail "pit count: message does not name the board: $(cat "$TMP/err")"
bad probe --tables "$OW" 1 1 1
bad probe --tables "$OW" 1 1 1 1 1 1 1 1 1 1 1 -1
bad probe --tables "$OW" --stores 1 1 1 1 1 1 1 1 1 1 1 1 0
for stores in a,b -1,2 99999999999,0 1,2,3 , 0,256 " 1,2"; do
  bad probe --tables "$OW" --stores "$stores" 1 1 1 1 1 1 1 1 1 1 0 0
done
bad probe --tables "$OW" 99999999999999999999 0 0 0 0 0 0 0 0 0 0 0
grep -q 'out of range' "$TMP/err" || fail "a huge pit count: unclear message: $(cat "$TMP/err")"
bad probe --tables "" 1 1 1 1 1 1 1 1 1 1 1 1
# Output that cannot be written (a full disk: /dev/full) is an error, not a silent exit 0.
if [[ -w /dev/full ]]; then
  for mode in text json; do
    CHECKS=$((CHECKS + 1))
    args=(probe --tables "$OW")
    [[ $mode == json ]] && args+=(--json)
    "$SOWDB" "${args[@]}" 1 1 1 1 1 1 1 1 1 1 0 0 >/dev/full 2>"$TMP/err"
    rc=$?
    [[ $rc -eq 1 ]] || fail "$mode output to a full disk: exit code $rc, want 1"
    grep -q '^sowdb: error: writing standard output' "$TMP/err" ||
      fail "$mode output to a full disk: unclear message: $(cat "$TMP/err")"
  done
  CHECKS=$((CHECKS + 1))
  printf '1 1 1 1 1 1 1 1 1 1 0 0\n' |
    "$SOWDB" probe --tables "$OW" --json - >/dev/full 2>"$TMP/err"
  rc=$?
  [[ $rc -eq 1 ]] || fail "bulk output to a full disk: exit code $rc, want 1"
fi
bad probe --tables "$OW" 1 1 1 1 1 1 1 1 1 1 0 0 -
bad probe --tables "$TMP/no-such-dir" 1 1 1 1 1 1 1 1 1 1 1 1
mkdir -p "$TMP/empty"
bad probe --tables "$TMP/empty" 1 1 1 1 1 1 1 1 1 1 1 1
# A directory that is not usable is bad input: exit 2, as in verify and stats.
[[ $rc_last -eq 2 ]] || fail "an empty table directory: exit code $rc_last, want 2"
mkdir -p "$TMP/manifest-only"
cp "$OW/sowdb.json" "$TMP/manifest-only/"
bad probe --tables "$TMP/manifest-only" 1 1 1 1 1 1 1 1 1 1 1 1
bad probe --tables "$OW" - # stdin needs --json
# A missing and a damaged layer file.
cp -r "$OW" "$TMP/damaged"
rm "$TMP/damaged/layer-004.sdb"
bad probe --tables "$TMP/damaged" 1 1 1 1 1 1 0 0 0 0 0 0
grep -q 'layer-004.sdb is missing' "$TMP/err" || fail "a gap at layer 4: $(cat "$TMP/err")"
cp -r "$OW" "$TMP/corrupt"
f="$TMP/corrupt/layer-006.sdb"
size=$(stat -c %s "$f")
printf '\x5a\x5a\x5a\x5a' | dd of="$f" bs=1 seek=$((size / 2)) conv=notrunc status=none
bad probe --tables "$TMP/corrupt" 1 1 1 1 1 1 0 0 0 0 0 0
grep -q 'layer-006.sdb' "$TMP/err" || fail "corrupt layer: message does not name the file: $(cat "$TMP/err")"
truncate -s 100 "$TMP/corrupt/layer-007.sdb"
bad probe --tables "$TMP/corrupt" 1 1 1 1 1 1 1 0 0 0 0 0

# --- the C example
if [[ -n "$PLAY" ]]; then
  CHECKS=$((CHECKS + 1))
  if ! "$PLAY" "$KA" >"$TMP/out" 2>"$TMP/err"; then
    fail "play_game $KA: exit code $?: $(cat "$TMP/err")"
  fi
  expect '^final score: A [0-9]+, B [0-9]+ .*as the value [+-][0-9]+ predicted'
  CHECKS=$((CHECKS + 1))
  if ! "$PLAY" "$OW" 0 0 0 0 1 2 2 0 0 3 2 0 >"$TMP/out" 2>"$TMP/err"; then
    fail "play_game $OW POSITION: $(cat "$TMP/err")"
  fi
  expect '^final score'
  CHECKS=$((CHECKS + 1))
  "$PLAY" "$OW" 9 9 9 9 9 9 0 0 0 0 0 0 >"$TMP/out" 2>"$TMP/err"
  rc=$?
  [[ $rc -ne 0 && $rc -lt 128 ]] || fail "play_game with too many seeds: exit code $rc"
  grep -q 'hold up to 10' "$TMP/err" || fail "play_game: unclear error: $(cat "$TMP/err")"
fi

finish
