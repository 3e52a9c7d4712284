#!/usr/bin/env bash
# `sowdb solve --board ... --stores A,B` (issue 41): any position in place of the start, its value
# and every move's worth equal to complete tables' over tables that stop below it; an Oware
# position's bounds hold the complete tables' value; the stores give the result and the final
# score as probe gives them; bad input is refused in one line with exit 2.
# Usage: solve_position_test.sh SOWDB
set -euo pipefail
sowdb="$1"
# shellcheck source=strict_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/strict_lib.sh"
export SOWDB_CACHE_DIR="${dir}/cache"

"${sowdb}" gen --variant kalah-irving/4x3 --max-stones 24 --out "${dir}/kalah-all" --quiet
"${sowdb}" gen --variant kalah-irving/4x3 --max-stones 10 --out "${dir}/kalah-few" --quiet
"${sowdb}" gen --variant oware/4x3 --max-stones 16 --out "${dir}/oware-all" --quiet
"${sowdb}" gen --variant oware/4x3 --max-stones 12 --out "${dir}/oware-few" --quiet

# compare VARIANT FEW ALL STORES PITS...: solve over FEW against probe over ALL (complete).
# An Oware search may stop at its limit: its bounds must then hold the exact values.
compare() {
  local variant=$1 few=$2 all=$3 stores=$4
  shift 4
  "${sowdb}" solve --variant "${variant}" --tables "${few}" --threads 1 --time-limit 20 \
    --board "$@" --stores "${stores}" --json >"${dir}/solve.json"
  "${sowdb}" probe --tables "${all}" --stores "${stores}" --json "$@" >"${dir}/probe.json"
  python3 - "${dir}/solve.json" "${dir}/probe.json" "$*" <<'PY' || fail "solve --board $*"
import json, sys
s, p = (json.load(open(f)) for f in sys.argv[1:3])
board = [int(x) for x in sys.argv[3].split()]
assert s["position"] == board, s["position"]
assert s["stones"] == sum(board), s["stones"]
assert s["method"] == "search", s["method"]
assert s["lower"] <= p["value"] <= s["upper"], (s["lower"], s["upper"], p["value"])
worth = {m["pit"]: m["worth"] for m in p["moves"]}
assert sorted(worth) == [m["pit"] for m in s["moves"]], (worth, s["moves"])
for m in s["moves"]:
    assert m["lower"] <= worth[m["pit"]] <= m["upper"], (m, worth[m["pit"]])
if s["complete"]:
    assert s["value"] == p["value"], (s["value"], p["value"])
    assert all(m["worth"] == worth[m["pit"]] for m in s["moves"]), (s["moves"], worth)
    assert s["result"] == p["result"] and s["final"] == p["final"], (s, p)
    assert s["best"] in [m["pit"] for m in p["moves"] if m["worth"] == p["value"]], s["best"]
else:
    assert s["value"] is None and s["final"] is None, s
PY
}

compare kalah-irving/4x3 "${dir}/kalah-few" "${dir}/kalah-all" 0,0 3 3 3 3 3 3 3 3
compare kalah-irving/4x3 "${dir}/kalah-few" "${dir}/kalah-all" 2,1 3 0 4 2 1 5 0 3
compare kalah-irving/4x3 "${dir}/kalah-few" "${dir}/kalah-all" 5,3 0 1 0 7 2 2 0 4
compare kalah-irving/4x3 "${dir}/kalah-few" "${dir}/kalah-all" 0,4 6 0 0 1 1 0 9 3
compare oware/4x3 "${dir}/oware-few" "${dir}/oware-all" 4,4 2 2 2 2 2 2 2 2
compare oware/4x3 "${dir}/oware-few" "${dir}/oware-all" 6,2 4 0 3 1 0 2 5 0

# Every Kalah comparison above is exact (the search over 0..10 ends): check one again for it.
"${sowdb}" solve --variant kalah-irving/4x3 --tables "${dir}/kalah-few" --threads 1 \
  --board 3 0 4 2 1 5 0 3 --stores 2,1 --json >"${dir}/solve.json"
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['complete'] and \
j['value'] is not None, j" "${dir}/solve.json" || fail "kalah position not exact"

# The text names the position and the result with the stores.
"${sowdb}" solve --variant kalah-irving/4x3 --tables "${dir}/kalah-few" --threads 1 \
  --board 3 0 4 2 1 5 0 3 --stores 2,1 >"${dir}/out"
grep -q "the position 3 0 4 2 1 5 0 3, 18 seeds on the board" "${dir}/out" || fail "$(cat "${dir}/out")"
grep -q "^value for the mover: " "${dir}/out" || fail "$(cat "${dir}/out")"
grep -q "^stores 2 (mover) and 1 (opponent): the mover " "${dir}/out" || fail "$(cat "${dir}/out")"

# Bad input: one line, exit 2, before any work.
fails_with 2 "--stores goes with --board" solve --variant kalah-irving/4x3 --stores 1,1
fails_with 2 "expected 8 pit counts" solve --variant kalah-irving/4x3 --board 1 2 3
fails_with 2 "a game of kalah-irving/4x3 holds 24" solve --variant kalah-irving/4x3 \
  --tables "${dir}/kalah-few" --board 3 3 3 3 3 3 3 3 --stores 20,4
fails_with 2 "--stores wants A,B" solve --variant kalah-irving/4x3 --board 3 3 3 3 3 3 3 3 \
  --stores 1
fails_with 2 "nor --board" solve --variant kalah-irving/4x3 --objective cooperative \
  --board 3 3 3 3 3 3 3 3
# The start of an Oware-family game keeps its refusal without complete tables.
fails_with 2 "without complete tables" solve --variant oware/4x3 --tables "${dir}/oware-few"
echo "solve_position: passed"
