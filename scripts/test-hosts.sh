#!/usr/bin/env bash
# Tests of the plugin hosts and SDKs in tool-sources/hosts, each against real host processes: the
# MaiBot host and the Python SDK (unittest), the OpenClaw and ChatAI hosts and the Node SDK and its
# package (node --test), the Go SDK (go vet + go test), and the Go example of docs/plugins.md §5.3.
# Needs no server jar: the install tests that run plugins under `toolbus serve` are
# scripts/test-packages.sh. Installs Debian's golang-go when no Go toolchain is found. Called by
# scripts/test.sh; runs alone as well.
set -euo pipefail
cd "$(dirname "$0")/.."
HOSTS=tool-sources/hosts
# shellcheck source=lib/debian.sh
source scripts/lib/debian.sh

echo "[hosts] python: MaiBot host and SDK" >&2
python3 -m unittest discover -s "$HOSTS/maibot/tests" -t "$HOSTS/maibot/tests"
python3 -m unittest discover -s "$HOSTS/python/tests" -t "$HOSTS/python/tests"

echo "[hosts] node: OpenClaw and ChatAI hosts, Node SDK" >&2
(cd "$HOSTS/node" && node --test test/*.test.mjs)

echo "[hosts] go: SDK module and the docs/plugins.md §5.3 example" >&2
ensure_go
export GOPROXY=off GOFLAGS=-mod=mod
(cd "$HOSTS/go" && go vet ./... && go test ./...)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd docs/examples/go-greet && go vet . && go build -o "$tmp/go-greet" .)
answer=$(printf '%s\n' '{"id":1,"method":"activate","params":{"pluginId":"t"}}' \
  '{"id":2,"method":"execute_tool","params":{"toolName":"go_greet","input":"{\"name\":\"Ann\"}"}}' | "$tmp/go-greet")
case "$answer" in
  *'"result":"Hello, Ann!"'*) ;;
  *) echo "[hosts] docs/examples/go-greet answered: $answer" >&2; exit 1 ;;
esac
echo "[hosts] all host and SDK tests passed" >&2
