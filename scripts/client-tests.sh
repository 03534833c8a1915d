#!/usr/bin/env bash
# Runs the tests of the client libraries (clients/python, clients/node) against the server jar that
# `mvn verify` built, on every transport they support. Expects the services of scripts/lib/services.sh
# to be running (TOOLBUS_REDIS_URL, TOOLBUS_KAFKA_BOOTSTRAP). Installs what the clients' optional
# transports and checks need: Debian's python3-websockets, python3-redis and python3-kafka, mypy (the
# Python client's typing test), python3-pip, python3-setuptools, python3-venv and the wheel of wheel (its
# install tests), and the Node client's npm packages.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
# shellcheck source=lib/debian.sh
source scripts/lib/debian.sh
export TOOLBUS_JAR="${TOOLBUS_JAR:-$ROOT/server/target/toolbus-server.jar}"
[ -f "$TOOLBUS_JAR" ] || { echo "client-tests: $TOOLBUS_JAR is missing (run mvn verify first)" >&2; exit 1; }

# Debian's python3 sees Debian's python3-* packages; a pyenv python on PATH would not.
PY=/usr/bin/python3
missing=()
for pair in websockets:python3-websockets redis:python3-redis kafka:python3-kafka pip:python3-pip \
    setuptools:python3-setuptools ensurepip:python3-venv; do
  "$PY" -c "import ${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
command -v mypy >/dev/null || missing+=(mypy)
compgen -G "/usr/share/python-wheels/wheel-*.whl" >/dev/null || missing+=(python3-wheel-whl)
[ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
echo "[client-tests] python client" >&2
(cd clients/python && TOOLBUS_REQUIRE_ALL_TRANSPORTS=1 PYTHONPATH=. "$PY" -m unittest discover -s tests -v)

echo "[client-tests] node client" >&2
(cd clients/node && { [ -d node_modules ] || npm ci --no-audit --no-fund --silent; } && TOOLBUS_REQUIRE_ALL_TRANSPORTS=1 node --test test/)
