#!/usr/bin/env bash
# Co-operative tables from the command line: `gen --objective cooperative`, `probe` (the JSON
# contract: balanced, reachable, balancing_moves, line), `verify`, `stats`, and the refusals
# (a competitive question to co-operative tables and the reverse, an unknown objective).
# Usage: cooperative_cli_test.sh SOWDB
set -euo pipefail
sowdb="$1"
dir="$(mktemp -d)"
trap 'rm -rf "${dir}"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"${sowdb}" gen --variant wari-kc/3x2 --max-stones 12 --out "${dir}/coop" --objective cooperative \
  --json >"${dir}/gen.json"
"${sowdb}" gen --variant wari-kc/3x2 --max-stones 8 --out "${dir}/values" --quiet
# The start position of wari-kc/3x2 (12 seeds) from the tables, as `solve` computes it in memory.
"${sowdb}" probe --tables "${dir}/coop" --json 2 2 2 2 2 2 >"${dir}/start.json"
"${sowdb}" solve --variant wari-kc/3x2 --objective cooperative --json >"${dir}/solve.json"
"${sowdb}" solve --variant wari-kc/3x2 --objective cooperative --tables "${dir}/coop" --json \
  >"${dir}/solve-tables.json"
"${sowdb}" probe --tables "${dir}/coop" --stores 1,3 --json 2 0 1 1 2 0 >"${dir}/mid.json"
python3 - "${dir}" <<'PY' || fail "probe --json on co-operative tables"
import json, sys
d = sys.argv[1]
lines = [json.loads(l) for l in open(f"{d}/gen.json")]
assert lines[-1]["summary"] and lines[-1]["objective"] == "cooperative", lines[-1]
start, solve, mid, st = (json.load(open(f"{d}/{x}.json"))
                         for x in ("start", "solve", "mid", "solve-tables"))
assert st["method"] == "tables" and solve["method"] == "memory", (st, solve)
for f in ("reachable", "balanced", "balancing_moves", "moves"):
    assert st[f] == solve[f], (f, st[f], solve[f])
for j in (start, mid):
    for f in ("variant", "objective", "pits", "stones", "stores", "balanced", "reachable",
              "balancing_moves", "moves", "line", "line_end"):
        assert f in j, (f, j)
    assert j["objective"] == "cooperative"
    assert j["balanced"] == (j["stores"][1] - j["stores"][0] in j["reachable"]), j
    assert j["balancing_moves"] == [m["pit"] for m in j["moves"] if m["balancing"]], j
    assert sorted(set(d for m in j["moves"] for d in m["reachable"])) <= j["reachable"], j
    if j["balanced"]:
        assert j["line"] and j["line"][0] in j["balancing_moves"], j
        assert j["line_end"] in ("game_over", "endless"), j
assert start["reachable"] == solve["reachable"], (start["reachable"], solve["reachable"])
assert start["balancing_moves"] == solve["balancing_moves"], (start, solve)
assert mid["stones"] == 6 and mid["stores"] == [1, 3] and mid["target"] == 2, mid
PY
# The line replays under the rules (`sowdb show`-free: the gains and the end are in the steps),
# and the stores end level: the gains along it plus the seeds each side keeps at its end.
python3 - "${dir}/mid.json" <<'PY' || fail "the line does not end balanced"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["balanced"], j
stores = list(j["stores"])
for s in j["line_steps"]:
    stores[s["mover"]] += s["gain"]
last, who = j["line_last"], j["line_last_mover"]
assert sum(last) == 6 + sum(j["stores"]) - sum(stores), (last, stores)
if j["line_end"] == "game_over":
    # Nobody can move on: the seeds on each side go to their owner (wari-kc's end).
    stores[who] += sum(last[:3])
    stores[1 - who] += sum(last[3:])
else:
    left = 6 + j["stores"][0] + j["stores"][1] - sum(stores)
    stores = [s + left / 2 for s in stores]
