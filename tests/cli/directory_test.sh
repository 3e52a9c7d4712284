#!/usr/bin/env bash
# A table directory is a database: one writer at a time (a lock naming its holder, two racing
# writers never both succeed or mix their layers), an authoritative manifest (missing, damaged,
# older, edited or lying ones refused, `sowdb manifest` repairs), a missing middle layer named,
# clean interruption (no temporary left, one line, exit 128 + signal, the rerun gives the same
# bytes) and rebuilt layers explained.
# Usage: directory_test.sh SOWDB
set -euo pipefail
sowdb="$1"
# shellcheck source=strict_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/strict_lib.sh"

# --- 1. One writer at a time. ---------------------------------------------------------------
# A held lock: the writer refuses and names the holder.
mkdir "${dir}/locked"
exec 9>"${dir}/locked/.sowdb.lock"
flock -n 9 || fail "cannot take the test's lock"
echo "pid 4242: the test" >&9
fails_with 1 "is being written by another sowdb (pid 4242: the test)" \
  gen --variant oware/6x4 --max-stones 4 --out "${dir}/locked" --quiet
exec 9>&-
"${sowdb}" gen --variant oware/6x4 --max-stones 4 --out "${dir}/locked" --quiet ||
  fail "gen after the lock was released"

# Two writers of different variants started together, 20 times: never both exit 0, and the
# directory always holds one variant's complete tables under a manifest that agrees.
for round in $(seq 1 20); do
  d="${dir}/race${round}"
  set +e
  "${sowdb}" gen --variant oware/6x4 --max-stones 10 --out "${d}" --quiet 2>"${dir}/race-a" &
  a=$!
  "${sowdb}" gen --variant kalah/6x4 --max-stones 10 --out "${d}" --quiet 2>"${dir}/race-b" &
  b=$!
  wait ${a}
  ra=$?
  wait ${b}
  rb=$?
  set -e
  [[ ${ra} -ne 0 || ${rb} -ne 0 ]] || fail "round ${round}: both writers exited 0"
  [[ ${ra} -eq 0 || ${rb} -eq 0 ]] ||
    fail "round ${round}: neither writer finished: $(cat "${dir}/race-a" "${dir}/race-b")"
  winner=oware/6x4
  [[ ${rb} -eq 0 ]] && winner=kalah/6x4
  "${sowdb}" verify --tables "${d}" --json >"${dir}/race.json" ||
    fail "round ${round}: the directory does not verify"
  tail -1 "${dir}/race.json" | grep -q "\"variant\":\"${winner}\"" ||
    fail "round ${round}: the winner was ${winner}: $(tail -1 "${dir}/race.json")"
  grep -q '"max_stones":10' <(tail -1 "${dir}/race.json") || fail "round ${round}: incomplete"
  rm -rf "${d}"
done

# --- 2. The manifest is authoritative. -------------------------------------------------------
"${sowdb}" gen --variant kalah/4x3 --max-stones 8 --out "${dir}/m" --quiet
cp "${dir}/m/sowdb.json" "${dir}/good.json"
rm "${dir}/m/sowdb.json"
fails_with 2 "sowdb.json is missing; \`sowdb manifest --tables" probe --tables "${dir}/m" 1 1 1 1 1 1 1 1
fails_with 2 "sowdb.json is missing" stats --tables "${dir}/m"
echo garbage >"${dir}/m/sowdb.json"
fails_with 2 "not a manifest" probe --tables "${dir}/m" 1 1 1 1 1 1 1 1
sed 's|kalah/4x3|kalah/4x4|' "${dir}/good.json" >"${dir}/m/sowdb.json"
fails_with 2 "checksum does not match" probe --tables "${dir}/m" 1 1 1 1 1 1 1 1
fails_with 2 "name the variant with --variant" manifest --tables "${dir}/m"
# A sound manifest is confirmed by `sowdb manifest` alone, and left as it is.
cp "${dir}/good.json" "${dir}/m/sowdb.json"
"${sowdb}" manifest --tables "${dir}/m" | grep -q "kalah/4x3" || fail "manifest of a sound one"
cmp "${dir}/m/sowdb.json" "${dir}/good.json" || fail "the confirmed sound manifest changed"
# An older manifest (no checksum) is confirmed by `sowdb manifest` alone.
echo '{"variant": "kalah/4x3"}' >"${dir}/m/sowdb.json"
fails_with 2 "no checksum" probe --tables "${dir}/m" 1 1 1 1 1 1 1 1
"${sowdb}" manifest --tables "${dir}/m" | grep -q "kalah/4x3" || fail "manifest of an older one"
cmp "${dir}/m/sowdb.json" "${dir}/good.json" || fail "the confirmed manifest differs"
# A variant of other rules is refused; another seed count over the same tables is a relabel.
fails_with 2 "but the layers hold kalah rules" manifest --tables "${dir}/m" --variant oware/4x3
fails_with 2 "holds the tables of kalah/4x3" gen --variant kalah/4x2 --max-stones 8 --out "${dir}/m"
cmp "${dir}/m/sowdb.json" "${dir}/good.json" || fail "a refused gen changed the manifest"
"${sowdb}" manifest --tables "${dir}/m" --variant kalah/4x2 >/dev/null
"${sowdb}" probe --tables "${dir}/m" --json 1 1 1 1 1 1 1 1 | grep -q '"variant":"kalah/4x2"' ||
  fail "the relabelled directory"

