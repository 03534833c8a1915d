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
# BENCH_JVM_ARGS (-Xms1g -Xmx1g). The GC profiler is always on (bytes allocated per call).
set -euo pipefail
cd "$(dirname "$0")/.."

JSON=${BENCH_JSON:-benchmarks/results/jmh.json}
mkdir -p "$(dirname "$JSON")"

if [[ ${BENCH_SKIP_BUILD:-} != 1 ]]; then
  mvn -B -ntp -q -pl benchmarks -am package -DskipTests
fi

MACHINE="${JSON%.json}.machine.txt"
{
  echo "date:      $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "nproc:     $(nproc)"
  echo "cpu:       $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "jdk:       $(java -version 2>&1 | head -2 | tr '\n' ' ')"
  echo "os:        $(uname -sr)"
  echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$MACHINE"

java -jar benchmarks/target/benchmarks.jar \
  -f "${BENCH_FORKS:-1}" \
  -wi "${BENCH_WARMUPS:-3}" -w "${BENCH_WARMUP_TIME:-2s}" \
  -i "${BENCH_ITERATIONS:-5}" -r "${BENCH_TIME:-2s}" \
  -jvmArgs "${BENCH_JVM_ARGS:--Xms1g -Xmx1g}" \
  -prof gc \
  -foe true \
  -rf json -rff "$JSON" \
  "$@"

echo "load at end:   $(cut -d' ' -f1-3 /proc/loadavg)" >> "$MACHINE"
cat "$MACHINE"
python3 scripts/bench-report.py "$JSON" --svg docs/benchmarks-parallel.svg
