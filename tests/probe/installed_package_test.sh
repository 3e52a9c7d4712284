#!/usr/bin/env bash
# A C program built against an installed sowdb the way the README's C quick start says: plain
# `cc ... $(pkg-config --cflags --libs sowdb)` with PKG_CONFIG_PATH into the prefix (the CMake
# routes, find_package and pkg_check_modules, are examples/standalone/'s, built by
# scripts/test.sh). Compiles examples/play_game.c and the README's quick-start program, runs
# play_game without tables, and, when the prefix holds the program sowdb, runs both on small
# tables it writes.
# Usage: installed_package_test.sh CC PREFIX LIBDIR SOURCE_DIR
#   PREFIX: a prefix `cmake --install` filled (the fixture install_prefix.sh); LIBDIR: the
#   install libdir relative to it (CMAKE_INSTALL_LIBDIR)
# Environment: SOWDB_TEST_CFLAGS, the build's C and link flags (the sanitizers' among them), added
#   to each compile: the archives of a sanitized build link only into sanitized programs.
set -euo pipefail
cc=$1
prefix=$2
libdir=$3
src=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/sowdb-installed.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}

export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
pkg-config --exists sowdb || fail "pkg-config finds no sowdb in $PKG_CONFIG_PATH"
# The .pc file must point into this prefix (it is relocatable), not at the build tree.
pc_prefix=$(cd "$(pkg-config --variable=prefix sowdb)" && pwd -P)
[[ "$pc_prefix" == "$(cd "$prefix" && pwd -P)" ]] ||
  fail "sowdb.pc's prefix is $pc_prefix, not $prefix"
read -r -a flags <<<"$(pkg-config --cflags --libs sowdb)"
read -r -a build_flags <<<"${SOWDB_TEST_CFLAGS:-}"

# The README's C quick start: the ```c block of "Engine quick start (C)", a whole program.
awk '/^### Engine quick start \(C\)/ { section = 1; next }
     /^### / { section = 0 }
     section && /^```c$/ { code = 1; next }
     section && code && /^```$/ { exit }
     section && code { print }' "$src/README.md" >"$work/quick_start.c"
[[ -s "$work/quick_start.c" ]] || fail "no \`\`\`c block under README.md's Engine quick start (C)"

for program in play_game quick_start; do
  source_file="$src/examples/play_game.c"
  [[ $program == quick_start ]] && source_file="$work/quick_start.c"
  if ! "$cc" -std=c99 -pedantic-errors -Wall -Wextra -Werror "$source_file" "${flags[@]}" \
    ${build_flags[@]+"${build_flags[@]}"} \
    -o "$work/$program" 2>"$work/cc.err"; then
    cat "$work/cc.err"
    fail "$source_file does not build with pkg-config --cflags --libs sowdb from $prefix"
  fi
done

# Without tables: exit 1 and one line naming the cause.
status=0
"$work/play_game" "$work/no-tables" >"$work/out" 2>"$work/err" || status=$?
[[ $status -eq 1 ]] || fail "play_game without tables exited $status, not 1"
grep -q '^play_game: cannot open the tables: ' "$work/err" ||
  fail "play_game without tables: unclear error: $(cat "$work/err")"

if [[ ! -x "$prefix/bin/sowdb" ]]; then
  echo "installed_package_test: both programs link; no sowdb in $prefix/bin, so none is run on tables"
  exit 0
fi
# Tables where the quick start looks (tables/oware-6, as scripts/run.sh writes them), small.
mkdir -p "$work/run/tables"
"$prefix/bin/sowdb" gen --variant oware --max-stones 8 --out "$work/run/tables/oware-6" --quiet
(cd "$work/run" && "$work/quick_start") >"$work/out" 2>&1 ||
  fail "quick_start on tables/oware-6: $(cat "$work/out")"
grep -Eq '^(win|draw|loss), final score [0-9.]+-[0-9.]+; best move: pit [0-9]+' "$work/out" ||
  fail "quick_start printed: $(cat "$work/out")"
"$work/play_game" "$work/run/tables/oware-6" 1 0 2 0 0 1 0 3 0 0 1 0 >"$work/out" 2>"$work/err" ||
  fail "play_game on oware 0..8: $(cat "$work/err")"
grep -q '^final score: A [0-9.]*, B [0-9.]* .*, as the value [-+0-9]* predicted$' "$work/out" ||
  fail "play_game printed: $(cat "$work/out")"
echo "installed_package_test: play_game and the README's quick start build with pkg-config" \
  "from $prefix and answer on tables the installed sowdb wrote"
