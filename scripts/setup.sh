#!/usr/bin/env bash
# Installs everything sowdb needs to build and test on Debian 12 (bookworm), from Debian's own
# packages only. Idempotent: when every package is already installed it does not touch apt at all,
# so a second run is fast and works offline.
#
# Usage: scripts/setup.sh
set -euo pipefail

packages=(
  build-essential   # g++ (C++20), make
  cmake
  ninja-build
  pkg-config
  libtbb-dev        # oneTBB: the generator's parallel loops
  libzstd-dev       # block compression of the tables (format/)
  libcli11-dev      # the sowdb command line
  libgtest-dev      # tests
  libgmock-dev      # tests
  libbenchmark-dev  # bench/
  nlohmann-json3-dev  # sowdb --json output
  libxxhash-dev     # checksums
  python3           # helper scripts
  python3-dev pybind11-dev  # the Python module (python/, SOWDB_BUILD_PYTHON)
  python3-numpy python3-pytest python3-matplotlib mypy  # its tests, example and stub checks
  clang             # the libFuzzer target (SOWDB_BUILD_FUZZ)
  clang-format clang-tidy  # scripts/lint.sh
  libclang-rt-14-dev  # libFuzzer runtime for clang 14
  openmpi-bin libopenmpi-dev  # sowdb-mpi, the generator over MPI ranks (SOWDB_WITH_MPI)
  libboost-dev      # Boost.Beast/Asio: the HTTP of sowdb serve (server/, SOWDB_BUILD_SERVER)
  zlib1g-dev        # gzip of sowdb serve's answers (server/)
  wrk               # the server's load benchmark (bench/server/)
  chromium chromium-driver python3-selenium  # the page of sowdb serve in a browser (tests/server)
)

# A package counts as present when dpkg reports it fully installed.
is_installed() {
  [[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" == "installed" ]]
}

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${packages[@]}"; do
    is_installed "$p" || missing+=("$p")
  done
else
  missing=("${packages[@]}")
fi

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages already installed; nothing to do."
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: error: apt-get not found. sowdb's setup expects Debian 12 (bookworm)." >&2
  echo "setup: install these packages (or their equivalents) by hand: ${missing[*]}" >&2
  exit 1
fi

# Root runs apt-get directly; anyone else goes through sudo if it exists.
as_root=()
if [[ "$(id -u)" -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
  else
    echo "setup: error: not root and sudo not found; run as root to install: ${missing[*]}" >&2
    exit 1
  fi
fi

echo "setup: installing ${#missing[@]} missing package(s): ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -q --no-install-recommends "${missing[@]}"

# Check that apt really delivered every package.
still_missing=()
for p in "${missing[@]}"; do
  is_installed "$p" || still_missing+=("$p")
done
if ((${#still_missing[@]} > 0)); then
  echo "setup: error: still not installed after apt-get: ${still_missing[*]}" >&2
  exit 1
fi
echo "setup: done."
