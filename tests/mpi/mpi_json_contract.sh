#!/usr/bin/env bash
# The contract of `sowdb-mpi gen --json` and of its text: what `sowdb gen` prints for the same run.
#
#   mpi_json_contract.sh SOWDB SOWDB_MPI WORK_DIR RANKS VARIANT MAX_STONES
#
# Runs `sowdb gen --json` and `mpirun -np RANKS sowdb-mpi gen --json` for VARIANT's layers
# 0..MAX_STONES and asserts that every line sowdb-mpi prints is JSON; that each layer line has
# every field of sowdb gen's line with the same JSON type, and besides them exactly the MPI fields
# docs/CLUSTER.md names; that the summary line has exactly sowdb gen's fields and types; and that
# the values both runs must agree on (layers, positions, sizes, variant, threads) agree. Then a
# rerun of each over its complete directory (every layer reused: no times in the text) must print
# the same text, byte for byte: the layer lines and the `done:` line with its sizes. Exits 77
# (skipped) when mpirun is missing.
set -euo pipefail
sowdb=$1 mpi=$2 work=$3 ranks=$4 variant=$5 stones=$6
command -v mpirun >/dev/null || { echo "mpirun not found: skipped"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf "$work"
mkdir -p "$work"
gen() {
  "$sowdb" gen --variant "$variant" --max-stones "$stones" --out "$work/gen" --threads 1 "$@"
}
mpi() {
  mpirun --oversubscribe -np "$ranks" "$mpi" gen --variant "$variant" --max-stones "$stones" \
    --out "$work/mpi" --threads 1 "$@"
}
gen --json >"$work/gen.json"
mpi --json >"$work/mpi.json"
python3 - "$work/gen.json" "$work/mpi.json" "$ranks" <<'PY'
import json, sys

def lines(path):
    out = []
    for number, text in enumerate(open(path), 1):
        try:
            out.append(json.loads(text))
        except ValueError:
            sys.exit(f"{path}:{number}: not a JSON line: {text!r}")
        if not isinstance(out[-1], dict):
            sys.exit(f"{path}:{number}: not a JSON object: {text!r}")
    return out

def shape(obj):
    # JSON's types as Python reads them: an integer is not a number with a fraction.
    return {key: type(value).__name__ for key, value in obj.items()}

gen, mpi, ranks = lines(sys.argv[1]), lines(sys.argv[2]), int(sys.argv[3])
assert len(mpi) == len(gen), (len(mpi), len(gen))
# docs/CLUSTER.md: "--json adds per layer bytes_sent, messages_sent, slowest_rank_seconds,
# slowest_rank, rank0_peak_rss_bytes and other_ranks_peak_rss_bytes" (and the ranks).
mpi_fields = {"ranks": "int", "bytes_sent": "int", "messages_sent": "int",
              "slowest_rank_seconds": "float", "slowest_rank": "int",
              "rank0_peak_rss_bytes": "int", "other_ranks_peak_rss_bytes": "int"}
for g, m in zip(gen[:-1], mpi[:-1]):
    sg, sm = shape(g), shape(m)
    missing = {k: t for k, t in sg.items() if sm.get(k) != t}
    assert not missing, f"layer {m.get('n')}: gen's fields missing or of another type: {missing}"
    extra = {k: t for k, t in sm.items() if k not in sg}
    assert extra == mpi_fields, f"layer {m['n']}: fields besides gen's: {extra}"
    for key in ("n", "positions", "bytes_on_disk", "reused"):
        assert m[key] == g[key], (key, m, g)
    assert m["ranks"] == ranks, m
assert [m["n"] for m in mpi[:-1]] == [g["n"] for g in gen[:-1]]
sg, sm = shape(gen[-1]), shape(mpi[-1])
assert sm == sg, f"summary fields: sowdb-mpi {sm}, sowdb gen {sg}"
for key in ("summary", "variant", "max_stones", "layers", "layers_reused", "positions",
            "solved_positions", "bytes_on_disk", "bytes_per_position", "threads", "zstd_level",
            "recompute", "objective"):
    assert mpi[-1][key] == gen[-1][key], (key, mpi[-1][key], gen[-1][key])
print(f"{len(mpi) - 1} layer lines and the summary: sowdb gen's fields and types")
PY
# Every layer reused: the text has no times, so the two programs print the same bytes.
gen >"$work/gen.txt"
mpi >"$work/mpi.txt"
if ! cmp "$work/gen.txt" "$work/mpi.txt"; then
  diff "$work/gen.txt" "$work/mpi.txt" || true
  echo "FAIL: sowdb-mpi's text is not sowdb gen's"
  exit 1
fi
grep -q '^done: ' "$work/mpi.txt" || { echo "FAIL: no done: line"; cat "$work/mpi.txt"; exit 1; }
echo "the text of a rerun: the same $(wc -l <"$work/mpi.txt") lines"
