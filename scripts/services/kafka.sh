# Kafka for the tests: a single-node KRaft broker (broker and controller in one JVM) run from the
# Maven Central jars of org.apache.kafka:kafka_2.13 (scripts/kafka/pom.xml), cached under
# .tools/kafka/<version>/libs. Starts on free loopback ports, waits until the broker is up, and exports
#   TOOLBUS_KAFKA_BOOTSTRAP  127.0.0.1:PORT
#   TOOLBUS_KAFKA_RESTART    a script that stops the broker (SIGTERM) and starts it again on the same ports and data
#   TOOLBUS_KAFKA_PID_FILE   the file holding the broker's pid (tests stall the broker with SIGSTOP/SIGCONT)
#   TOOLBUS_KAFKA_PROXIED    127.0.0.1:PORT of a second listener, PROXIED, which advertises
#   TOOLBUS_KAFKA_PROXY_PORT instead of its own port: a client bootstrapped through a TCP proxy on
#                            that port (tests' FaultProxy) keeps all its traffic on the proxy
#   TOOLBUS_KAFKA_LIBS       the broker's jars (tests read its log segments with DumpLogSegments on failure)
# Sourced by scripts/lib/services.sh, which calls start_kafka / stop_kafka.

TB_KAFKA_VERSION=4.4.0

# Copies the broker's runtime jars once (Maven's local repository makes later copies cheap).
_tb_kafka_libs() {
  local root libs
  root=$(_tb_root)
  libs="$root/.tools/kafka/$TB_KAFKA_VERSION/libs"
  if [ ! -f "$libs/.complete" ]; then
    echo "[services] copying Kafka $TB_KAFKA_VERSION jars into $libs" >&2
    rm -rf "$libs" && mkdir -p "$libs"
    (cd "$root/scripts/kafka" && mvn -B -q -ntp -Dstyle.color=never dependency:copy-dependencies \
        -DoutputDirectory="$libs" -DincludeScope=runtime -Dkafka.version="$TB_KAFKA_VERSION") >&2 || return 1
    touch "$libs/.complete"
  fi
  echo "$libs"
}

start_kafka() {
  local root libs run port cport pport xport
  root=$(_tb_root)
  libs=$(_tb_kafka_libs) || { echo "[services] Kafka jars could not be fetched" >&2; return 1; }
  mkdir -p "$root/.run"
  run=$(mktemp -d "$root/.run/kafka.XXXXXX")
  port=$(_tb_free_port) || return 1
  cport=$(_tb_free_port) || return 1
  while [ "$cport" = "$port" ]; do cport=$(_tb_free_port) || return 1; done
  pport=$(_tb_free_port) || return 1
  while [ "$pport" = "$port" ] || [ "$pport" = "$cport" ]; do pport=$(_tb_free_port) || return 1; done
  xport=$(_tb_free_port) || return 1
  while [ "$xport" = "$port" ] || [ "$xport" = "$cport" ] || [ "$xport" = "$pport" ]; do xport=$(_tb_free_port) || return 1; done
  cat > "$run/server.properties" <<EOP
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport,PROXIED://127.0.0.1:$pport
advertised.listeners=PLAINTEXT://127.0.0.1:$port,PROXIED://127.0.0.1:$xport
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,PROXIED:PLAINTEXT
log.dirs=$run/data
num.partitions=4
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
group.min.session.timeout.ms=2000
log.cleaner.dedupe.buffer.size=16777216
EOP
  cat > "$run/log4j2.properties" <<EOP
status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = $run/server.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = info
rootLogger.appenderRef.file.ref = file
EOP
  local cp="$libs/*"
  local jvm="-Xms256m -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Dlog4j2.configurationFile=$run/log4j2.properties"
  local id
  id=$(java -cp "$cp" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)
  # shellcheck disable=SC2086
  java $jvm -cp "$cp" kafka.tools.StorageTool format -t "$id" -c "$run/server.properties" >"$run/format.log" 2>&1 \
    || { echo "[services] Kafka storage format failed: $run/format.log" >&2; return 1; }
  cat > "$run/start.sh" <<EOS
#!/usr/bin/env bash
# Starts the broker in the background and waits until it reports that it started. The log of the start
# before is kept as server.log.1 (a test that restarts the broker reports from both).
if [ -s "$run/server.log" ]; then mv "$run/server.log" "$run/server.log.1"; fi
: > "$run/server.log"
nohup java $jvm -cp '$cp' kafka.Kafka "$run/server.properties" >"$run/stdout.log" 2>&1 &
echo \$! > "$run/kafka.pid"
for i in \$(seq 1 600); do
  grep -q 'Kafka Server started' "$run/server.log" 2>/dev/null && exit 0
  kill -0 "\$(cat "$run/kafka.pid")" 2>/dev/null || { echo "Kafka exited; see $run/server.log" >&2; exit 1; }
  sleep 0.1
done
echo "Kafka did not start within 60 s; see $run/server.log" >&2
exit 1
EOS
  cat > "$run/stop.sh" <<EOS
#!/usr/bin/env bash
pid=\$(cat "$run/kafka.pid" 2>/dev/null) || exit 0
kill "\$pid" 2>/dev/null || exit 0
for i in \$(seq 1 300); do kill -0 "\$pid" 2>/dev/null || exit 0; sleep 0.1; done
kill -9 "\$pid" 2>/dev/null || true
EOS
  cat > "$run/restart.sh" <<EOS
#!/usr/bin/env bash
# Stops the broker (SIGTERM) and starts it again on the same ports and data.
bash "$run/stop.sh" && bash "$run/start.sh"
EOS
  chmod +x "$run"/*.sh
  if ! bash "$run/start.sh"; then
    bash "$run/stop.sh"
    return 1
  fi
  export TOOLBUS_KAFKA_BOOTSTRAP="127.0.0.1:$port"
  export TOOLBUS_KAFKA_RESTART="$run/restart.sh"
  export TOOLBUS_KAFKA_PID_FILE="$run/kafka.pid"
  export TOOLBUS_KAFKA_PROXIED="127.0.0.1:$pport"
  export TOOLBUS_KAFKA_PROXY_PORT="$xport"
  export TOOLBUS_KAFKA_LIBS="$libs"
  _TB_KAFKA_RUN="$run"
  echo "[services] kafka on $TOOLBUS_KAFKA_BOOTSTRAP ($run)" >&2
}

stop_kafka() {
  [ -n "${_TB_KAFKA_RUN:-}" ] || return 0
  bash "$_TB_KAFKA_RUN/stop.sh" || true
  rm -rf "$_TB_KAFKA_RUN"
  unset TOOLBUS_KAFKA_BOOTSTRAP TOOLBUS_KAFKA_RESTART TOOLBUS_KAFKA_PID_FILE TOOLBUS_KAFKA_PROXIED TOOLBUS_KAFKA_PROXY_PORT _TB_KAFKA_RUN
}
