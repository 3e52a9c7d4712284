#!/usr/bin/env bash
# `sowdb solve` as robust as `gen` (issue 34, "solve as robust as gen"): one case per defect a
# hostile user found, each run as its own ctest test.
# Usage: solve_robust_test.sh SOWDB CASE
#   CASE: damaged_cache | concurrent | interrupt | time_limit | refuse_early | timing |
#         json_tables | bad_input | json_example
set -euo pipefail
sowdb="$1"
case_name="$2"
# shellcheck source=strict_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/strict_lib.sh"
export SOWDB_CACHE_DIR="${dir}/cache"

# json FILE EXPR: the Python expression EXPR holds of the JSON object j in FILE.
json() {
  python3 - "$1" "$2" <<'PY' || fail "$2: $(head -c 600 "$1")"
import json, sys
j = json.load(open(sys.argv[1]))
assert eval(sys.argv[2]), sys.argv[2]
PY
}

# The cache directory of kalah-irving's rules on P pits per side.
kalah_cache() {
  echo "${SOWDB_CACHE_DIR}/kalah_rules_$1_pits_per_side_skip_origin=off_capture_empty_opposite=on_end=empty_side"
}

case "${case_name}" in
damaged_cache)
  # 1. A damaged layer of the cache is checked and solved again, as gen's resume does: the
  # answer is right, the file is whole again, and later runs are quiet.
  "${sowdb}" solve --variant kalah-irving/3x3 --json >"${dir}/first.json"
  c="$(kalah_cache 3)"
  cp "${c}/layer-012.sdb" "${dir}/layer-012.good"
  "${sowdb}" solve --variant kalah-irving/3x2 --json >"${dir}/want.json"
  printf '\xff\xfe\xfd\xfc' | dd of="${c}/layer-012.sdb" bs=1 seek=300 conv=notrunc 2>/dev/null
  ! cmp -s "${c}/layer-012.sdb" "${dir}/layer-012.good" || fail "the damage did not change the file"
  "${sowdb}" solve --variant kalah-irving/3x2 --json >"${dir}/got.json" 2>"${dir}/err" ||
    fail "solve over a damaged cache: $(cat "${dir}/err")"
  json "${dir}/got.json" "j['repaired_layers'] == [12] and j['tables_built']"
  python3 -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]);
assert (a["value"], a["moves"]) == (b["value"], b["moves"]), (a, b)' \
    "${dir}/want.json" "${dir}/got.json" || fail "the answer after the repair differs"
  cmp "${c}/layer-012.sdb" "${dir}/layer-012.good" || fail "the rebuilt layer differs"
  "${sowdb}" solve --variant kalah-irving/3x2 >"${dir}/text" 2>"${dir}/err" || fail "rerun"
  [[ ! -s "${dir}/err" ]] || fail "the rerun over the repaired cache said: $(cat "${dir}/err")"
  # A damaged layer in a directory the user named is an error (not ours to rewrite), exit 1.
  cp -r "${c}" "${dir}/given"
  printf '\xff\xfe\xfd\xfc' | dd of="${dir}/given/layer-012.sdb" bs=1 seek=300 conv=notrunc \
    2>/dev/null
  fails_with 1 "layer-012.sdb" solve --variant kalah-irving/3x2 --tables "${dir}/given"
  ;;
concurrent)
  # 2. Runs that need the same cache at once (xargs -P): each waits for the other's build and
  # gives the same answer; three rounds on an empty cache.
  for round in 1 2 3; do
    rm -rf "${SOWDB_CACHE_DIR}"
    set +e
    "${sowdb}" solve --variant kalah-irving/4x2 --json >"${dir}/a.json" 2>"${dir}/a.err" &
    a=$!
    "${sowdb}" solve --variant kalah-irving/4x2 --value-only --json >"${dir}/b.json" \
      2>"${dir}/b.err" &
    b=$!
    "${sowdb}" solve --variant kalah-irving/4x1 --json >"${dir}/c.json" 2>"${dir}/c.err" &
    c=$!
    wait ${a}
    ra=$?
    wait ${b}
    rb=$?
    wait ${c}
    rc=$?
    set -e
    [[ ${ra} -eq 0 && ${rb} -eq 0 && ${rc} -eq 0 ]] || fail "round ${round}: exits ${ra} ${rb} \
${rc}: $(cat "${dir}/a.err" "${dir}/b.err" "${dir}/c.err")"
    json "${dir}/a.json" "j['value'] == 6 and j['complete']"
    json "${dir}/b.json" "j['value'] == 6 and j['complete']"
    json "${dir}/c.json" "j['complete'] and j['value'] is not None"
  done
  ;;
