#!/usr/bin/env bash
# run-sdk-client.sh ENGRAM_BIN: the TypeScript SDK client suite (ctest
# mcp_sdk_client). Exits 77 (skipped) when scripts/setup-node has not installed the packages.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/node-env.sh"
if [[ ! -d "$here/node_modules/@modelcontextprotocol/sdk" ]]; then
  echo "mcp_sdk_client: skipped: run scripts/setup-node to install the MCP SDK" >&2
  exit 77
fi
cd "$here"
ENGRAM_BIN="$1" exec "$ENGRAM_NODE" --test sdk_client.test.mjs