assert stores[0] == stores[1], stores
PY
# Bulk mode answers the same objects, and an error object for a line it cannot look up.
printf '2 0 1 1 2 0\n9 9 9 9 9 9\n' |
  "${sowdb}" probe --tables "${dir}/coop" --stores 1,3 --json - >"${dir}/bulk.json" && rc=0 || rc=$?
[[ ${rc} -eq 1 ]] || fail "bulk mode with a bad line exited ${rc}, expected 1"
python3 - "${dir}" <<'PY' || fail "bulk mode on co-operative tables"
import json, sys
d = sys.argv[1]
lines = [json.loads(l) for l in open(f"{d}/bulk.json")]
mid = json.load(open(f"{d}/mid.json"))
assert lines[0] == mid, (lines[0], mid)
assert "error" in lines[1] and lines[1]["line"] == 2, lines[1]
PY
"${sowdb}" verify --tables "${dir}/coop" --json >"${dir}/verify.json"
python3 - "${dir}/verify.json" <<'PY' || fail "verify --json on co-operative tables"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert lines[-1]["summary"] and lines[-1]["verified"] and lines[-1]["objective"] == "cooperative"
assert lines[-1]["positions"] == sum(l["positions"] for l in lines[:-1])
PY
"${sowdb}" stats --tables "${dir}/coop" --json >"${dir}/stats.json"
"${sowdb}" stats --tables "${dir}/coop" --csv >"${dir}/stats.csv"
head -1 "${dir}/stats.csv" | grep -q "^n,positions,balanced,balanced_share" || fail "stats --csv header"
[[ $(wc -l <"${dir}/stats.csv") -eq 14 ]] || fail "stats --csv: $(cat "${dir}/stats.csv")"
python3 - "${dir}/stats.json" <<'PY' || fail "stats --json on co-operative tables"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert [l["n"] for l in lines] == list(range(13)), lines
for l in lines:
    assert 0 <= l["balanced_share"] <= 1 and l["distinct_sets"] >= 1, l
assert lines[0]["balanced_share"] == 1 and lines[1]["balanced_share"] == 0, lines[:2]
PY
# Refusals: exit 2 with a message that names the objective.
expect_refusal() {
  local what="$1"
  shift
  set +e
  "$@" >"${dir}/out" 2>"${dir}/err"
  local rc=$?
  set -e
  [[ ${rc} -eq 2 ]] || fail "${what}: exit ${rc}, expected 2"
  grep -qi "operative\|competitive\|objective" "${dir}/err" || fail "${what}: $(cat "${dir}/err")"
}
expect_refusal "competitive probe on co-operative tables" \
  "${sowdb}" probe --tables "${dir}/coop" --objective competitive 1 1 0 1 1 0
expect_refusal "co-operative probe on competitive tables" \
  "${sowdb}" probe --tables "${dir}/values" --objective cooperative 1 1 0 1 1 0
expect_refusal "co-operative solve over competitive tables" \
  "${sowdb}" solve --variant wari-kc/3x2 --objective cooperative --tables "${dir}/values"
expect_refusal "migrate of co-operative tables" \
  "${sowdb}" migrate --tables "${dir}/coop" --out "${dir}/migrated"
expect_refusal "unknown objective" \
  "${sowdb}" gen --variant wari-kc/3x2 --max-stones 2 --out "${dir}/x" --objective friendly
expect_refusal "co-operative gen into competitive tables" \
  "${sowdb}" gen --variant wari-kc/3x2 --max-stones 8 --out "${dir}/values" --objective cooperative
expect_refusal "competitive gen into co-operative tables" \
  "${sowdb}" gen --variant wari-kc/3x2 --max-stones 12 --out "${dir}/coop"
expect_refusal "--no-recompute with co-operative tables" \
  "${sowdb}" gen --variant wari-kc/3x2 --max-stones 2 --out "${dir}/y" --objective cooperative \
  --no-recompute
echo "cooperative_cli: ok"
