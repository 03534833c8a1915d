#!/usr/bin/env bash
# The Node peers of the MCP tests: the official TypeScript SDKs pinned in
# docs/examples/mcp-client/package.json (1.x, 2.x client and server, ext-tasks, server-everything),
# installed into the gitignored .tools/mcp-node/ at the repository root, where NodeTools (tool-sources/mcp)
# finds them. scripts/test.sh runs this before the build so that the Maven run downloads nothing.
#
#   bash scripts/lib/mcp-node.sh install    # idempotent; prints the install folder
set -euo pipefail

_mcpn_root() {
  if [ -n "${TOOLBUS_ROOT:-}" ]; then echo "$TOOLBUS_ROOT"; else (cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd); fi
}

mcp_node_install() {
  local root dir
  root=$(_mcpn_root)
  dir="$root/.tools/mcp-node"
  mkdir -p "$dir"
  if ! cmp -s "$root/docs/examples/mcp-client/package.json" "$dir/package.json" \
      || [ ! -d "$dir/node_modules/@modelcontextprotocol/client" ] \
      || [ ! -d "$dir/node_modules/@modelcontextprotocol/ext-tasks" ] \
      || [ ! -d "$dir/node_modules/@modelcontextprotocol/server" ] \
      || [ ! -d "$dir/node_modules/@modelcontextprotocol/sdk" ] \
      || [ ! -d "$dir/node_modules/@modelcontextprotocol/server-everything" ]; then
    echo "installing the MCP Node peers into $dir" >&2
    cp "$root/docs/examples/mcp-client/package.json" "$dir/package.json"
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error >&2)
  fi
  echo "$dir"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  case "${1:-}" in
    install) mcp_node_install ;;
    *) echo "usage: $0 install" >&2; exit 2 ;;
  esac
fi
