#!/usr/bin/env bash
# compare_dirs.sh A B: the same file names in A and B (the lock file left out), each pair equal
# by cmp. Prints the first difference and exits 1 otherwise.
set -euo pipefail
a=$1 b=$2
list() { (cd "$1" && find . -type f ! -name .sowdb.lock | sort); }
if [[ "$(list "$a")" != "$(list "$b")" ]]; then
  echo "different files:"
  diff <(list "$a") <(list "$b") || true
  exit 1
fi
count=0
while read -r f; do
  cmp "$a/$f" "$b/$f"
  count=$((count + 1))
done < <(list "$a")
[[ $count -gt 0 ]] || { echo "no files in $a"; exit 1; }
echo "$count files identical"
