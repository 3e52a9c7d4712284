#!/usr/bin/env bash
# `sowdb solve` from the command line: complete tables built in the cache and reused, a search
# over partial tables giving the published value, the JSON contract, and refusals.
# Usage: solve_cli_test.sh SOWDB
set -euo pipefail
sowdb="$1"
dir="$(mktemp -d)"
trap 'rm -rf "${dir}"' EXIT
export SOWDB_CACHE_DIR="${dir}/cache"
fail() { echo "FAIL: $*" >&2; exit 1; }

# Irving, Donkers & Uiterwijk: Kalah(4,3) is worth +8 to the first player under their rules.
"${sowdb}" solve --variant kalah-irving/4x3 --json >"${dir}/a.json"
"${sowdb}" solve --variant kalah-irving --pits 4 --seeds 3 --json >"${dir}/b.json"
"${sowdb}" gen --variant kalah-irving/4x3 --max-stones 10 --out "${dir}/few" --quiet
"${sowdb}" solve --variant kalah-irving/4x3 --tables "${dir}/few" --json >"${dir}/c.json"
python3 - "${dir}" <<'PY' || fail "solve --json"
import json, sys
d = sys.argv[1]
a, b, c = (json.load(open(f"{d}/{x}.json")) for x in "abc")
for j in (a, b, c):
    for f in ("variant", "value", "best", "moves", "nodes", "seconds", "method", "tables"):
        assert f in j, (f, j)
    assert j["variant"] == "kalah-irving/4x3" and j["value"] == 8 and j["stones"] == 24, j
    assert max(m["worth"] for m in j["moves"]) == 8, j
    assert [m["pit"] for m in j["moves"]] == sorted(m["pit"] for m in j["moves"]), j
    for m in j["moves"]:
        if m["extra_turn"]:
            assert m["worth"] == max(x["worth"] for x in m["continuations"]), m
assert a["method"] == "tables" and a["tables_built"] and a["nodes"] == 0, a
assert b["method"] == "tables" and not b["tables_built"], b
assert c["method"] == "search" and c["nodes"] > 0 and c["tables_max_stones"] == 10, c
assert [m["worth"] for m in a["moves"]] == [m["worth"] for m in c["moves"]], (a, c)
PY
# --value-only with a transposition table of 1 MiB: the same value, a best move among those the
# full search found best, and every other move bounded above by the value.
"${sowdb}" solve --variant kalah-irving/4x3 --tables "${dir}/few" --value-only --hash-mb 1 \
  --json >"${dir}/v.json"
python3 - "${dir}" <<'PY' || fail "solve --value-only --hash-mb --json"
import json, sys
d = sys.argv[1]
a, c, v = (json.load(open(f"{d}/{x}.json")) for x in "acv")
assert v["hash_mb"] == 1 and c["hash_mb"] == 128 and a["hash_mb"] == 0, (v, c, a)
assert v["value"] == 8 and v["complete"], v
best = [m["pit"] for m in a["moves"] if m["worth"] == 8]
assert v["best"] in best, (v, best)
for m in v["moves"]:
    assert m["upper"] <= 8 and m["lower"] <= m["upper"], m
    if m["pit"] == v["best"]:
        assert m["lower"] == 8, m
PY
# The default transposition table follows the search: 32 MiB for the value only within 28 seeds
# of the tables (Kalah(4,3) over 0..10), 128 MiB for every worth or a longer reach (Kalah(6,8)
# over 0..6 is 42 seeds above them).
"${sowdb}" solve --variant kalah-irving/4x3 --tables "${dir}/few" --value-only --json \
  >"${dir}/small.json"
"${sowdb}" gen --variant kalah-irving/6x1 --max-stones 6 --out "${dir}/six" --quiet
"${sowdb}" solve --variant kalah-irving/6x8 --tables "${dir}/six" --value-only --time-limit 0.1 \
  --json >"${dir}/far.json"
python3 - "${dir}" <<'PY' || fail "solve's default --hash-mb"
import json, sys
d = sys.argv[1]
small, far, c = (json.load(open(f"{d}/{x}.json")) for x in ("small", "far", "c"))
assert small["hash_mb"] == 32 and small["value"] == 8, small
assert far["hash_mb"] == 128 and c["hash_mb"] == 128, (far, c)
PY
# The cache stores every value (format version 2: no recompute entries for the search to
# resolve); a table built by gen keeps them (version 4).
python3 - "${SOWDB_CACHE_DIR}" "${dir}/few" <<'PY' || fail "the cache's format version"
import glob, struct, sys
cache = glob.glob(f"{sys.argv[1]}/*/layer-024.sdb")
assert len(cache) == 1, cache
def version(path):
    with open(path, "rb") as f:
        head = f.read(10)
    assert head[:8] == b"\x89SOWDB\r\n", path
    return struct.unpack("<H", head[8:10])[0]
