#!/usr/bin/env bash
# Quick start (2): install what is missing, build, run the whole test suite.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/scripts/setup.sh" "$here/build"
cd "$here/build"
ctest --output-on-failure -j "$(nproc)" "$@"
