#!/usr/bin/env bash
# Builds (installing what is missing) and runs the whole test suite with ctest.
#   tools/test.sh [BUILD_DIR] [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
tools/setup.sh "$@"
ctest --test-dir "$build_dir" --output-on-failure -j"$(nproc)"
