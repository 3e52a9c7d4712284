#!/usr/bin/env bash
# The commands' rough edges a hostile user found (issue 30), each checked from the command line:
# an interrupted migrate resumes (and its partial directory is no table set), manifest refuses a
# directory that mixes objectives, one cause gives one exit code in every command, a closed
# output pipe exits 1 with a message, verify names the damaged co-operative file last, prose
# says "co-operative", and scripts/run.sh ends with the values it promises.
# Usage: rough_edges_test.sh SOWDB
set -euo pipefail
sowdb="$1"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=strict_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/strict_lib.sh"

# --- 1. An interrupted migrate: the rerun continues it; the partial directory is no table set.
"${sowdb}" gen --variant oware/4x4 --max-stones 12 --no-recompute --out "${dir}/v2" --quiet
"${sowdb}" migrate --tables "${dir}/v2" --out "${dir}/fresh" --quiet
# Level 19 makes each write last long enough to catch the process writing a temporary.
"${sowdb}" migrate --tables "${dir}/v2" --out "${dir}/v4" --zstd-level 19 --quiet \
  2>"${dir}/int-err" &
pid=$!
until compgen -G "${dir}/v4/layer-01[0-2].sdb.tmp.*" >/dev/null; do
  running ${pid} || fail "migrate ended before it was caught writing"
done
kill -INT ${pid}
set +e
wait ${pid}
rc=$?
set -e
[[ ${rc} -eq 130 ]] || fail "interrupted migrate exited ${rc}, want 130"
grep -Eq "^sowdb: interrupted; layers 0\.\.[0-9]+ are complete, a rerun continues$" \
  "${dir}/int-err" || fail "interrupted migrate: $(cat "${dir}/int-err")"
# The partial directory does not pass as smaller tables, and manifest does not bless it.
fails_with 2 "sowdb.json is missing" probe --tables "${dir}/v4" 1 1 1 1 1 1 1 1
fails_with 2 "sowdb.json is missing" verify --tables "${dir}/v4"
fails_with 2 "is a migrate that was interrupted" manifest --tables "${dir}/v4" --variant oware/4x4
# A rerun with other options does not mix its layers with the first run's.
fails_with 2 "holds an unfinished migrate with other options" \
  migrate --tables "${dir}/v2" --out "${dir}/v4" --zstd-level 1
# The rerun continues: the layers already written are kept, the result is the complete bytes.
"${sowdb}" migrate --tables "${dir}/v2" --out "${dir}/v4" --zstd-level 19 >"${dir}/rerun.txt" ||
  fail "the rerun of an interrupted migrate failed"
grep -q "written by the interrupted run" "${dir}/rerun.txt" ||
  fail "the rerun kept no layer: $(cat "${dir}/rerun.txt")"
"${sowdb}" migrate --tables "${dir}/v2" --out "${dir}/fresh19" --zstd-level 19 --quiet
for f in "${dir}"/fresh19/layer-*.sdb "${dir}/fresh19/sowdb.json"; do
  cmp -s "${f}" "${dir}/v4/$(basename "${f}")" || fail "resumed migrate: $(basename "${f}") differs"
done
[[ ! -e "${dir}/v4/sowdb.migrating" ]] || fail "the finished migrate left its marker"
"${sowdb}" verify --tables "${dir}/v4" --quiet >/dev/null || fail "the resumed tables do not verify"
# A directory that is no unfinished migrate is still refused.
fails_with 2 "exists and is not an empty directory" migrate --tables "${dir}/v2" --out "${dir}/v4"

# --- 2. A directory mixing competitive and co-operative layers: refused by every command. ----
"${sowdb}" gen --variant wari-kc/3x2 --max-stones 8 --out "${dir}/comp" --quiet
"${sowdb}" gen --variant wari-kc/3x2 --max-stones 5 --out "${dir}/coop" --objective cooperative \
  --quiet
