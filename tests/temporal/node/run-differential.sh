#!/usr/bin/env bash
# run-differential.sh TIME_EXPRESSIONS_BIN: engram's time normaliser against chrono-node (ctest
# temporal_differential). Exits 77 (skipped) when scripts/setup-node has not installed chrono-node.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../../mcp/node/node-env.sh"
if [[ ! -d "$here/node_modules/chrono-node" ]]; then
  echo "temporal_differential: skipped: run scripts/setup-node to install chrono-node" >&2
  exit 77
fi
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
cd "$here"
ENGRAM_TIME_BIN="$bin" TZ=UTC exec "$ENGRAM_NODE" --test differential.test.mjs
