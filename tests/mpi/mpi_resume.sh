#!/usr/bin/env bash
# A rank killed mid-layer ends the job with a non-zero exit and a message naming it, leaves no
# file under a layer's final name that is not complete, and a rerun resumes to the files sowdb
# gen builds.
#
#   mpi_resume.sh SOWDB SOWDB_MPI WORK_DIR RANKS VARIANT MAX_STONES KILL_RANK KILL_LAYER [gen flags...]
set -euo pipefail
sowdb=$1 mpi=$2 work=$3 ranks=$4 variant=$5 stones=$6 kill_rank=$7 kill_layer=$8
shift 8
flags=("$@")
command -v mpirun >/dev/null || { echo "mpirun not found: skipped"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf "$work"
mkdir -p "$work"
"$sowdb" gen --variant "$variant" --max-stones "$stones" --out "$work/gen" --quiet ${flags[@]+"${flags[@]}"}
run() {
  mpirun --oversubscribe -np "$ranks" "$mpi" gen --variant "$variant" --max-stones "$stones" \
    --out "$work/mpi" --threads 1 --quiet ${flags[@]+"${flags[@]}"} "$@"
}
# The hook makes rank KILL_RANK kill itself (SIGKILL) as it starts to solve layer KILL_LAYER.
set +e
SOWDB_MPI_TEST_KILL="$kill_rank:$kill_layer" run >"$work/killed.out" 2>"$work/killed.err"
status=$?
set -e
cat "$work/killed.err"
if [[ $status -eq 0 ]]; then
  echo "FAIL: the job with a killed rank exited 0"
  exit 1
fi
if ! grep -q "rank $kill_rank" "$work/killed.err"; then
  echo "FAIL: the message does not name rank $kill_rank"
  exit 1
fi
# Every layer below KILL_LAYER is complete and as gen's; none at or above it exists.
for ((n = 0; n <= stones; n++)); do
  f=$(printf 'layer-%03d.sdb' "$n")
  if ((n < kill_layer)); then
    cmp "$work/gen/$f" "$work/mpi/$f"
  elif [[ -e "$work/mpi/$f" ]]; then
    echo "FAIL: $f exists after the job died at layer $kill_layer"
    exit 1
  fi
done
run --json >"$work/resumed.out"
# The rerun read back the layers the killed job had written (resolving their recompute entries
# over the ranks) and solved the others.
reused=$(grep -c '"reused":true' "$work/resumed.out" || true)
if [[ $reused -ne $kill_layer ]]; then
  echo "FAIL: the rerun reused $reused layers; expected $kill_layer"
  cat "$work/resumed.out"
  exit 1
fi
"$(dirname "$0")/compare_dirs.sh" "$work/gen" "$work/mpi"
