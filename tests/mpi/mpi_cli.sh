#!/usr/bin/env bash
# sowdb-mpi as a front end: --help and gen --help exit 0 and name gen's options; a mistyped
# option, a missing required one and a value out of range exit 2 with one line naming the flag;
# a refused request (co-operative tables) exits 2 with one line.
#
#   mpi_cli.sh SOWDB_MPI WORK_DIR
#
# Runs the program alone (an MPI singleton). Exits 77 (skipped) when mpirun is missing.
set -euo pipefail
mpi=$1 work=$2
command -v mpirun >/dev/null || { echo "mpirun not found: skipped"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

"$mpi" --help >"$work/help.txt" || fail "sowdb-mpi --help exited $?"
grep -q "gen" "$work/help.txt" || fail "--help does not name gen: $(cat "$work/help.txt")"
"$mpi" gen --help >"$work/gen_help.txt" || fail "sowdb-mpi gen --help exited $?"
for flag in --variant --pits --max-stones --out --threads --quiet --json --block-entries \
  --no-recompute --zstd-level --objective --memory-limit --write-mode; do
  grep -q -- "$flag" "$work/gen_help.txt" || fail "gen --help does not name $flag"
done

# fails_with CODE TEXT ARGS...: exit code CODE and one line on stderr that contains TEXT.
fails_with() {
  local code=$1 text=$2
  shift 2
  local status=0
  "$mpi" "$@" >"$work/out.txt" 2>"$work/err.txt" || status=$?
  [[ $status -eq $code ]] || fail "sowdb-mpi $*: exit $status, expected $code: $(cat "$work/err.txt")"
  [[ $(wc -l <"$work/err.txt") -eq 1 ]] || fail "sowdb-mpi $*: not one line: $(cat "$work/err.txt")"
  grep -q -- "$text" "$work/err.txt" || fail "sowdb-mpi $*: no '$text' in: $(cat "$work/err.txt")"
}
fails_with 2 "unknown option '--max-stone'" gen --variant oware --max-stone 3 --out "$work/t"
fails_with 2 "unknown command 'generate'" generate --variant oware
fails_with 2 "--max-stones" gen --variant oware --out "$work/t"
fails_with 2 "--zstd-level" gen --variant oware --max-stones 3 --out "$work/t" --zstd-level 23
fails_with 2 "--write-mode" gen --variant oware --max-stones 3 --out "$work/t" --write-mode x
fails_with 2 "--threads" gen --variant oware --max-stones 3 --out "$work/t" --threads 0
fails_with 2 "co-operative" gen --variant kalah/2x1 --max-stones 2 --out "$work/t" \
  --objective cooperative
echo "help, gen --help and 7 refusals as sowdb gen gives them"
