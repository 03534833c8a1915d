#!/usr/bin/env bash
# Profiles one toolbus benchmark for the executor's authors: GC profiler (bytes per call) and a JFR
# recording sampled every millisecond, summarised by stage with scripts/bench-jfr-top.py.
#
#   scripts/bench-profile.sh                                   # cacheOff at maxParallel 5
#   scripts/bench-profile.sh 'ToolbusExecutorBenchmark.mediaSplit' 20
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH=${1:-ToolbusExecutorBenchmark.cacheOff}
MP=${2:-5}
OUT=benchmarks/target/profile
rm -rf "$OUT" && mkdir -p "$OUT"
[[ -f benchmarks/target/benchmarks.jar && ${BENCH_SKIP_BUILD:-} == 1 ]] || mvn -B -ntp -q -pl benchmarks -am package -DskipTests

# JFR's "profile" settings sample every 10-20 ms; a copy sampling every millisecond gives enough samples.
JFC="$OUT/fast.jfc"
sed -E '/<event name="jdk.ExecutionSample">/,/<\/event>/ s|(<setting name="period"[^>]*>)[^<]*|\11 ms|' \
  "$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")/lib/jfr/profile.jfc" > "$JFC"

java -jar benchmarks/target/benchmarks.jar "$BENCH" -p maxParallel="$MP" -bm avgt \
  -f 1 -wi 1 -w 5s -i 1 -r 20s -prof gc -prof "jfr:dir=$OUT;configName=$(readlink -f "$JFC")" \
  | grep -E '^(Benchmark|Toolbus|HandWritten|Peer|SingleTurn)' | grep -v ':jfr' || true
REC=$(find "$OUT" -name '*.jfr' | head -1)
python3 scripts/bench-jfr-top.py "$REC"
python3 scripts/bench-jfr-top.py "$REC" --alloc --top 10
