#!/usr/bin/env bash
# The JSON that `sowdb probe --json` and `sowdb stats --json` print, against the committed
# examples in tests/data/json/ (the same reports as tests/analysis/json_examples_test.cpp, here
# through the program): a key renamed, misspelt, dropped or added fails. Values that depend on
# the zstd library's version (bytes_on_disk) are compared by presence only.
# Usage: json_examples_cli_test.sh SOWDB EXAMPLES_DIR
SOWDB="$1"
EXAMPLES="$2"
source "$(dirname "$0")/cli_lib.sh"

"$SOWDB" gen --variant kalah/4x3 --max-stones 10 --out "$TMP/kalah" --quiet &&
  "$SOWDB" gen --variant oware/6x4 --max-stones 5 --out "$TMP/oware" --quiet &&
  "$SOWDB" gen --variant wari-kc/3x2 --max-stones 12 --out "$TMP/coop" --quiet \
    --objective cooperative || {
  echo "FAIL: gen" >&2
  exit 1
}

# same EXAMPLE: $TMP/out (one JSON object, or one per line for a JSON array example) equals
# tests/data/json/EXAMPLE.
same() {
  python3 - "$TMP/out" "$EXAMPLES/$1" <<'PY' || fail "$1 differs from the program's output"
import json, sys
def masked(j):
    if isinstance(j, dict):
        return {k: (None if k == "bytes_on_disk" else masked(v)) for k, v in j.items()}
    if isinstance(j, list):
        return [masked(e) for e in j]
    return j
want = json.load(open(sys.argv[2]))
text = open(sys.argv[1]).read()
got = [json.loads(l) for l in text.splitlines()] if isinstance(want, list) else json.loads(text)
if masked(got) != masked(want):
    print(json.dumps(got, indent=1)[:3000], file=sys.stderr)
    sys.exit(1)
PY
}

good probe --tables "$TMP/kalah" --json 1 2 0 1 1 0 2 3 && same probe.json
good probe --tables "$TMP/oware" --json --stores 22,22 0 0 0 1 0 1 1 0 0 1 0 0 &&
  same probe_stores.json
good probe --tables "$TMP/coop" --json 2 2 2 2 2 2 && same probe_cooperative.json
good stats --tables "$TMP/kalah" --json --max-stones 3 && same stats.json
good stats --tables "$TMP/coop" --json --max-stones 3 && same stats_cooperative.json
# Bulk mode answers each line with the same object.
CHECKS=$((CHECKS + 1))
echo '1 2 0 1 1 0 2 3' | "$SOWDB" probe --tables "$TMP/kalah" --json - >"$TMP/out" &&
  same probe.json

finish
