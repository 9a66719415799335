#!/usr/bin/env bash
# Quick start (1): install what is missing, build, run the main example.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/scripts/setup.sh" "$here/build"
cd "$here"
exec "$here/build/training-on-roce" "$@"