mkdir "${dir}/mix"
cp "${dir}"/coop/layer-00[0-5].sdb "${dir}"/comp/layer-00[6-8].sdb "${dir}/mix"
mixed="mixes competitive and co-operative tables: layer-000.sdb is co-operative, layer-006.sdb competitive"
fails_with 2 "${mixed}" manifest --tables "${dir}/mix" --variant wari-kc/3x2
[[ ! -e "${dir}/mix/sowdb.json" ]] || fail "manifest wrote a manifest for mixed objectives"
"${sowdb}" manifest --tables "${dir}/comp" --variant wari-kc/3x2 >/dev/null
cp "${dir}/comp/sowdb.json" "${dir}/mix/"
fails_with 2 "${mixed}" probe --tables "${dir}/mix" 1 0 0 0 0 1
fails_with 2 "${mixed}" verify --tables "${dir}/mix"

# --- 3. One cause, one exit code: mixed rule sets and an unusable directory are bad input (2)
# in every command.
"${sowdb}" gen --variant kalah/3x2 --max-stones 8 --out "${dir}/kalah" --quiet
mkdir "${dir}/mixr"
cp "${dir}"/comp/layer-00[0-5].sdb "${dir}"/kalah/layer-00[6-8].sdb "${dir}/mixr"
rules="holds tables of different rule sets"
fails_with 2 "${rules}" manifest --tables "${dir}/mixr" --variant wari-kc/3x2
"${sowdb}" manifest --tables "${dir}/comp" --variant wari-kc/3x2 >/dev/null
cp "${dir}/comp/sowdb.json" "${dir}/mixr/"
fails_with 2 "${rules}" probe --tables "${dir}/mixr" 1 0 0 0 0 1
fails_with 2 "${rules}" verify --tables "${dir}/mixr"
fails_with 2 "${rules}" stats --tables "${dir}/mixr"
fails_with 2 "${rules}" migrate --tables "${dir}/mixr" --out "${dir}/mixr-out"
fails_with 2 "another rule set" gen --variant wari-kc/3x2 --max-stones 8 --out "${dir}/mixr"
# A directory this process may not write in (as an unprivileged user: root ignores permissions).
as_user=()
if [[ "$(id -u)" == 0 ]]; then
  as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  chmod 755 "${dir}"
fi
if "${as_user[@]}" "${sowdb}" --version >/dev/null 2>&1; then
  mkdir "${dir}/ro"
  cp -r "${dir}/comp" "${dir}/ro-tables"
  rm "${dir}/ro-tables/sowdb.json"
  chmod -R a+rX "${dir}/comp" "${dir}/ro-tables"
  chmod 555 "${dir}/ro" "${dir}/ro-tables"
  sowdb_real="${sowdb}"
  run_as() { "${as_user[@]}" "${sowdb_real}" "$@"; }
  sowdb=run_as
  fails_with 2 "Permission denied" gen --variant wari-kc/3x2 --max-stones 3 --out "${dir}/ro"
  fails_with 2 "Permission denied" migrate --tables "${dir}/comp" --out "${dir}/ro"
  fails_with 2 "Permission denied" manifest --tables "${dir}/ro-tables" --variant wari-kc/3x2
  sowdb="${sowdb_real}"
  chmod 755 "${dir}/ro" "${dir}/ro-tables"
else
  echo "rough_edges_test: skipped the permission checks (no unprivileged user to run them as)"
fi

# --- 4. A closed output pipe (`| head -1`): exit 1 and one line, not death by SIGPIPE (141). ---
# The pipe's reader is closed before the program starts, so the first write fails every time.
closed_pipe() {
  python3 - "$@" <<'PY'
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)  # SIGPIPE restored
os.close(w)
sys.stdout.write("%d\n%s" % (p.returncode, p.stderr.decode()))
PY
}
for cmd in "verify --tables ${dir}/comp" "gen --variant oware/4x4 --max-stones 9 --out ${dir}/piped" \
  "stats --tables ${dir}/comp" "probe --tables ${dir}/comp 1 0 0 0 0 1"; do
  # shellcheck disable=SC2086
  closed_pipe "${sowdb}" ${cmd} >"${dir}/pipe.txt"
  [[ "$(head -1 "${dir}/pipe.txt")" == 1 ]] ||
    fail "sowdb ${cmd} into a closed pipe: exit $(head -1 "${dir}/pipe.txt"), want 1"
  [[ "$(tail -n +2 "${dir}/pipe.txt")" == "sowdb: error: writing standard output: Broken pipe" ]] ||
    fail "sowdb ${cmd} into a closed pipe: $(tail -n +2 "${dir}/pipe.txt")"
