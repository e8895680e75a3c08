#!/usr/bin/env bash
# run-memory-client.sh ENGRAM_BIN: mem0's own platform client (MemoryClient of the pinned npm
# mem0ai package, unchanged) against `engram serve` on loopback (ctest mem0_memory_client).
# Exits 77 (skipped) when scripts/setup-node has not installed the package, unless
# ENGRAM_REQUIRE_BENCH_DATA=1 asks for every suite to run (then it fails instead).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [[ ! -d "$here/node_modules/mem0ai" ]]; then
  if [[ "${ENGRAM_REQUIRE_BENCH_DATA:-0}" == "1" ]]; then
    echo "mem0_memory_client: FAILED: mem0ai is not installed (run scripts/setup-node;" \
      "ENGRAM_REQUIRE_BENCH_DATA=1 needs every suite)" >&2
    exit 1
  fi
  echo "mem0_memory_client: skipped: run scripts/setup-node to install mem0ai" >&2
  exit 77
fi
source "$here/../../mcp/node/node-env.sh"
cd "$here"
# The client reports usage to mem0 unless told not to; the test also refuses any request that
# is not to the loopback server.
ENGRAM_BIN="$1" MEM0_TELEMETRY=false exec "$ENGRAM_NODE" --test --test-concurrency=1 \
  memory_client.test.mjs
