#!/usr/bin/env bash
# The plugin SDKs as their ecosystems' packages, against the server jar `mvn install` built
# (TOOLBUS_JAR, default server/target/toolbus-server.jar); each installed fresh and run under
# `toolbus serve`:
#   Python  tool-sources/hosts/python and hosts/maibot: pip install --no-index --no-build-isolation into
#           fresh virtualenvs (tests/it_package.py), and mypy --strict of both packages;
#   Node    tool-sources/hosts/node: npm install into fresh npm projects, from the folder and from
#           npm pack (test/package.it.mjs);
#   Go      a plugin module outside tool-sources/hosts/go requiring it through its README's go.mod
#           (module_it_test.go, build tag serve).
# The distribution tarball has its own test (distribution/, DistributionIT, run by mvn verify).
# Installs what is missing from Debian's packages: python3-venv, the wheels of pip, setuptools and
# wheel (a fresh venv builds offline with them), mypy, golang-go. Called by scripts/test.sh after
# `mvn install`; runs alone as well.
set -euo pipefail
cd "$(dirname "$0")/.."
HOSTS=tool-sources/hosts
# shellcheck source=lib/debian.sh
source scripts/lib/debian.sh
export TOOLBUS_JAR="${TOOLBUS_JAR:-$PWD/server/target/toolbus-server.jar}"
[ -f "$TOOLBUS_JAR" ] || { echo "test-packages: $TOOLBUS_JAR is missing (mvn -pl server -am package)" >&2; exit 1; }
# the it_* tests fail rather than skip without the jar
export TOOLBUS_REQUIRE_JAR=1

missing=()
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing+=(python3-venv)
for w in pip setuptools wheel; do
  compgen -G "/usr/share/python-wheels/$w-*.whl" >/dev/null || missing+=("python3-$w-whl")
done
command -v mypy >/dev/null || missing+=(mypy)
[ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
ensure_go

echo "[packages] python: toolbus-plugin and toolbus-maibot, typed" >&2
MYPYPATH="$HOSTS/python" mypy --strict --cache-dir=/dev/null \
  "$HOSTS/python/toolbus_plugin" "$HOSTS/maibot/maibot_sdk" "$HOSTS/maibot/toolbus_maibot" "$HOSTS/maibot/host.py"
python3 -m unittest discover -s "$HOSTS/python/tests" -t "$HOSTS/python/tests" -p 'it_*.py'
python3 -m unittest discover -s "$HOSTS/maibot/tests" -t "$HOSTS/maibot/tests" -p 'it_*.py'

echo "[packages] node: the toolbus-plugin npm package" >&2
(cd "$HOSTS/node" && node --test test/package.it.mjs)

echo "[packages] go: toolbus.dev/plugin from another module" >&2
(cd "$HOSTS/go" && GOPROXY=off go vet -tags serve ./... && GOPROXY=off go test -count=1 -tags serve -run '^TestServeIT' ./...)
echo "[packages] all package tests passed" >&2