interrupt)
  # 3a. A signal during the cache build: gen's behaviour (one line, exit 128 + signal, no
  # temporary left), and the rerun continues.
  for sig in INT TERM; do
    rm -rf "${SOWDB_CACHE_DIR}"
    c="$(kalah_cache 4)"
    "${sowdb}" solve --variant kalah-irving/4x4 --json >/dev/null 2>"${dir}/err" &
    pid=$!
    until compgen -G "${c}/layer-01[0-9].sdb.tmp.*" >/dev/null; do
      running ${pid} || fail "${sig}: the build ended before it was caught writing"
    done
    kill -STOP ${pid}
    kill -${sig} ${pid}
    kill -CONT ${pid}
    set +e
    wait ${pid}
    rc=$?
    set -e
    case ${sig} in INT) want=130 ;; TERM) want=143 ;; esac
    [[ ${rc} -eq ${want} ]] || fail "${sig} during the build: exit ${rc}: $(cat "${dir}/err")"
    [[ "$(wc -l <"${dir}/err")" == 1 ]] || fail "${sig}: not one line: $(cat "${dir}/err")"
    grep -Eq "^sowdb: interrupted; layers 0\.\.[0-9]+ are complete, a rerun continues$" \
      "${dir}/err" || fail "${sig}: $(cat "${dir}/err")"
    ! compgen -G "${c}/*.tmp.*" >/dev/null || fail "${sig}: a temporary was left: $(ls "${c}")"
  done
  # 3b. A signal during the search: the bounds proved so far, then exit 128 + signal.
  "${sowdb}" gen --variant kalah-irving/6x1 --max-stones 6 --out "${dir}/six" --quiet
  for sig in INT TERM; do
    "${sowdb}" solve --variant kalah-irving/6x6 --tables "${dir}/six" >"${dir}/out" \
      2>"${dir}/err" &
    pid=$!
    wait_for_handler ${pid}
    kill -${sig} ${pid}
    set +e
    wait ${pid}
    rc=$?
    set -e
    case ${sig} in INT) want=130 ;; TERM) want=143 ;; esac
    [[ ${rc} -eq ${want} ]] || fail "${sig} during the search: exit ${rc}: $(cat "${dir}/err")"
    grep -q "^interrupted by SIG${sig} after .* s of search" "${dir}/out" ||
      fail "${sig}: $(cat "${dir}/out")"
    grep -q "^value for the first player: between" "${dir}/out" || fail "$(cat "${dir}/out")"
    grep -q "^sowdb: interrupted by SIG${sig}; the bounds proved so far are printed$" \
      "${dir}/err" || fail "${sig}: $(cat "${dir}/err")"
  done
  "${sowdb}" solve --variant kalah-irving/6x6 --tables "${dir}/six" --json >"${dir}/out.json" &
  pid=$!
  wait_for_handler ${pid}
  kill -INT ${pid}
  set +e
  wait ${pid}
  rc=$?
  set -e
  [[ ${rc} -eq 130 ]] || fail "INT with --json: exit ${rc}"
  json "${dir}/out.json" "not j['complete'] and j['stopped_by'] == 'interrupt' and j['lower'] < j['upper']"
  # 3c. The same signal twice at once (as timeout(1) delivers it: to the command, then to its
  # process group) is one interruption: the bounds are still printed.
  "${sowdb}" solve --variant kalah-irving/6x6 --tables "${dir}/six" --json >"${dir}/twice.json" \
    2>"${dir}/twice.err" &
  pid=$!
  wait_for_handler ${pid}
  kill -TERM ${pid}
  # The second once the first is delivered (no longer pending: ShdPnd's bit 14), so that the
  # two are not merged into one by the kernel.
  while running ${pid}; do
    pending=$(awk '/^ShdPnd:/ {print $2}' "/proc/${pid}/status" 2>/dev/null || echo 0)
    (((16#${pending:-0} & 16#4000) == 0)) && break
  done
  kill -TERM ${pid} 2>/dev/null || true # it may have ended already
  set +e
  wait ${pid}
  rc=$?
  set -e
  [[ ${rc} -eq 143 ]] || fail "TERM twice: exit ${rc}: $(cat "${dir}/twice.err")"
  json "${dir}/twice.json" "not j['complete'] and j['stopped_by'] == 'interrupt'"
  ;;
time_limit)
  # 4. --time-limit counts the search only: on a fresh cache the search still gets its time
  # (it stops only at the deadline), and the build is timed apart.
  "${sowdb}" solve --variant kalah-irving/6x6 --cache-layers 10 --time-limit 0.3 --json \
    >"${dir}/t.json"
  json "${dir}/t.json" "not j['complete'] and j['stopped_by'] == 'time_limit'"
  json "${dir}/t.json" "j['search_seconds'] >= 0.3 and j['build_seconds'] > 0 and j['layers_built'] == 11"
  json "${dir}/t.json" "j['seconds'] >= j['build_seconds'] + j['search_seconds'] and j['time_limit'] == 0.3"
  "${sowdb}" solve --help >"${dir}/help"
  grep -q "time-limit never counts" "${dir}/help" || fail "solve --help: $(cat "${dir}/help")"
  "${sowdb}" solve --variant kalah-irving/6x6 --time-limit 0.3 --cache-layers 10 >"${dir}/text"
  grep -q "^stopped after 0.3 s (--time-limit): .*the limit counts the search only" \
    "${dir}/text" || fail "text: $(cat "${dir}/text")"
  ;;
refuse_early)
  # 5. What the search would refuse is refused before the cache is built, in solve's words.
  fails_with 2 "values of -128..127 only, and kalah/4x31 has 248 seeds" \
    solve --variant kalah --pits 4 --seeds 31
  [[ ! -e "${SOWDB_CACHE_DIR}" ]] || fail "a refused solve built: $(ls -R "${SOWDB_CACHE_DIR}")"
  fails_with 2 "kalah/2x32 has 128 seeds on the board, more than tables hold" \
    solve --variant kalah/2x32
  ! grep -q -- "--max-stones" "${dir}/err" || fail "an option never given: $(cat "${dir}/err")"
  [[ ! -e "${SOWDB_CACHE_DIR}" ]] || fail "a refused solve built: $(ls -R "${SOWDB_CACHE_DIR}")"
  fails_with 2 "more than half of this machine's memory" \
    solve --variant kalah-irving/6x5 --hash-mb 65536
  [[ ! -e "${SOWDB_CACHE_DIR}" ]] || fail "a refused solve built: $(ls -R "${SOWDB_CACHE_DIR}")"
  ;;
timing)
  # 7. The first run times the cache build apart from the search and says on the terminal that
  # it builds, how many layers and where; --help names the cache and how to clear it.
  "${sowdb}" solve --variant kalah-irving/4x3 --json >"${dir}/a.json"
  "${sowdb}" solve --variant kalah-irving/4x3 --json >"${dir}/b.json"
  json "${dir}/a.json" "j['tables_built'] and j['layers_built'] == 25 and j['build_seconds'] > 0"
  json "${dir}/a.json" "j['seconds'] >= j['build_seconds'] + j['search_seconds']"
  json "${dir}/b.json" "not j['tables_built'] and j['build_seconds'] == 0 and j['search_seconds'] > 0"
  rm -rf "${SOWDB_CACHE_DIR}"
  "${sowdb}" solve --variant kalah-irving/4x3 >"${dir}/text" 2>"${dir}/err"
  grep -q "^sowdb: building the cache's tables once: layers 0..24 (.* positions) in $(kalah_cache 4)$" \
    "${dir}/err" || fail "no build notice: $(cat "${dir}/err")"
  grep -q "^building the cache's tables took .* s (25 layers solved" "${dir}/text" ||
    fail "text: $(cat "${dir}/text")"
  SOWDB_CACHE_DIR="${dir}/elsewhere" "${sowdb}" solve --help >"${dir}/help"
  grep -q "${dir}/elsewhere" "${dir}/help" || fail "--help: $(cat "${dir}/help")"
  grep -q "To clear it, delete that directory" "${dir}/help" || fail "--help: $(cat "${dir}/help")"
  ;;
