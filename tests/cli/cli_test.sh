#!/usr/bin/env bash
# CLI acceptance tests of `sowdb show` and `sowdb variants`.
# Usage: cli_test.sh PATH/TO/sowdb
#
# Bad input must give exactly one line on stderr, nothing on stdout, and a non-zero exit code
# below 128 (no crash). Good input exits 0; --json output is one JSON object with the fields
# variant, pits, stones and moves.
set -u

if [[ $# -ne 1 || ! -x "$1" ]]; then
  echo "usage: $0 PATH/TO/sowdb" >&2
  exit 2
fi
SOWDB=$1
# shellcheck source=cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

# json_check PYTHON_EXPRESSIONS...: $TMP/out parses as JSON, and each expression holds of `j`,
# the object in it.
cat >"$TMP/check.py" <<'EOF'
import json, sys
j = json.load(sys.stdin)
for field in ("variant", "pits", "stones", "moves"):
    assert field in j, "missing field " + field
assert isinstance(j["pits"], list) and all(isinstance(x, int) and x >= 0 for x in j["pits"])
assert j["stones"] == sum(j["pits"]), "stones != sum(pits)"
assert isinstance(j["moves"], list)
for m in j["moves"]:
    assert len(m["result"]) == len(j["pits"]), "result has the wrong length"
    assert sum(m["result"]) + m["captured"] + m["stored"] == j["stones"], "seeds not conserved"
for expr in sys.argv[1:]:
    assert eval(expr, {"j": j}), "does not hold: " + expr
EOF
json_check() {
  CHECKS=$((CHECKS + 1))
  if ! python3 -c 'import json,sys; json.load(sys.stdin)' <"$TMP/out" 2>"$TMP/py"; then
    fail "output does not parse as JSON: $(tail -n 1 "$TMP/py")"
  elif ! python3 "$TMP/check.py" "$@" <"$TMP/out" 2>"$TMP/py"; then
    fail "json: $(tail -n 1 "$TMP/py") in: $(head -c 300 "$TMP/out")"
  fi
}

TWELVE=(1 1 1 1 1 1 1 1 1 1 1 1)

# --- a mistyped command names itself and the commands there are --------------------------
bad prob --tables x 1 1
grep -q "unknown command 'prob' (commands: variants, show, gen, probe" "$TMP/err" ||
  fail "mistyped command: unclear message: $(cat "$TMP/err")"

# --- bad input to `sowdb show` -------------------------------------------------------------
bad show --variant oware 1 1 1                      # too few pits
bad show --variant oware "${TWELVE[@]}" 1           # too many pits
bad show --variant oware                            # no pits at all
bad show --variant oware -1 1 1 1 1 1 1 1 1 1 1 1   # negative count, first
bad show --variant oware 1 1 1 1 1 -3 1 1 1 1 1 1   # negative count, in the middle
bad show --variant oware 1 1 1 1 1 1 1 1 1 1 1 -1   # negative count, last
bad show --variant oware x 1 1 1 1 1 1 1 1 1 1 1    # non-numeric
bad show --variant oware 1.5 1 1 1 1 1 1 1 1 1 1 1  # not whole
bad show --variant oware "" 1 1 1 1 1 1 1 1 1 1 1   # empty
bad show --variant oware 99999999999999999999 1 1 1 1 1 1 1 1 1 1 1
bad show --variant oware 200 100 0 0 0 0 0 0 0 0 0 0  # more than 255 seeds
bad show --variant nosuch "${TWELVE[@]}"            # unknown variant
bad show --variant "" "${TWELVE[@]}"
bad show --variant oware --pits 9 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
bad show --variant oware --pits 0 "${TWELVE[@]}"
bad show --variant oware --pits -1 1 1
bad show --variant oware --pits x 1 1
bad show --variant oware/9x4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
bad show --variant oware/0x4 1 1
bad show --variant oware/6x0 "${TWELVE[@]}"
bad show --variant oware/8x16 "${TWELVE[@]}"
bad show --variant oware/2x60 --pits 8 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1  # 960 seeds after --pits
bad show --variant oware/3x4 --pits 2 1 1 1  # too few pits for the overriding board
bad show --variant oware/6x4/grand_slam=maybe "${TWELVE[@]}"
bad show --variant kalah/6x4/grand_slam=capture "${TWELVE[@]}"
bad show "${TWELVE[@]}"                             # missing --variant
bad show --variant oware --bogus "${TWELVE[@]}"
bad nosuchcommand
bad

# --- integer options: a value that is not a number says so -----------------------------------
# (CLI11's range check used to say "Value abc not in range 0 to 127".) Every integer option of
# every command, each in an otherwise complete command line.
while read -r opt rest; do
  # shellcheck disable=SC2086  # the arguments are split on purpose
  bad $rest "$opt" abc
  [[ $rc_last -eq 2 ]] || fail "$rest $opt abc: exit code $rc_last, want 2"
  grep -q -- "^sowdb: error: $opt: 'abc' is not a number" "$TMP/err" ||
    fail "$rest $opt abc: message: $(cat "$TMP/err")"
done <<EOF2
--pits show --variant oware 1 1 1 1 1 1 1 1 1 1 1 1
--pits gen --variant oware --max-stones 3 --out $TMP/never
--max-stones gen --variant oware --out $TMP/never
--threads gen --variant oware --max-stones 3 --out $TMP/never
--block-entries gen --variant oware --max-stones 3 --out $TMP/never
--zstd-level gen --variant oware --max-stones 3 --out $TMP/never
--memory-limit gen --variant oware --max-stones 3 --out $TMP/never
--max-plies probe --tables $TMP/never 1 1 1 1 1 1 1 1 1 1 1 1
--threads probe --tables $TMP/never --json -
--cache-blocks probe --tables $TMP/never 1 1 1 1 1 1 1 1 1 1 1 1
--max-stones verify --tables $TMP/never
--threads verify --tables $TMP/never
--max-stones stats --tables $TMP/never
--threads stats --tables $TMP/never
EOF2
bad gen --variant oware --max-stones 1.5 --out "$TMP/never"
grep -q -- "--max-stones: '1.5' is not a whole number" "$TMP/err" ||
  fail "--max-stones 1.5: message: $(cat "$TMP/err")"
bad gen --variant oware --max-stones 200 --out "$TMP/never"  # a number, out of range
grep -q -- "--max-stones: Value 200 not in range" "$TMP/err" ||
  fail "--max-stones 200: message: $(cat "$TMP/err")"
[[ ! -e "$TMP/never" ]] || fail "a refused command created its --out"

# --- output that cannot be written (a full disk) fails, help and version included -----------
if [[ -w /dev/full ]]; then
  for args in "--help" "--version" "probe --help" "gen --help" "variants" \
              "show --variant oware 1 1 1 1 1 1 1 1 1 1 1 1"; do
    CHECKS=$((CHECKS + 1))
    # shellcheck disable=SC2086  # the arguments are split on purpose
    "$SOWDB" $args >/dev/full 2>"$TMP/err"
    rc=$?
    [[ $rc -eq 1 ]] || fail "sowdb $args >/dev/full: exit code $rc, want 1"
    [[ $(wc -l <"$TMP/err") -eq 1 ]] &&
      grep -q '^sowdb: error: writing standard output: No space left on device$' "$TMP/err" ||
      fail "sowdb $args >/dev/full: stderr: $(cat "$TMP/err")"
  done
fi

# --- good input ----------------------------------------------------------------------------
# docs/RULES.md's reference position: six moves; the last captures 3.
if good show --variant oware --json 1 1 1 1 1 2 4 2 3 0 0 0; then
  json_check 'j["variant"] == "oware/6x4"' 'j["pits"] == [1,1,1,1,1,2,4,2,3,0,0,0]' \
    'j["stones"] == 16' 'len(j["moves"]) == 6' '[m["pit"] for m in j["moves"]] == [0,1,2,3,4,5]' \
    '[m["captured"] for m in j["moves"]] == [0,0,0,0,0,3]' \
    'j["moves"][5]["result"] == [5,0,3,0,0,0,1,1,1,1,1,0]' 'j["game_over"] is False'
fi
# Flags may come after the pit counts.
if good show --variant kalah 4 4 4 4 4 4 4 4 4 4 4 4 --json; then
  json_check 'j["variant"] == "kalah/6x4"' 'j["stones"] == 48' 'len(j["moves"]) == 6' \
    '[m["extra_turn"] for m in j["moves"]] == [False,False,True,False,False,False]' \
    'j["moves"][2]["result"] == [4,4,0,5,5,5,4,4,4,4,4,4]' 'j["moves"][2]["stored"] == 1'
fi
# --pits overrides the board of the variant.
if good show --variant abapa --pits 2 --json 0 3 1 0; then
  json_check 'j["variant"] == "abapa/2x4"' 'j["pits"] == [0,3,1,0]' 'len(j["moves"]) == 1'
fi
if good show --variant wari-us/3x2/skip_origin=on --json 1 0 0 0 2 0; then
  json_check 'j["variant"] == "wari-us/3x2/skip_origin=on"' 'j["moves"][0]["captured"] == 2'
fi
# A finished game: no legal move and the final split.
if good show --variant oware --json 3 2 1 1 0 0 0 0 0 0 0 0; then
  json_check 'j["moves"] == []' 'j["game_over"] is True' 'j["final_value"] == 7'
fi
# One seed: in the singular.
if good show --variant oware 1 0 0 0 0 0 0 0 0 0 0 0; then
  CHECKS=$((CHECKS + 1))
  grep -q '^variant oware/6x4, 1 seed on the board$' "$TMP/out" ||
    fail "show with one seed: $(head -1 "$TMP/out")"
fi
# The text form.
if good show --variant ayo 0 1 0 4 1 17 0 0 1 1 1 0; then
  CHECKS=$((CHECKS + 1))
  grep -q 'captures 15, grand slam' "$TMP/out" || fail "show text: no 'captures 15, grand slam'"
fi

# --- sowdb variants --------------------------------------------------------------------------
PRESETS=(oware abapa warri wari-modar ayo wari-pbm wari-kc kalah kalah-tournament kalah-irving
  wari-us)
if good variants; then
  for p in "${PRESETS[@]}"; do
    CHECKS=$((CHECKS + 1))
    grep -q "^$p " "$TMP/out" || fail "sowdb variants does not list $p"
  done
fi
if good variants --json; then
  CHECKS=$((CHECKS + 1))
  names=$(python3 -c '
import json, sys
print(" ".join(json.loads(line)["name"] for line in sys.stdin if line.strip()))' <"$TMP/out") ||
    fail "sowdb variants --json: a line does not parse"
  [[ "$names" == "${PRESETS[*]}" ]] || fail "sowdb variants --json lists '$names'"
fi

finish
