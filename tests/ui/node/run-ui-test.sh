#!/usr/bin/env bash
# run-ui-test.sh SUITE ENGRAM_BIN [SCREENSHOT_DIR [BENCH_DATA_DIR]]: one browser suite of this folder
# (SUITE: inspector.test.mjs for ctest ui_browser, cross_site.test.mjs for ui_cross_site).
# Exits 77 (skipped) when Chromium or the npm packages are missing, unless
# ENGRAM_REQUIRE_BENCH_DATA=1 asks for every suite to run (then it fails instead).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
suite="$1"
name="${suite%.test.mjs}"

skip() {
  if [[ "${ENGRAM_REQUIRE_BENCH_DATA:-0}" == "1" ]]; then
    echo "ui $name: FAILED: $1 (ENGRAM_REQUIRE_BENCH_DATA=1 needs every suite)" >&2
    exit 1
  fi
  echo "ui $name: skipped: $1" >&2
  exit 77
}

chromium_bin="${ENGRAM_CHROMIUM:-$(command -v chromium || true)}"
[[ -n "$chromium_bin" && -x "$chromium_bin" ]] ||
  skip "no chromium on PATH (scripts/setup installs Debian's chromium)"
[[ -d "$here/node_modules/puppeteer-core" ]] ||
  skip "puppeteer-core is not installed (run scripts/setup-node)"
source "$here/../../mcp/node/node-env.sh"

cd "$here"
ENGRAM_BIN="$2" ENGRAM_SCREENSHOTS="${3:-}" ENGRAM_CHROMIUM="$chromium_bin" \
  ENGRAM_LOCOMO="${ENGRAM_BENCH_DATA:-${4:-}}/locomo_dev.json" \
  exec "$ENGRAM_NODE" --test --test-concurrency=1 "$suite"