json_tables)
  # 8. --json's tables is the directory alone; whether it is the cache is a field of its own.
  "${sowdb}" solve --variant kalah-irving/3x2 --json >"${dir}/a.json"
  c="$(kalah_cache 3)"
  json "${dir}/a.json" "j['tables'] == '${c}' and j['tables_cache'] and j['tables_source'] == 'cache'"
  "${sowdb}" solve --variant kalah-irving/3x2 --tables "${c}" --json >"${dir}/b.json"
  json "${dir}/b.json" "j['tables'] == '${c}' and not j['tables_cache'] and j['tables_source'] == 'given'"
  ;;
bad_input)
  # 9. Bad input in solve's own words, with the exit codes the README promises.
  fails_with 2 "'abc' is not a number" solve --variant kalah --seeds abc
  fails_with 2 "not a positive number of seconds" solve --variant kalah/3x2 --time-limit 0
  [[ $(wc -c <"${dir}/err") -lt 200 ]] || fail "--time-limit 0: $(cat "${dir}/err")"
  fails_with 2 "must not be an empty path" solve --variant kalah/3x2 --tables ""
  "${sowdb}" gen --variant kalah/3x2 --objective cooperative --max-stones 12 --out "${dir}/coop" \
    --quiet
  fails_with 2 "co-operative" solve --variant kalah/3x2 --tables "${dir}/coop"
  # An unwritable cache: a small board is solved in memory, with a note.
  "${sowdb}" solve --variant kalah-irving/3x2 --json >"${dir}/want.json"
  touch "${dir}/file"
  SOWDB_CACHE_DIR="${dir}/file/cache" "${sowdb}" solve --variant kalah-irving/3x2 --json \
    >"${dir}/mem.json" || fail "an unwritable cache refused kalah-irving/3x2"
  json "${dir}/mem.json" "j['tables_source'] == 'none' and j['tables'] is None and j['method'] == 'search' and len(j['notes']) == 1"
  python3 -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]);
