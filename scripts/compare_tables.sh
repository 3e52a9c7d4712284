#!/usr/bin/env bash
# Builds the same table directories with two sowdb binaries and compares them byte for byte:
# the check that a change to the solver, the writer or the layout left every table as it was.
#
#   scripts/compare_tables.sh OLD_SOWDB NEW_SOWDB [WORK_DIR]
#   scripts/compare_tables.sh --format-version 6 SOWDB [WORK_DIR]
#
# Twelve variant/board sets: each family and grand-slam rule on the standard board, smaller
# boards with more seeds, and version 2 files (--no-recompute). Prints one line per set and
# exits 1 if any file differs (the lock file, which names the writing process, is left out).
# With --format-version 6 one binary writes each set twice, in the default versions and in
# version 6, whose bytes differ by design: every entry's value, depth and status are compared
# instead (scripts/compare_entries.py; /usr/bin/python3 with numpy, the module in
# SOWDB_PYTHONPATH, default build/python).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version6=0
if [[ "${1:-}" == --format-version ]]; then
  [[ "${2:-}" == 6 ]] || { echo "compare_tables.sh: only --format-version 6" >&2; exit 2; }
  version6=1
  shift 2
  set -- "$1" "$@"
fi

old=${1:?usage: compare_tables.sh OLD_SOWDB NEW_SOWDB [WORK_DIR]}
new=${2:?usage: compare_tables.sh OLD_SOWDB NEW_SOWDB [WORK_DIR]}
work=${3:-$(mktemp -d)}
mkdir -p "$work"

# variant  max-stones  extra gen flags
sets=(
  "oware 16"
  "abapa 12"
  "ayo 12"
  "oware/4x4 18"
  "wari-kc/3x4 22"
  "kalah 16"
  "kalah-tournament 14"
  "kalah-irving 14"
  "kalah/4x3 20"
  "wari-us 13"
  "wari-us/4x4 18"
  "oware 12 --no-recompute"
)

status=0
for s in "${sets[@]}"; do
  read -r variant stones flags <<<"$s"
  name=$(echo "$variant-$stones$flags" | tr '/ ' '__')
  for which in old new; do
    bin=$old
    [[ $which == new ]] && bin=$new
    more=()
    [[ $which == new && $version6 == 1 ]] && more=(--format-version 6)
    rm -rf "$work/$which/$name"
    # shellcheck disable=SC2086
    "$bin" gen --variant "$variant" --max-stones "$stones" --out "$work/$which/$name" --quiet $flags \
      "${more[@]}"
  done
  if [[ $version6 == 1 ]]; then
    if PYTHONPATH="${SOWDB_PYTHONPATH:-${here}/../build/python}" /usr/bin/python3 \
      "${here}/compare_entries.py" "$work/old/$name" "$work/new/$name" >"$work/entries.txt"; then
      echo "same      $name ($(cat "$work/entries.txt"))"
    else
      echo "DIFFERENT $name: $(cat "$work/entries.txt")"
      status=1
    fi
  elif diff -r -x .sowdb.lock "$work/old/$name" "$work/new/$name" >/dev/null; then
    files=$(ls "$work/new/$name" | wc -l)
    bytes=$(du -sb "$work/new/$name" | cut -f1)
    echo "same      $name ($files files, $bytes bytes)"
  else
    echo "DIFFERENT $name"
    diff -r -x .sowdb.lock "$work/old/$name" "$work/new/$name" | head -5 || true
    status=1
  fi
done
exit $status
