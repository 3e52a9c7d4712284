#!/usr/bin/env bash
# Every installed header compiles alone as standard C++20 (-pedantic-errors, no GNU dialect) and
# uses no GNU extension that pedantic mode lets through (__int128 behind __extension__,
# __attribute__, __builtin_*); sowdb.h, the C API, also compiles alone as C99.
# Usage: installed_headers_test.sh CXX CC INCLUDE_DIR...  (the directories that are installed)
set -euo pipefail
cxx=$1
cc=$2
shift 2
includes=()
for d in "$@"; do includes+=("-I$d"); done

status=0
count=0
while IFS= read -r header; do
  rel=${header#*/include/}
  count=$((count + 1))
  if ! printf '#include <%s>\n' "$rel" |
    "$cxx" -std=c++20 -pedantic-errors -Wall -Wextra -Werror -fsyntax-only "${includes[@]}" \
      -x c++ - 2>"${TMPDIR:-/tmp}/header_err.$$"; then
    echo "FAIL: $rel does not compile alone as standard C++20:"
    cat "${TMPDIR:-/tmp}/header_err.$$"
    status=1
  fi
  if grep -nE '__int128|__attribute__|__extension__|__builtin_|__typeof__|\b__asm' "$header"; then
    echo "FAIL: $rel uses a GNU extension (lines above)"
    status=1
  fi
  case "$rel" in
    */sowdb.h | */version.h)
      if ! printf '#include <%s>\nint sowdb_header_test;\n' "$rel" |
        "$cc" -std=c99 -pedantic-errors -Wall -Wextra -Werror -fsyntax-only "${includes[@]}" \
          -x c - 2>"${TMPDIR:-/tmp}/header_err.$$"; then
        echo "FAIL: $rel does not compile alone as C99:"
        cat "${TMPDIR:-/tmp}/header_err.$$"
        status=1
      fi
      ;;
  esac
done < <(find "$@" -name '*.h' -type f | sort)
rm -f "${TMPDIR:-/tmp}/header_err.$$"
[[ $count -gt 0 ]] || { echo "FAIL: no header found under $*"; exit 1; }
[[ $status -eq 0 ]] && echo "installed_headers_test: $count headers compile alone, no GNU extension"
exit $status