assert (a["value"], a["moves"]) == (b["value"], b["moves"]), (a, b)' \
    "${dir}/want.json" "${dir}/mem.json" || fail "the answer in memory differs"
  SOWDB_CACHE_DIR="${dir}/file/cache" "${sowdb}" solve --variant kalah-irving/3x2 \
    >/dev/null 2>"${dir}/err"
  grep -q "^sowdb: note: .*cannot create .*: the cache cannot be built, so the search runs in memory" \
    "${dir}/err" || fail "no note: $(cat "${dir}/err")"
  # Tables with a gap: used below it, and said.
  "${sowdb}" gen --variant kalah-irving/4x3 --max-stones 10 --out "${dir}/gap" --quiet
  rm "${dir}/gap/layer-006.sdb"
  "${sowdb}" solve --variant kalah-irving/4x3 --tables "${dir}/gap" --json >"${dir}/gap.json"
  json "${dir}/gap.json" "j['tables_missing_layer'] == 6 and j['tables_max_stones'] == 5 and j['value'] == 8"
  "${sowdb}" solve --variant kalah-irving/4x3 --tables "${dir}/gap" >/dev/null 2>"${dir}/err"
  grep -q "layer-006.sdb is missing, so only layers 0..5 are used" "${dir}/err" ||
    fail "gap: $(cat "${dir}/err")"
  ;;
json_example)
  # The contract of `sowdb solve --json`: the committed example tests/data/json/solve.json has
  # every field this run has, with the same values, except the times, the directory and the
  # node count (the search's work, which its improvements change), masked to their types.
  example="$(dirname "${BASH_SOURCE[0]}")/../data/json/solve.json"
  "${sowdb}" gen --variant kalah-irving/4x3 --max-stones 10 --out "${dir}/few" --quiet
  "${sowdb}" solve --variant kalah-irving/4x3 --tables "${dir}/few" --threads 1 --json \
    >"${dir}/got.json"
  python3 - "${example}" "${dir}/got.json" "${dir}/few" <<'PY' || fail "solve --json vs ${example}"
import json, sys
want, got = (json.load(open(f)) for f in sys.argv[1:3])
assert got["tables"] == sys.argv[3], got["tables"]
assert isinstance(got["nodes"], int) and got["nodes"] > 0, got["nodes"]
for k in ("seconds", "build_seconds", "search_seconds", "preload_seconds"):
    assert isinstance(got[k], float) and got[k] >= 0, (k, got[k])
for j in (want, got):
    for k in ("tables", "nodes", "seconds", "build_seconds", "search_seconds", "preload_seconds"):
        j[k] = None
assert sorted(want) == sorted(got), sorted(set(want) ^ set(got))
for k in want:
    assert want[k] == got[k], (k, want[k], got[k])
PY
  ;;
*)
  fail "unknown case ${case_name}"
  ;;
esac
echo "solve ${case_name}: passed"
