#!/usr/bin/env bash
# `sowdb gen`, `sowdb verify`, `sowdb stats` and `sowdb migrate` from the command line: JSON contracts, resume,
# refusal (exit 2) of a directory of another rule set, of every --out that cannot be used (a
# file, a path through one, a directory that cannot be created, listed or written in) and of a
# run too large for the machine, counts that add up and read in the singular for one, and the
# message for a format version this reader does not know.
# Usage: gen_cli_test.sh SOWDB
set -euo pipefail
sowdb="$1"
# shellcheck source=strict_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/strict_lib.sh"

# gen --json: one object per layer with the contract fields, then one summary object whose totals
# are the layers' sums.
"${sowdb}" gen --variant abapa/3x4 --max-stones 9 --out "${dir}/t" --json >"${dir}/gen.json"
python3 - "${dir}/gen.json" <<'PY' || fail "gen --json"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
rows, summary = lines[:-1], lines[-1]
assert [r["n"] for r in rows] == list(range(10)), rows
for r in rows:
    for f in ("n", "positions", "seconds", "positions_per_s", "peak_rss_bytes", "bytes_on_disk",
              "solve_seconds", "write_seconds"):
        assert f in r, (f, r)
    assert r["bytes_on_disk"] > 0 and r["reused"] is False and "summary" not in r
assert summary["summary"] is True and summary["variant"] == "abapa/3x4", summary
assert summary["max_stones"] == 9 and summary["layers"] == 10 and summary["layers_reused"] == 0
for f in ("positions", "bytes_on_disk"):
    assert summary[f] == sum(r[f] for r in rows), (f, summary)
for f in ("solve_seconds", "write_seconds"):
    assert abs(summary[f] - sum(r[f] for r in rows)) < 1e-6, (f, summary)
assert summary["solved_positions"] == summary["positions"]
assert summary["seconds"] >= summary["solve_seconds"] + summary["write_seconds"] - 1e-3
assert summary["peak_rss_bytes"] >= max(r["peak_rss_bytes"] for r in rows)
PY

# A rerun reuses every layer; one more layer is solved.
"${sowdb}" gen --variant abapa/3x4 --max-stones 10 --out "${dir}/t" --json >"${dir}/gen2.json"
python3 - "${dir}/gen2.json" <<'PY' || fail "resume"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
rows, summary = lines[:-1], lines[-1]
assert all(r["reused"] for r in rows[:10]) and not rows[10]["reused"], rows
assert summary["layers_reused"] == 10 and summary["solved_positions"] == rows[10]["positions"]
PY

# A half-written temporary left behind does not count as a layer; a damaged layer is rebuilt.
printf 'garbage' >"${dir}/t/layer-010.sdb"
"${sowdb}" gen --variant abapa/3x4 --max-stones 10 --out "${dir}/t" --quiet
"${sowdb}" verify --tables "${dir}/t" --quiet >/dev/null || fail "verify after rebuilding a damaged layer"

# Another rule set into the same directory: refused as bad input (exit 2) with one line.
fails_with 2 "another rule set" gen --variant ayo/3x4 --max-stones 4 --out "${dir}/t"

# An --out that is a file: bad input (exit 2), and the file is left alone.
printf 'keep' >"${dir}/a-file"
fails_with 2 "is not a directory" gen --variant abapa/3x4 --max-stones 3 --out "${dir}/a-file"
[[ "$(cat "${dir}/a-file")" == keep ]] || fail "an --out that is a file was changed"

# verify --json: every layer agrees.
"${sowdb}" verify --tables "${dir}/t" --json >"${dir}/verify.json" || fail "verify"
python3 - "${dir}/verify.json" <<'PY' || fail "verify --json"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
rows, summary = lines[:-1], lines[-1]
assert len(rows) == 11 and all(r["bad_values"] == r["bad_depths"] == r["unreadable"] == 0 for r in rows)
assert summary["summary"] is True and summary["verified"] is True and summary["problems"] == 0
assert summary["max_stones"] == 10 and summary["positions"] == sum(r["positions"] for r in rows)
assert summary["variant"] == "abapa/3x4", summary
PY

