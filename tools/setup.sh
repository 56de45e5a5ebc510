#!/usr/bin/env bash
# Installs what is missing (Debian 12 packages only), configures and builds pagesim.
# Idempotent: packages already installed are not touched.
#   [PAGESIM_PGO=OFF] tools/setup.sh [BUILD_DIR] [extra cmake args...]
# A new build directory gets GCC's profile-guided build (cmake/pgo.cmake), the fastest measured
# (docs/performance.md, "Build flags"): minutes more to build, and every source edit costs a
# retraining, so for development set PAGESIM_PGO=OFF (CMakeLists.txt's default compiler, clang).
# A directory already configured keeps its configuration.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
shift || true

packages=(g++ cmake ninja-build pkg-config libboost-dev libboost-context-dev libabsl-dev libfmt-dev
          libyaml-cpp-dev libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev liblzma-dev gnuplot-nox
          python3-minimal clang parallel git man-db bash-completion dpkg-dev file)
# python3: tools/usemem-placement.py, tests/layering_test.py; g++: the profile-guided build (below)
# and the TSan build of .ci/run; clang: plain builds (CMakeLists.txt) and tools/fuzz; parallel: the
# GNU parallel sharding test; git: the commit in pagesim --version (cmake/build_info.cmake); man-db,
# bash-completion: the installed man page and completion's test; dpkg-dev, file: cpack -G DEB's
# dependency list (dpkg-shlibdeps) and its test.
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=(); [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

pgo=()
if [ ! -f "$build_dir/CMakeCache.txt" ] && [ "${PAGESIM_PGO:-ON}" = ON ]; then
  pgo=(-DCMAKE_CXX_COMPILER=g++ -DPAGESIM_PGO=ON)
  echo "setup: a profile-guided GCC build in $build_dir (PAGESIM_PGO=OFF for a plain one)" >&2
fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${pgo[@]}" "$@" >/dev/null
ninja -C "$build_dir"
