#!/usr/bin/env bash
# Bounded, loopback-only load run of the gateway (dev.toolbus.benchmarks.gateway.GatewayLoad): one-call
# echo turns in process (the baseline), then over HTTP POST /v1/turns and over WebSocket /v1/ws from many
# concurrent clients, the server in a child JVM (-Xmx512m) so its memory is measured apart.
#
#   scripts/gateway-load.sh                                 # 20000 turns per transport, 32 clients
#   GATEWAY_LOAD_REQUESTS=300 GATEWAY_LOAD_CLIENTS=8 scripts/gateway-load.sh   # a quick check
#   GATEWAY_LOAD_WARMUP=20000 GATEWAY_LOAD_CLIENTS=256 scripts/gateway-load.sh  # steady state (JIT done)
#   GATEWAY_LOAD_SERVER_OPTS='-XX:StartFlightRecording=filename=/tmp/{server}.jfr' scripts/gateway-load.sh
#   GATEWAY_LOAD_REPEATS=5      measured runs per phase, alternating gateway and raw server; the median reported
#                               with the spread and each back-to-back pair's ratio (default 5)
#   GATEWAY_LOAD_PIN=0          do not pin (default: with 2+ cores and taskset, the harness and its clients
#                               on core 0, the servers on the other cores)
#
# Writes machine facts and the table to benchmarks/results/gateway-load.md (GATEWAY_LOAD_OUT).
# BENCH_SKIP_BUILD=1 reuses benchmarks/target/benchmarks.jar.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${GATEWAY_LOAD_OUT:-benchmarks/results/gateway-load.md}
REQUESTS=${GATEWAY_LOAD_REQUESTS:-20000}
CLIENTS=${GATEWAY_LOAD_CLIENTS:-32}
# turns per warm-up round (GatewayLoad's default: a fifth, at most 2000); rounds run until steady with the JIT quiet
WARMUP=${GATEWAY_LOAD_WARMUP:+--warmup $GATEWAY_LOAD_WARMUP}
REPEATS=${GATEWAY_LOAD_REPEATS:-5}
PIN=()
SERVER_CPUS=()
if [[ ${GATEWAY_LOAD_PIN:-1} != 0 ]] && command -v taskset > /dev/null && (( $(nproc) >= 2 )); then
  PIN=(taskset -c 0)
  SERVER_CPUS=(--server-cpus "1-$(( $(nproc) - 1 ))")
fi
mkdir -p "$(dirname "$OUT")"

if [[ ${BENCH_SKIP_BUILD:-} != 1 ]]; then
  mvn -B -ntp -q -pl benchmarks -am package -DskipTests
fi

{
  echo "date:      $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "nproc:     $(nproc)"
  echo "cpu:       $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "jdk:       $(java -version 2>&1 | head -2 | tr '\n' ' ')"
  echo "os:        $(uname -sr)"
  echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "command:   ${PIN[*]} java -Xms512m -Xmx512m -cp benchmarks/target/benchmarks.jar dev.toolbus.benchmarks.gateway.GatewayLoad --requests $REQUESTS --clients $CLIENTS --repeats $REPEATS ${SERVER_CPUS[*]} $WARMUP"
  echo
  "${PIN[@]}" java -Xms512m -Xmx512m -cp benchmarks/target/benchmarks.jar dev.toolbus.benchmarks.gateway.GatewayLoad \
    --requests "$REQUESTS" --clients "$CLIENTS" --repeats "$REPEATS" "${SERVER_CPUS[@]}" $WARMUP
  echo
  echo "load at end:   $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$OUT"
