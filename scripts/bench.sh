#!/usr/bin/env bash
# Runs every JMH benchmark once, side by side, and writes the results as JMH JSON, then draws the
# chart and prints the table of docs/benchmarks.md.
#
#   scripts/bench.sh                      # everything, about 12-15 minutes on 2 vCPU
#   scripts/bench.sh ToolbusExecutor      # a subset (any JMH regex); extra JMH options also go here
#
# Iterations come from the environment so they can be changed without clashing with JMH's own
# options (JMH rejects an option given twice): BENCH_FORKS (1), BENCH_WARMUPS (3), BENCH_WARMUP_TIME
# (2s), BENCH_ITERATIONS (5), BENCH_TIME (2s), BENCH_JSON (benchmarks/results/jmh.json),
# BENCH_JVM_ARGS (-Xms1g -Xmx1g).
set -euo pipefail
cd "$(dirname "$0")/.."

JSON=${BENCH_JSON:-benchmarks/results/jmh.json}
mkdir -p "$(dirname "$JSON")"

if [[ ${BENCH_SKIP_BUILD:-} != 1 ]]; then
  mvn -B -ntp -q -pl benchmarks -am package -DskipTests
fi

java -jar benchmarks/target/benchmarks.jar \
  -f "${BENCH_FORKS:-1}" \
  -wi "${BENCH_WARMUPS:-3}" -w "${BENCH_WARMUP_TIME:-2s}" \
  -i "${BENCH_ITERATIONS:-5}" -r "${BENCH_TIME:-2s}" \
  -jvmArgs "${BENCH_JVM_ARGS:--Xms1g -Xmx1g}" \
  -foe true \
  -rf json -rff "$JSON" \
  "$@"

python3 scripts/bench-report.py "$JSON" --svg docs/benchmarks-parallel.svg
