#!/usr/bin/env bash
# `sowdb solve` keeps what its search proves in the proof store and resumes from it (issue 44):
# a solve stopped by SIGTERM, once a checkpoint holds half the worths exact, is resumed to the answer of
# an uninterrupted run with fewer positions searched; a solve proved before answers at once; a
# damaged store file costs a search, never a wrong answer.
# Usage: solve_checkpoint_test.sh SOWDB
set -euo pipefail
sowdb="$1"
# shellcheck source=strict_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/strict_lib.sh"

# Kalah(5,3) over tables 0..8: a search of some 300 K positions in 8 searches (4 first moves, 4
# continuations), one thread so that its positions are counted the same every run.
"${sowdb}" gen --variant kalah-irving/5x3 --max-stones 8 --out "${dir}/few" --quiet
# solve CACHE ARGS...: solve Kalah(5,3) with its proof store in the cache directory CACHE.
solve() {
  local cache=$1
  shift
  SOWDB_CACHE_DIR="${dir}/${cache}" "${sowdb}" solve --variant kalah-irving/5x3 \
    --tables "${dir}/few" --threads 1 "$@"
}
# same A B: the two JSON answers have the same value and the same moves (every worth, bound and
# continuation); then the Python expression EXPR holds of B (as j) and A (as w).
same() {
  python3 - "$1" "$2" "$3" <<'PY' || fail "$3: $(head -c 800 "$2")"
import json, sys
w, j = (json.load(open(f)) for f in sys.argv[1:3])
assert j["complete"] and (j["value"], j["best"], j["moves"]) == (w["value"], w["best"], w["moves"]), (j, w)
assert eval(sys.argv[3]), sys.argv[3]
PY
}

# 1. The answer of an uninterrupted run, with a store of its own.
solve whole --json >"${dir}/whole.json"
python3 - "${dir}/whole.json" <<'PY' || fail "the uninterrupted run: $(cat "${dir}/whole.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["complete"] and j["value"] == 8 and j["nodes"] > 0, j
c = j["checkpoint"]
assert c["resumed"] is False and c["lower"] is None and c["total"] == 8 and c["writes"] >= 1, c
# A fresh store holds no position, and a finished search keeps its answer, not its positions.
assert c["positions"] == 0 and c["kept"] == 0, c
PY

# 2. A checkpoint at every chance; SIGTERM once one holds half the worths exact (an event on
# standard error, read through a pipe: no sleeping). The last checkpoint is written before the
# exit.
mkfifo "${dir}/fifo"
# (sowdb itself in the background, not the function: the signal must reach it, not a subshell.)
SOWDB_CACHE_DIR="${dir}/part" "${sowdb}" solve --variant kalah-irving/5x3 --tables "${dir}/few" \
  --threads 1 --checkpoint-seconds 0.001 >"${dir}/part.txt" 2>"${dir}/fifo" &
pid=$!
killed=0
pattern='^sowdb: checkpoint: value in .*, ([0-9]+) of ([0-9]+) first moves and continuations exact'
while IFS= read -r line; do
  printf '%s\n' "${line}" >>"${dir}/part.err"
  if [[ ${killed} -eq 0 && "${line}" =~ ${pattern} ]] && ((2 * BASH_REMATCH[1] >= BASH_REMATCH[2])); then
    kill -TERM ${pid}
    killed=1
  fi
done <"${dir}/fifo"
set +e
wait ${pid}
rc=$?
set -e
[[ ${killed} -eq 1 ]] || fail "no checkpoint held half the worths exact: $(cat "${dir}/part.err")"
[[ ${rc} -eq 143 ]] || fail "SIGTERM: exit ${rc}: $(cat "${dir}/part.err")"
grep -q "^interrupted by SIGTERM after" "${dir}/part.txt" || fail "$(cat "${dir}/part.txt" "${dir}/part.err")"

# 3. Resumed: the same answer, from the bounds the store kept, with fewer positions searched.
solve part --json >"${dir}/resumed.json"
same "${dir}/whole.json" "${dir}/resumed.json" \
  "j['checkpoint']['resumed'] and j['checkpoint']['exact'] >= 4 and 0 < j['nodes'] < w['nodes'] and j['checkpoint']['positions'] > 0"
python3 -c 'import json, sys
w, j = (json.load(open(f)) for f in sys.argv[1:])
print("positions: uninterrupted", w["nodes"], "resumed", j["nodes"],
      "after", j["checkpoint"]["exact"], "of", j["checkpoint"]["total"], "worths exact")' \
  "${dir}/whole.json" "${dir}/resumed.json"

# 4. Proved before: answered at once, and the text says where from.
solve part --json >"${dir}/again.json"
same "${dir}/whole.json" "${dir}/again.json" \
  "j['nodes'] == 0 and j['checkpoint']['exact'] == j['checkpoint']['total'] == 8"
solve part >"${dir}/again.txt" 2>"${dir}/again.err"
grep -q "^sowdb: resumed from the proof store ${dir}/part/proofs/.*\.sowproof: value in \[+8, +8\], 8 of 8 first moves and continuations bounded, 8 exact, [0-9][0-9]* proved positions$" \
  "${dir}/again.err" || fail "resume line: $(cat "${dir}/again.err")"
# --no-checkpoint: the store neither read nor written.
solve part --no-checkpoint --json >"${dir}/fresh.json"
same "${dir}/whole.json" "${dir}/fresh.json" "j['checkpoint'] is None and j['nodes'] == w['nodes']"

# 5. Every record of the store damaged (a byte flipped in each): not believed, so the search
# runs again from nothing, to the same answer.
store="$(echo "${dir}"/part/proofs/*.sowproof)"
python3 - "${store}" <<'PY' || fail "no record to damage in ${store}"
import os, sys
# The file is sparse (256 MiB, a few records written): visit only its data.
fd = os.open(sys.argv[1], os.O_RDWR)
end = os.fstat(fd).st_size
flipped, at = 0, 4096
while at < end:
    try:
        at = os.lseek(fd, at, os.SEEK_DATA)
    except OSError:
        break
    hole = os.lseek(fd, at, os.SEEK_HOLE)
    for r in range(at - at % 64, hole, 64):
        record = bytearray(os.pread(fd, 64, r))
        if r >= 4096 and any(record):
            record[20] ^= 0x5A
            os.pwrite(fd, bytes(record), r)
            flipped += 1
    at = hole
assert flipped >= 2, flipped
PY
solve part --json >"${dir}/damaged.json"
same "${dir}/whole.json" "${dir}/damaged.json" \
  "not j['checkpoint']['resumed'] and j['nodes'] == w['nodes']"
# A damaged header: the file is set aside, a fresh one takes its place, and the answer holds.
printf '\xff\xfe' | dd of="${store}" bs=1 seek=8 conv=notrunc 2>/dev/null
solve part --json >"${dir}/header.json"
same "${dir}/whole.json" "${dir}/header.json" \
  "not j['checkpoint']['resumed'] and any('set aside' in n for n in j['notes'])"
echo "solve_checkpoint: ok"