assert version(cache[0]) == 2, version(cache[0])
assert version(f"{sys.argv[2]}/layer-010.sdb") == 4, version(f"{sys.argv[2]}/layer-010.sdb")
PY
# The text report says where the answer came from.
"${sowdb}" solve --variant kalah-irving/4x3 --tables "${dir}/few" >"${dir}/text"
grep -q "^value for the first player: +8" "${dir}/text" || fail "text: $(cat "${dir}/text")"
grep -q "^searched [0-9]* positions" "${dir}/text" || fail "text: $(cat "${dir}/text")"

# --time-limit: Kalah(6,6) is far out of reach in a tenth of a second; the answer is bounds,
# complete false, and the unknown worths are null.
"${sowdb}" solve --variant kalah-irving/6x6 --tables "${dir}/six" --time-limit 0.1 --json \
  >"${dir}/d.json"
python3 - "${dir}/d.json" <<'PY' || fail "solve --time-limit --json"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["complete"] is False and j["value"] is None, j
assert -72 <= j["lower"] < j["upper"] <= 72, j
assert any(m["worth"] is None and m["lower"] < m["upper"] for m in j["moves"]), j
PY
"${sowdb}" solve --variant kalah-irving/6x6 --tables "${dir}/six" --time-limit 0.1 >"${dir}/text"
grep -q "^stopped after 0.1 s (--time-limit)" "${dir}/text" || fail "text: $(cat "${dir}/text")"
grep -q "^value for the first player: between" "${dir}/text" || fail "text: $(cat "${dir}/text")"

# A table of 1 MiB cannot tell Kalah(6,8)'s keys apart with 32 bits each: solve takes the least
# table that can (2^22 entries, 32 MiB) and says so.
"${sowdb}" solve --variant kalah-irving/6x8 --tables "${dir}/six" --time-limit 0.1 --value-only \
  --hash-mb 1 --json >"${dir}/e.json"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["hash_mb"] == 32, j' \
  "${dir}/e.json" || fail "solve --hash-mb 1 on Kalah(6,8): $(cat "${dir}/e.json")"
# The search keeps values of -128..127: 132 seeds are refused.
set +e
"${sowdb}" solve --variant kalah-irving/6x11 --tables "${dir}/six" 2>"${dir}/err" >/dev/null
rc=$?
set -e
[[ ${rc} -eq 2 ]] || fail "kalah-irving/6x11 exited ${rc}"
grep -q "values of -128..127 only" "${dir}/err" || fail "$(cat "${dir}/err")"

# Oware positions repeat: no search without complete tables; small boards are built.
set +e
"${sowdb}" solve --variant oware/6x4 2>"${dir}/err" >/dev/null
rc=$?
set -e
[[ ${rc} -eq 2 ]] || fail "oware/6x4 without tables exited ${rc}"
grep -q "positions can repeat" "${dir}/err" || fail "$(cat "${dir}/err")"
# The library states the cause; the program adds the command that builds the tables.
grep -q "build them with \`sowdb gen --variant oware/6x4 --max-stones 48 --out DIR\` and pass --tables DIR" \
  "${dir}/err" || fail "no gen hint: $(cat "${dir}/err")"
"${sowdb}" solve --variant oware/2x2 --json | grep -q '"method":"tables"' || fail "oware/2x2"
# Tables of other rules are refused.
set +e
"${sowdb}" solve --variant kalah/4x3 --tables "${dir}/few" 2>"${dir}/err" >/dev/null
rc=$?
set -e
[[ ${rc} -eq 2 ]] || fail "tables of other rules exited ${rc}"
grep -q "hold kalah rules" "${dir}/err" || fail "$(cat "${dir}/err")"
# The co-operative objective (seed 002's Win-Win): JSON contract; a first move keeps a balanced
# end possible exactly when 0 is among its reachable differences; the start's set is the union
# of its moves'; refusals.
"${sowdb}" solve --variant wari-kc/3x2 --objective cooperative --json >"${dir}/coop.json"
python3 - "${dir}/coop.json" <<'PY' || fail "solve --objective cooperative --json"
import json, sys
j = json.load(open(sys.argv[1]))
for f in ("variant", "rules", "objective", "stones", "reachable", "balanced", "balancing_moves",
          "moves", "positions", "seconds"):
    assert f in j, f
assert j["objective"] == "cooperative" and j["stones"] == 12
assert j["balanced"] == (0 in j["reachable"])
union = set()
for m in j["moves"]:
    assert m["balancing"] == (0 in m["reachable"]), m
    union |= set(m["reachable"])
assert union == set(j["reachable"]), (union, j["reachable"])
assert j["balancing_moves"] == [m["pit"] for m in j["moves"] if m["balancing"]]
PY
for bad in "--objective friendly" "--objective cooperative --tables ${dir}/few" \
           "--objective cooperative --value-only"; do
  set +e
  # shellcheck disable=SC2086
  "${sowdb}" solve --variant kalah/4x3 ${bad} 2>"${dir}/err" >/dev/null
  rc=$?
  set -e
  [[ ${rc} -eq 2 ]] || fail "solve ${bad} exited ${rc}"
  [[ "$(wc -l <"${dir}/err")" == 1 ]] || fail "solve ${bad}: $(cat "${dir}/err")"
done
echo "solve tests passed"
