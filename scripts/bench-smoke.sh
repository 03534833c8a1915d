#!/usr/bin/env bash
# Smoke run of the benchmarks for CI: builds the jar, runs every benchmark in every mode for one very
# short iteration without forking, fails if any benchmark fails (each one checks its results in its
# setup), and checks that the report script reads the output. Takes well under two minutes.
# The numbers it prints mean nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=benchmarks/target/smoke
mkdir -p "$OUT"
if [[ ${BENCH_SKIP_BUILD:-} != 1 ]]; then
  mvn -B -ntp -q -pl benchmarks -am package -DskipTests
fi

start=$(date +%s)
java -Xms512m -Xmx512m -jar benchmarks/target/benchmarks.jar \
  -f 0 -wi 0 -i 1 -r 100ms \
  -foe true \
  -rf json -rff "$OUT/jmh.json" \
  "$@" > "$OUT/jmh.log" 2>&1 || { tail -50 "$OUT/jmh.log"; echo "bench-smoke: JMH failed" >&2; exit 1; }

expected=$(java -jar benchmarks/target/benchmarks.jar -l "$@" | grep -c '^dev\.toolbus\.' || true)
python3 scripts/bench-report.py "$OUT/jmh.json" --svg "$OUT/parallel.svg" --expect "$expected" > "$OUT/report.md"
echo "bench-smoke: $expected benchmark runs passed in $(( $(date +%s) - start )) s (log: $OUT/jmh.log)"

# The gateway load harness (the gateway and a raw reactor-netty server, forked), a few hundred turns.
java -Xmx512m -cp benchmarks/target/benchmarks.jar dev.toolbus.benchmarks.gateway.GatewayLoad \
  --requests 300 --clients 4 --max-seconds 60 --repeats 2 --server-cpus 0 > "$OUT/gateway-load.log" 2>&1 \
  || { tail -30 "$OUT/gateway-load.log"; echo "bench-smoke: gateway load failed" >&2; exit 1; }
grep -q '^| WebSocket /v1/ws | ' "$OUT/gateway-load.log" && grep -q '^| raw reactor-netty WebSocket /v1/ws | ' "$OUT/gateway-load.log" \
  || { cat "$OUT/gateway-load.log"; echo "bench-smoke: gateway load printed no rows" >&2; exit 1; }
echo "bench-smoke: gateway load harness ran (log: $OUT/gateway-load.log)"

# The memory and scale harness against the server jar, a few thousand turns (its targets mean nothing here).
if [[ -f server/target/toolbus-server.jar ]]; then
  java -Xmx512m -cp benchmarks/target/benchmarks.jar dev.toolbus.benchmarks.scale.ScaleHarness \
    --server-jar server/target/toolbus-server.jar --turns 2000 --streams 500 --sockets 200 \
    --logs benchmarks/target/smoke/scale-logs > "$OUT/scale.log" 2>&1 \
    || { tail -30 "$OUT/scale.log"; echo "bench-smoke: scale harness failed" >&2; exit 1; }
  grep -q '^| idle WebSocket connections | ' "$OUT/scale.log" \
    || { cat "$OUT/scale.log"; echo "bench-smoke: scale harness printed no rows" >&2; exit 1; }
  echo "bench-smoke: scale harness ran (log: $OUT/scale.log)"
fi

# The broker load harness (toolbus serve beside the raw client loops, on Redis and on Kafka in both
# delivery modes), a few hundred turns, against the brokers scripts/test.sh started.
if [[ -f server/target/toolbus-server.jar && -n ${TOOLBUS_REDIS_URL:-} && -n ${TOOLBUS_KAFKA_BOOTSTRAP:-} ]]; then
  java -Xmx256m -cp benchmarks/target/benchmarks.jar dev.toolbus.benchmarks.load.LoadHarness \
    --redis "$TOOLBUS_REDIS_URL" --kafka "$TOOLBUS_KAFKA_BOOTSTRAP" --server-jar server/target/toolbus-server.jar \
    --turns 300 --streams 20 --warmup 100 --measures 2 --without-ledger true --repeats 2 --instances 1 --worker-jvm "-Xms256m -Xmx256m" \
    --logs "$OUT/load-logs" --out "$OUT/load.md" > "$OUT/load.log" 2>&1 \
    || { tail -30 "$OUT/load.log"; echo "bench-smoke: broker load harness failed" >&2; exit 1; }
  rows=$(grep -c '^| \(redis\|kafka\) | ' "$OUT/load.md" || true)
  if grep -q 'FAILED' "$OUT/load.log" || [[ $rows -ne 8 ]]; then
    cat "$OUT/load.log"; echo "bench-smoke: broker load harness: $rows of 8 rows, or a scenario failed" >&2; exit 1
  fi
  echo "bench-smoke: broker load harness ran, 8 scenarios (log: $OUT/load.log)"
else
  echo "bench-smoke: no server jar or no brokers (run it from scripts/test.sh): broker load harness skipped"
fi