# stats --json: wins + draws + losses = positions, and the histogram adds up too.
"${sowdb}" stats --tables "${dir}/t" --json >"${dir}/stats.json" || fail "stats"
python3 - "${dir}/stats.json" <<'PY' || fail "stats --json"
import json, sys
for r in (json.loads(l) for l in open(sys.argv[1])):
    assert r["wins"] + r["draws"] + r["losses"] == r["positions"], r
    assert sum(r["values"].values()) == r["positions"], r
    # The depth histogram counts the decided positions, and agrees with the largest depth and
    # the mean.
    d = {int(k): v for k, v in r["depths"].items()}
    assert sum(d.values()) == r["wins"] + r["losses"], r
    assert max(d, default=0) == r["max_depth"] or not d, r
    if d:
        mean = sum(k * v for k, v in d.items()) / sum(d.values())
        assert abs(mean - r["mean_depth_decided"]) < 1e-9, r
PY
# stats --csv and --markdown: the same counts as --json, a line per layer.
"${sowdb}" stats --tables "${dir}/t" --csv >"${dir}/stats.csv" || fail "stats --csv"
"${sowdb}" stats --tables "${dir}/t" --markdown >"${dir}/stats.md" || fail "stats --markdown"
python3 - "${dir}" <<'PY' || fail "stats --csv / --markdown"
import csv, json, sys
d = sys.argv[1]
js = [json.loads(l) for l in open(f"{d}/stats.json")]
rows = list(csv.DictReader(open(f"{d}/stats.csv")))
assert len(rows) == len(js), (len(rows), len(js))
for r, j in zip(rows, js):
    for f in ("n", "positions", "wins", "draws", "losses", "max_depth"):
        assert int(r[f]) == j[f], (f, r, j)
    assert abs(float(r["mean_value"]) - j["mean_value"]) < 1e-5, (r, j)
    assert r["max_depth_position"] == j["max_depth_position"], (r, j)
md = [l for l in open(f"{d}/stats.md") if l.startswith("| ") and l[2].isdigit()]
assert len(md) == len(js), md
for l, j in zip(md, js):
    cells = [c.strip() for c in l.strip().strip("|").split("|")]
    assert int(cells[0]) == j["n"] and int(cells[1]) == j["positions"], (cells, j)
    assert abs(float(cells[2]) - 100 * j["wins"] / j["positions"]) < 0.006, (cells, j)
assert "abapa/3x4" in open(f"{d}/stats.md").readline()
PY

# Bad input: one line on stderr, exit 2.
for args in "gen --variant nope --max-stones 3 --out ${dir}/x" "verify --tables ${dir}/none" \
            "stats --tables ${dir}/none" "gen --variant oware --max-stones 999 --out ${dir}/x" \
            "verify --tables ${dir}/t --max-stones 100" "stats --tables ${dir}/t --max-stones 100"; do
  # shellcheck disable=SC2086  # the arguments are split on purpose
  fails_with 2 "" ${args}
done
fails_with 2 "" gen --variant oware/3x4 --max-stones 3 --out ""

# verify and stats on a damaged layer: exit 1 and one line on stderr naming the file.
cp -r "${dir}/t" "${dir}/damaged"
truncate -s 50 "${dir}/damaged/layer-005.sdb"
for cmd in verify stats; do
  fails_with 1 'layer-005.sdb' ${cmd} --tables "${dir}/damaged"
done
# stats on a damaged layer prints no line for it: a consumer reading line by line would take one
# for statistics.
set +e
"${sowdb}" stats --tables "${dir}/damaged" --json >"${dir}/out" 2>/dev/null
set -e
[[ "$(wc -l <"${dir}/out")" == 5 ]] ||
  fail "stats printed a line for the damaged layer: $(tail -1 "${dir}/out")"

