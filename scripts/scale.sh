#!/usr/bin/env bash
# Memory and scale of a real `toolbus serve` (dev.toolbus.benchmarks.scale.ScaleHarness): a flood of
# one-call turns through the stdio sidecar and through the gateway's WebSocket, one turn on each of many
# distinct streams, and many idle WebSocket connections, each measured by the server's live set after a
# full collection (jcmd GC.class_histogram). Writes the table to benchmarks/results/scale.md.
#
#   scripts/scale.sh                                   # 1,000,000 turns, 100,000 streams, 10,000 sockets
#   SCALE_TURNS=20000 SCALE_STREAMS=5000 SCALE_SOCKETS=1000 scripts/scale.sh    # a quick run
#
# SCALE_SKIP_BUILD=1 reuses the jars. Server logs go to benchmarks/target/scale-logs/.
set -euo pipefail
cd "$(dirname "$0")/.."
TURNS=${SCALE_TURNS:-1000000}
STREAMS=${SCALE_STREAMS:-100000}
SOCKETS=${SCALE_SOCKETS:-10000}
OUT=${SCALE_OUT:-benchmarks/results/scale.md}
if [[ ${SCALE_SKIP_BUILD:-} != 1 ]]; then
  mvn -B -ntp -q -pl server,benchmarks -am package -DskipTests
fi
# the client side holds SOCKETS connections: make sure this shell may open them
ulimit -n "$(( SOCKETS * 2 + 1024 ))" 2>/dev/null || true
mkdir -p "$(dirname "$OUT")"
{
  echo "# toolbus scale run"
  echo
  echo "date:      $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "machine:   $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(uname -sr)"
  echo "java:      $(java -version 2>&1 | head -1)"
  echo "load:      $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "command:   SCALE_TURNS=$TURNS SCALE_STREAMS=$STREAMS SCALE_SOCKETS=$SOCKETS scripts/scale.sh"
  echo
  java -Xms1g -Xmx1g -cp benchmarks/target/benchmarks.jar dev.toolbus.benchmarks.scale.ScaleHarness \
    --server-jar server/target/toolbus-server.jar --turns "$TURNS" --streams "$STREAMS" --sockets "$SOCKETS"
  echo
  echo "load at end:   $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$OUT"
