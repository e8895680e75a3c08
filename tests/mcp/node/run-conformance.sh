#!/usr/bin/env bash
# run-conformance.sh ENGRAM_BIN: the official MCP conformance suite against
# `engram mcp --http` on a loopback port (ctest mcp_conformance). The scenarios engram's
# capabilities cover are run for protocol 2025-06-18 and 2025-11-25; failures engram expects
# are listed with their reasons in conformance-expected-failures.yml. Exits 77 (skipped) when
# scripts/setup-node has not installed the suite and Node 22.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/node-env.sh"
cli="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [[ ! -f "$cli" ]]; then
  echo "mcp_conformance: skipped: run scripts/setup-node to install the conformance suite" >&2
  exit 77
fi
if (( $("$ENGRAM_NODE" -p 'process.versions.node.split(".")[0]') < 22 )); then
  echo "mcp_conformance: skipped: the suite needs Node >= 22 (run scripts/setup-node)" >&2
  exit 77
fi

engram="$1"
work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]]; then kill -TERM "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

printf '[embedder]\nkind = "hashing"\n' >"$work/engram.toml"
"$engram" --store "$work/engram.db" --config "$work/engram.toml" mcp --http 127.0.0.1:0 \
  2>"$work/server.log" &
server_pid=$!
url=""
for _ in $(seq 1 200); do
  url="$(grep -o 'http://[^ ]*/mcp' "$work/server.log" || true)"
  [[ -n "$url" ]] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
  sleep 0.1
done
[[ -n "$url" ]] || { echo "mcp_conformance: engram mcp --http did not start" >&2; exit 1; }

declare -A scenarios=(
  [2025-06-18]="server-initialize ping tools-list"
  [2025-11-25]="server-initialize ping tools-list dns-rebinding-protection"
)
failed=0
for version in 2025-06-18 2025-11-25; do
  for scenario in ${scenarios[$version]}; do
    echo "== $scenario ($version)"
    if ! "$ENGRAM_NODE" "$cli" server --url "$url" --scenario "$scenario" \
        --spec-version "$version" --expected-failures "$here/conformance-expected-failures.yml" \
        -o "$work/results-$version-$scenario"; then
      failed=1
    fi
  done
done
exit "$failed"
