#!/usr/bin/env bash
# sowdb-mpi builds the same files as sowdb gen, byte for byte.
#
#   mpi_identity.sh SOWDB SOWDB_MPI WORK_DIR RANKS VARIANT MAX_STONES [gen flags...]
#
# Builds VARIANT's layers 0..MAX_STONES with `sowdb gen` and with `mpirun -np RANKS sowdb-mpi
# gen` into WORK_DIR and compares every file with cmp (the lock file, which names the writing
# process, is left out). SOWDB_MPI_FLAGS: more flags for sowdb-mpi only (--write-mode). Exits
# 77 (skipped) when mpirun is missing.
set -euo pipefail
sowdb=$1 mpi=$2 work=$3 ranks=$4 variant=$5 stones=$6
shift 6
command -v mpirun >/dev/null || { echo "mpirun not found: skipped"; exit 77; }
# Open MPI refuses root without these; --oversubscribe lets 3 or 4 ranks share 2 cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf "$work"
mkdir -p "$work"
"$sowdb" gen --variant "$variant" --max-stones "$stones" --out "$work/gen" --quiet "$@"
mpirun --oversubscribe -np "$ranks" "$mpi" gen --variant "$variant" --max-stones "$stones" \
  --out "$work/mpi" --threads 1 --quiet ${SOWDB_MPI_FLAGS:-} "$@"
"$(dirname "$0")/compare_dirs.sh" "$work/gen" "$work/mpi"
