#!/usr/bin/env bash
# The checks a change must pass before review (CONTRIBUTING.md), in order:
#   1. clang-format --dry-run --Werror on every C and C++ source and header of the repository
#      (git ls-files, so build directories and third-party copies are never looked at);
#   2. a build with warnings as errors (SOWDB_WARNINGS_AS_ERRORS=ON) of every target;
#   3. clang-tidy with .clang-tidy over every translation unit of the project's own code, from the
#      compile database of that build (libraries, program, tests, examples, benchmarks).
# Usage: scripts/lint.sh [format|werror|tidy]...   (no argument: all three, in that order)
# Environment: SOWDB_LINT_BUILD_DIR (default build-lint), SOWDB_JOBS (default: nproc),
#   SOWDB_TIDY_FILES (a regular expression: only the translation units it matches; default all).
# Exits 1 at the first check that fails, after printing what it found.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build="${SOWDB_LINT_BUILD_DIR:-${root}/build-lint}"
jobs="${SOWDB_JOBS:-$(nproc)}"
steps=("$@")
((${#steps[@]})) || steps=(format werror tidy)

# Configures the lint build: the compile database always; warnings as errors for the werror
# step (tidy alone keeps an existing build's flags, so it can reuse that build's objects).
configure() {
  local args=(-DCMAKE_EXPORT_COMPILE_COMMANDS=ON "$@")
  if [[ ! -f "${build}/CMakeCache.txt" ]]; then
    args+=(-G Ninja -DCMAKE_BUILD_TYPE=Release)
  fi
  cmake -S "$root" -B "$build" "${args[@]}" >/dev/null
}

check_format() {
  echo "==> lint: clang-format --dry-run --Werror"
  local files
  mapfile -t files < <(git ls-files -- '*.c' '*.h' '*.cc' '*.cpp' '*.hpp')
  if ! clang-format --dry-run --Werror "${files[@]}"; then
    echo "lint: these files do not match .clang-format; run clang-format -i on them" >&2
    return 1
  fi
  echo "    ${#files[@]} files formatted"
}

check_tidy() {
  echo "==> lint: clang-tidy (.clang-tidy) over the compile database"
  configure
  # The generated sources (version.h) must exist before clang-tidy parses anything.
  cmake --build "$build" --parallel "$jobs" --target sowdb_probe >/dev/null
  local filter="${SOWDB_TIDY_FILES:-.*}"
  local units
  mapfile -t units < <(python3 - "$build/compile_commands.json" "$root" "$filter" <<'PY'
import json, os, re, sys
db, root, pattern = sys.argv[1], sys.argv[2], re.compile(sys.argv[3])
seen = set()
for entry in json.load(open(db)):
    f = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
    rel = os.path.relpath(f, root)
    if rel.startswith("..") or rel.startswith("build") or "/_deps/" in f:
        continue
    if pattern.search(rel) and rel not in seen:
        seen.add(rel)
        print(rel)
PY
  )
  echo "    ${#units[@]} translation units"
  # The database holds g++'s flags; clang-tidy's front end is clang, which does not know all.
  run-clang-tidy -quiet -p "$build" -j "$jobs" -extra-arg=-Wno-unknown-warning-option \
    "${units[@]/#/$root/}" >"${build}/tidy.log" 2>&1 || true
  if grep -E "(warning|error): .*\[[a-z-]+(,[a-z.-]+)*\]" "${build}/tidy.log"; then
    echo "lint: clang-tidy findings above (full log: ${build}/tidy.log)" >&2
    return 1
  fi
  if grep -q "^Error while processing\|clang-tidy.*failed" "${build}/tidy.log"; then
    tail -20 "${build}/tidy.log" >&2
    return 1
  fi
  echo "    no findings"
}

check_werror() {
  echo "==> lint: build with warnings as errors"
  configure -DSOWDB_WARNINGS_AS_ERRORS=ON
  cmake --build "$build" --parallel "$jobs"
}

for step in "${steps[@]}"; do
  case "$step" in
    format) check_format ;;
    tidy) check_tidy ;;
    werror) check_werror ;;
    *)
      echo "lint: unknown step '$step' (format, tidy, werror)" >&2
      exit 2
      ;;
  esac
done
echo "==> lint: passed"