# --- 3. A missing middle layer is named. -----------------------------------------------------
"${sowdb}" gen --variant oware/6x4 --max-stones 12 --out "${dir}/gap" --quiet
rm "${dir}/gap/layer-006.sdb"
fails_with 1 "layer-006.sdb is missing" probe --tables "${dir}/gap" 1 1 1 1 1 1 1 1 1 1 1 1
"${sowdb}" probe --tables "${dir}/gap" 2 0 0 0 0 0 0 0 0 0 0 0 >/dev/null ||
  fail "a position below the gap"

# --- 4. Interruption. ------------------------------------------------------------------------
# Level 19 makes each write last long enough to catch the process while it writes a
# temporary file: stopped there, signalled, then continued, it dies with the temporary present.
"${sowdb}" gen --variant oware/6x4 --max-stones 13 --zstd-level 19 --out "${dir}/fresh" --quiet
for sig in INT TERM HUP; do
  d="${dir}/int-${sig}"
  "${sowdb}" gen --variant oware/6x4 --max-stones 13 --zstd-level 19 --out "${d}" --quiet \
    2>"${dir}/int-err" &
  pid=$!
  until compgen -G "${d}/layer-01[0-3].sdb.tmp.*" >/dev/null; do
    running ${pid} || fail "${sig}: the run ended before it was caught writing"
  done
  kill -STOP ${pid}
  compgen -G "${d}/layer-*.sdb.tmp.${pid}" >/dev/null || fail "${sig}: no temporary while stopped"
  kill -${sig} ${pid}
  kill -CONT ${pid}
  set +e
  wait ${pid}
  rc=$?
  set -e
  case ${sig} in INT) want=130 ;; TERM) want=143 ;; HUP) want=129 ;; esac
  [[ ${rc} -eq ${want} ]] || fail "${sig}: exit ${rc}, want ${want}"
  [[ "$(wc -l <"${dir}/int-err")" == 1 ]] || fail "${sig}: not one line: $(cat "${dir}/int-err")"
  grep -Eq "^sowdb: interrupted; layers 0\.\.[0-9]+ are complete, a rerun continues$" \
    "${dir}/int-err" || fail "${sig}: $(cat "${dir}/int-err")"
  ! compgen -G "${d}/*.tmp.*" >/dev/null || fail "${sig}: a temporary was left: $(ls "${d}")"
  # The rerun continues from the complete layers and ends with the same bytes.
  "${sowdb}" gen --variant oware/6x4 --max-stones 13 --zstd-level 19 --out "${d}" \
    >"${dir}/rerun.txt"
  grep -q "reused" "${dir}/rerun.txt" || fail "${sig}: the rerun reused nothing"
  for n in $(seq -f "%03g" 0 13); do
    cmp "${d}/layer-${n}.sdb" "${dir}/fresh/layer-${n}.sdb" || fail "${sig}: layer ${n} differs"
  done
done

# --- 5. A rebuilt layer is explained; a foreign one named. ----------------------------------
d="${dir}/fresh"
truncate -s 100 "${d}/layer-007.sdb"
"${sowdb}" gen --variant oware/6x4 --max-stones 13 --zstd-level 19 --out "${d}" >"${dir}/rebuilt"
grep -q "^layer   7: .*layer-007.sdb.*; solving it again$" "${dir}/rebuilt" ||
  fail "no rebuild line: $(cat "${dir}/rebuilt")"
cmp "${d}/layer-007.sdb" "${dir}/int-INT/layer-007.sdb" || fail "the rebuilt layer differs"
printf 'garbage' >"${d}/layer-009.sdb"
"${sowdb}" gen --variant oware/6x4 --max-stones 13 --zstd-level 19 --out "${d}" --json \
  >"${dir}/rebuilt.json" 2>"${dir}/rebuilt.err"
grep -q '"n":9,.*"rebuilt_because":".*layer-009.sdb' "${dir}/rebuilt.json" ||
  fail "no rebuilt_because: $(cat "${dir}/rebuilt.json")"
grep -q "^layer   9: .*; solving it again$" "${dir}/rebuilt.err" || fail "no note on stderr"
cp "${dir}/m/layer-003.sdb" "${d}/layer-003.sdb"
fails_with 2 "layer-003.sdb has kalah rules" \
  gen --variant oware/6x4 --max-stones 13 --out "${d}"

echo "directory tests passed"
