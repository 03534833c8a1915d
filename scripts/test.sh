#!/usr/bin/env bash
# Runs every test on a fresh machine: installs and starts what the tests need (see
# scripts/lib/services.sh), runs the Maven build with all tests, and stops the services.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export TOOLBUS_ROOT="$ROOT"
# shellcheck source=lib/services.sh
source scripts/lib/services.sh
trap stop_services EXIT
start_services
mvn -B -ntp verify "$@"