# A missing middle layer hides the layers above it from every probe: verify and stats fail
# (exit 1, one line naming the gap) instead of checking the layers below it and passing;
# --max-stones below the gap checks those.
cp -r "${dir}/t" "${dir}/gap"
rm "${dir}/gap/layer-005.sdb"
for cmd in verify stats; do
  fails_with 1 'layer-005.sdb is missing' ${cmd} --tables "${dir}/gap"
  "${sowdb}" ${cmd} --tables "${dir}/gap" --max-stones 4 >/dev/null ||
    fail "${cmd} --max-stones 4 below the gap"
done

# A rerun over complete tables writes nothing, not even the manifest (so that it passes on a
# read-only or full file system); what a killed run left behind goes (temporaries of processes
# that no longer exist, the second write of a Kalah-family layer), a live process's stays.
before="$(stat -c %i "${dir}/t/sowdb.json")"
dead=4194304
while kill -0 "${dead}" 2>/dev/null; do dead=$((dead - 1)); done
touch "${dir}/t/layer-011.sdb.tmp.${dead}" "${dir}/t/sowdb.json.tmp.${dead}" \
  "${dir}/t/layer-003.sdb.plain" "${dir}/t/layer-011.sdb.tmp.$$"
"${sowdb}" gen --variant abapa/3x4 --max-stones 10 --out "${dir}/t" --quiet
[[ "$(stat -c %i "${dir}/t/sowdb.json")" == "${before}" ]] || fail "a rerun rewrote the manifest"
for f in "layer-011.sdb.tmp.${dead}" "sowdb.json.tmp.${dead}" layer-003.sdb.plain; do
  [[ ! -e "${dir}/t/${f}" ]] || fail "a rerun left ${f} behind"
done
[[ -e "${dir}/t/layer-011.sdb.tmp.$$" ]] || fail "a rerun removed a live process's temporary"
rm "${dir}/t/layer-011.sdb.tmp.$$"

# A run that cannot fit in memory is refused before any work (bad input: exit 2), and creates
# nothing.
fails_with 2 "too many to solve" gen --variant oware/8x4 --max-stones 40 --out "${dir}/huge"
fails_with 2 "GiB of memory; the memory limit is" gen --variant oware --max-stones 12 \
  --memory-limit 0.001 --out "${dir}/huge"
fails_with 2 "cannot create .*: Not a directory" gen --variant abapa/3x4 --max-stones 3 \
  --out "${dir}/a-file/sub"
[[ ! -e "${dir}/huge" ]] || fail "a refused run created its directory"

# Every --out that cannot be used is bad input (exit 2), whatever the reason: not only a file or
# a path through one, but also a directory that cannot be created for any other reason.
fails_with 2 "cannot create /proc/sowdb-no-such-dir/t: No such file or directory" \
  gen --variant abapa/3x4 --max-stones 3 --out /proc/sowdb-no-such-dir/t
# Permissions: as an unprivileged user (root ignores them). A run with nothing to write still
# passes on a read-only directory.
as_user=()
if [[ "$(id -u)" == 0 ]]; then
  as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  chmod 755 "${dir}"
