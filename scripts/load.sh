#!/usr/bin/env bash
# End-to-end load on real brokers: starts redis-server and a KRaft Kafka on loopback
# (scripts/lib/services.sh), builds the server jar and the benchmarks jar, runs
# dev.toolbus.benchmarks.load.LoadHarness (toolbus serve side by side with a raw client loop, one and
# two consumer JVMs, on each broker), prints the table, writes it as Markdown, and stops the brokers.
#
#   scripts/load.sh                       # 20,000 turns over 200 streams per scenario, about 10 minutes on 2 vCPU
#   LOAD_TURNS=4000 LOAD_WARMUP=2000 scripts/load.sh --instances 1   # smaller; extra options go to the harness
#
# Environment: LOAD_TURNS (20000), LOAD_STREAMS (200), LOAD_WARMUP (20000 turns per warm-up round, not
# measured; rounds until two agree within 5 % with the consumers' JIT under 2 % of their CPU in both, at
# most LOAD_WARMUP_ROUNDS, 40: on 2 vCPUs forty rounds of 6000 turns, about 16 s, still left the JIT
# compiling a third to a half of the consumers' CPU when they ended, and its profiled code running),
# LOAD_MEASURES (3 measured phases per scenario after its warm-up, each figure the median of the three:
# single phases of the same jars moved by up to 1.6x on 2 vCPUs), LOAD_OUT (benchmarks/results/load.md),
# LOAD_REPEATS (1: each scenario's processes started, warmed up and measured once; 3 for a record:
# processes of the same jar differed by up to 1.45x, each row then the median of three runs, about
# 35 minutes), LOAD_WITHOUT_LEDGER (true: one more toolbus row on Redis and on Kafka at least once with the turn
# ledger off, what that guarantee costs), LOAD_SKIP_BUILD=1 to reuse the jars.
# Worker logs go to benchmarks/target/load-logs/.
set -euo pipefail
cd "$(dirname "$0")/.."

TURNS=${LOAD_TURNS:-20000}
STREAMS=${LOAD_STREAMS:-200}
WARMUP=${LOAD_WARMUP:-20000}
WARMUP_ROUNDS=${LOAD_WARMUP_ROUNDS:-40}
MEASURES=${LOAD_MEASURES:-3}
WITHOUT_LEDGER=${LOAD_WITHOUT_LEDGER:-true}
REPEATS=${LOAD_REPEATS:-1}
OUT=${LOAD_OUT:-benchmarks/results/load.md}

if [[ ${LOAD_SKIP_BUILD:-} != 1 ]]; then
  mvn -B -ntp -q -pl server,benchmarks -am package -DskipTests
fi

# shellcheck source=lib/services.sh
source scripts/lib/services.sh
trap stop_services EXIT
start_services

java -Xms512m -Xmx512m -cp benchmarks/target/benchmarks.jar dev.toolbus.benchmarks.load.LoadHarness \
  --redis "$TOOLBUS_REDIS_URL" --kafka "$TOOLBUS_KAFKA_BOOTSTRAP" \
  --redis-pid "$(cat "$_TB_REDIS_RUN/redis.pid")" --kafka-pid "$(cat "$_TB_KAFKA_RUN/kafka.pid")" \
  --server-jar server/target/toolbus-server.jar \
  --turns "$TURNS" --streams "$STREAMS" --warmup "$WARMUP" --warmup-rounds "$WARMUP_ROUNDS" --measures "$MEASURES" --without-ledger "$WITHOUT_LEDGER" --repeats "$REPEATS" --kafka-counters true \
  --logs benchmarks/target/load-logs --out "$OUT" \
  --command "LOAD_TURNS=$TURNS LOAD_STREAMS=$STREAMS LOAD_WARMUP=$WARMUP LOAD_WARMUP_ROUNDS=$WARMUP_ROUNDS LOAD_MEASURES=$MEASURES LOAD_WITHOUT_LEDGER=$WITHOUT_LEDGER LOAD_REPEATS=$REPEATS scripts/load.sh${*:+ $*}" \
  "$@"
