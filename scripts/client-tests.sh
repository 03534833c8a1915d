#!/usr/bin/env bash
# Runs the tests of the client libraries (clients/python, clients/node) against the server jar that
# `mvn verify` built, on every transport they support. Expects the services of scripts/lib/services.sh
# to be running (TOOLBUS_REDIS_URL, TOOLBUS_KAFKA_BOOTSTRAP). Installs what the clients' optional
# transports need: Debian's python3-websockets and python3-redis (and python3-pip, python3-setuptools for
# the install test), and the Node client's npm packages.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export TOOLBUS_JAR="${TOOLBUS_JAR:-$ROOT/server/target/toolbus-server.jar}"
[ -f "$TOOLBUS_JAR" ] || { echo "client-tests: $TOOLBUS_JAR is missing (run mvn verify first)" >&2; exit 1; }

# Debian's python3 sees Debian's python3-* packages; a pyenv python on PATH would not.
PY=/usr/bin/python3
# pip and setuptools: tests/test_package.py runs `pip install ./clients/python` (no index).
PY_PACKAGES="python3-websockets python3-redis python3-pip python3-setuptools"
if ! "$PY" -c 'import websockets, redis, pip, setuptools' >/dev/null 2>&1; then
  echo "[client-tests] installing $PY_PACKAGES (apt-get)" >&2
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q $PY_PACKAGES >/dev/null 2>&1 || {
    DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $PY_PACKAGES >/dev/null
  }
fi
echo "[client-tests] python client" >&2
(cd clients/python && TOOLBUS_REQUIRE_ALL_TRANSPORTS=1 PYTHONPATH=. "$PY" -m unittest discover -s tests -v)

echo "[client-tests] node client" >&2
(cd clients/node && { [ -d node_modules ] || npm ci --no-audit --no-fund --silent; } && TOOLBUS_REQUIRE_ALL_TRANSPORTS=1 node --test test/)