done
! compgen -G "${dir}/piped/*.tmp.*" >/dev/null || fail "gen into a closed pipe left a temporary"

# --- 5. verify on a damaged co-operative layer names the file in its last line. --------------
"${sowdb}" gen --variant wari-kc/3x3 --max-stones 12 --out "${dir}/coop3" --objective cooperative \
  --block-entries 64 --quiet
python3 - "${dir}/coop3/layer-012.sdb" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[len(b) // 2] ^= 0x55
open(p, "wb").write(b)
PY
fails_with 1 "could not be read (${dir}/coop3/layer-012.sdb: " verify --tables "${dir}/coop3" --quiet

# --- 6. Prose says "co-operative"; "cooperative" only as the flag value. ---------------------
fails_with 2 "holds co-operative tables" gen --variant wari-kc/3x2 --max-stones 5 --out "${dir}/coop"
"${sowdb}" gen --help | grep -q "co-operative tables hold" || fail "gen --help: cooperative"

# --- 6b. A mistyped option is named, not taken for a required one left out. ---------------
fails_with 2 "unknown option '--tabels' (see sowdb probe --help)" \
  probe --tabels "${dir}/coop" 1 1 1 1 1 1 1 1 1 1 1 1
fails_with 2 "unknown option '--varient' (see sowdb gen --help)" \
  gen --varient oware --max-stones 3 --out "${dir}/typo"
fails_with 2 "--tables is required (see sowdb probe --help)" probe 1 1 1 1

# --- 6c. Every command's --help ends with the exit codes. ------------------------------------
for command in variants show gen probe verify stats manifest solve migrate; do
  "${sowdb}" "${command}" --help | tail -1 | grep -q "^Exit codes: 0 success;" ||
    fail "sowdb ${command} --help does not end with the exit codes"
done

# --- 6d. show's --pits is checked as every command's is. -------------------------------------
fails_with 2 "--pits: Value 4294967298 not in range 1 to 8" show --variant oware --pits 4294967298 1 1

# --- 7. scripts/run.sh ends with the values it promises, not a 140-ply line. -----------------
grep -q SOWDB_PROGRAM "${root}/scripts/run.sh" || fail "scripts/run.sh cannot run a built sowdb"
SOWDB_PROGRAM="${sowdb}" SOWDB_RUN_STONES=16 SOWDB_RUN_OUT="${dir}/run-oware" \
  "${root}/scripts/run.sh" >"${dir}/run.txt" 2>&1 || fail "scripts/run.sh: $(tail -5 "${dir}/run.txt")"
tail -5 "${dir}/run.txt" | grep -q "^value  0   (published 0)$" ||
  fail "scripts/run.sh does not end with the value: $(tail -5 "${dir}/run.txt")"
tail -5 "${dir}/run.txt" | grep -q "^worths -1 -1 -2 -2 -2 0   (published -1 -1 -2 -2 -2 0)$" ||
  fail "scripts/run.sh does not end with the worths: $(tail -5 "${dir}/run.txt")"
[[ "$(wc -l <"${dir}/run.txt")" -lt 80 ]] || fail "scripts/run.sh prints $(wc -l <"${dir}/run.txt") lines"
# Below the reference position's 16 seeds it probes a position its tables hold, down to none.
for stones in 0 5 11 12; do
  SOWDB_PROGRAM="${sowdb}" SOWDB_RUN_STONES="${stones}" SOWDB_RUN_OUT="${dir}/run-small-${stones}" \
    "${root}/scripts/run.sh" >"${dir}/run-${stones}.txt" 2>&1 ||
    fail "scripts/run.sh with ${stones} seeds: $(tail -3 "${dir}/run-${stones}.txt")"
  grep -q '^value' "${dir}/run-${stones}.txt" ||
    fail "scripts/run.sh with ${stones} seeds printed no value: $(tail -3 "${dir}/run-${stones}.txt")"
done

echo "rough_edges_test: all checks passed"