fi
if "${as_user[@]}" "${sowdb}" --version >/dev/null 2>&1; then
  mkdir "${dir}/ro" "${dir}/no-read"
  cp -r "${dir}/t" "${dir}/ro/complete"
  chmod 555 "${dir}/ro" "${dir}/ro/complete"
  chmod 333 "${dir}/no-read"
  sowdb_real="${sowdb}"
  # fails_with runs "${sowdb}" "$@": run it through the unprivileged user.
  run_as() { "${as_user[@]}" "${sowdb_real}" "$@"; }
  sowdb=run_as
  fails_with 2 "cannot write ${dir}/ro/sowdb.json: Permission denied" \
    gen --variant abapa/3x4 --max-stones 3 --out "${dir}/ro"
  fails_with 2 "cannot create ${dir}/ro/sub: Permission denied" \
    gen --variant abapa/3x4 --max-stones 3 --out "${dir}/ro/sub"
  fails_with 2 "cannot read ${dir}/no-read: Permission denied" \
    gen --variant abapa/3x4 --max-stones 3 --out "${dir}/no-read"
  run_as gen --variant abapa/3x4 --max-stones 10 --out "${dir}/ro/complete" --quiet ||
    fail "a rerun with nothing to write failed on a read-only directory"
  fails_with 2 "cannot write in ${dir}/ro/complete: Permission denied" \
    gen --variant abapa/3x4 --max-stones 11 --out "${dir}/ro/complete"
  sowdb="${sowdb_real}"
  chmod 755 "${dir}/ro" "${dir}/ro/complete" "${dir}/no-read"
else
  echo "gen_cli_test: skipped the permission checks (no unprivileged user to run them as)"
fi

# Counts of one in the singular: layer 0 holds 1 position; one thread.
"${sowdb}" gen --variant abapa/3x4 --max-stones 1 --out "${dir}/one" --threads 1 >"${dir}/out"
grep -q '^layer   0: *1 position, ' "${dir}/out" || fail "gen: layer 0: $(head -1 "${dir}/out")"
grep -q '^done: .*, 1 thread$' "${dir}/out" || fail "gen: $(tail -1 "${dir}/out")"
"${sowdb}" verify --tables "${dir}/one" >"${dir}/out"
grep -q '^layer   0: *1 position, all entries agree' "${dir}/out" ||
  fail "verify: layer 0: $(head -1 "${dir}/out")"

# A layer of a format version this reader does not know: the message says which it knows.
cp -r "${dir}/one" "${dir}/future"
printf '\x09\x00' | dd of="${dir}/future/layer-001.sdb" bs=1 seek=8 conv=notrunc status=none
fails_with 1 "layer-001.sdb: check 3: format version 9 (this reader knows versions 1\.\.[0-9]*)" \
  verify --tables "${dir}/future"

# migrate: version 2 files come out as the files gen writes now, with one JSON object per layer
# and a summary; an output directory that is not empty and a source that is not a table
# directory are bad input.
"${sowdb}" gen --variant abapa/3x4 --max-stones 9 --out "${dir}/v2" --no-recompute --quiet
"${sowdb}" migrate --tables "${dir}/v2" --out "${dir}/v4" --json >"${dir}/migrate.json"
for n in 0 1 2 3 4 5 6 7 8 9; do
  f=$(printf 'layer-%03d.sdb' "$n")
  cmp -s "${dir}/t/$f" "${dir}/v4/$f" || fail "migrate: $f differs from gen's"
done
python3 - "${dir}/migrate.json" <<'PY' || fail "migrate --json"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
rows, summary = lines[:-1], lines[-1]
assert [r["n"] for r in rows] == list(range(10)), rows
for r in rows:
    for f in ("positions", "seconds", "bytes_before", "bytes_on_disk", "format_version"):
        assert f in r, (f, r)
assert rows[-1]["format_version"] == 4 and rows[-1]["bytes_on_disk"] < rows[-1]["bytes_before"]
assert summary["summary"] is True and summary["layers"] == 10 and summary["recompute"] is True
assert summary["bytes_on_disk"] == sum(r["bytes_on_disk"] for r in rows), summary
PY
fails_with 2 "exists and is not an empty directory" migrate --tables "${dir}/v2" --out "${dir}/v4"
fails_with 2 "no such directory" migrate --tables "${dir}/nowhere" --out "${dir}/v5"

# A leading zero is decimal: --max-stones 011 is eleven, not octal nine.
fails_with 2 "--max-stones 11: .* holds layers up to 10" stats --tables "${dir}/t" --max-stones 011
echo "gen_cli_test: all checks passed"
