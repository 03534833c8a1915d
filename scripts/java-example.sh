#!/usr/bin/env bash
# Builds and runs docs/examples/java-embedded, a Maven project of its own that depends on the toolbus
# artifacts as a user's project would. Needs them installed first (scripts/test.sh runs `mvn install`).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mvn -B -q -ntp -f docs/examples/java-embedded/pom.xml compile exec:java)
echo "$out"
grep -q '^turn t2 completed with 0 errors$' <<<"$out" || { echo "java-example: the example did not complete its bus turn" >&2; exit 1; }
echo "java-example: 1 passed, 0 failed"
