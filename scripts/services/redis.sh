# Redis for the tests: installs redis-server from Debian's packages when missing, starts it on a
# free loopback port with its own data directory, waits for PING, and exports
#   TOOLBUS_REDIS_URL      redis://127.0.0.1:PORT
#   TOOLBUS_REDIS_PORT     PORT
#   TOOLBUS_REDIS_RESTART  a script that restarts this server on the same port and data (for broker-restart tests)
# Sourced by scripts/lib/services.sh (which defines _tb_root and _tb_free_port).

_tb_install_redis() {
  command -v redis-server >/dev/null 2>&1 && return 0
  echo "[services] installing redis-server (apt-get)" >&2
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q redis-server >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q redis-server >/dev/null || return 1
  fi
}

start_redis() {
  _tb_install_redis || { echo "[services] redis-server could not be installed" >&2; return 1; }
  local root run port
  root=$(_tb_root)
  mkdir -p "$root/.run"
  run=$(mktemp -d "$root/.run/redis.XXXXXX")
  port=$(_tb_free_port) || return 1
  # AOF on, fsync every second: a restart (SHUTDOWN, then the same command) keeps the streams.
  cat > "$run/start.sh" <<EOS
#!/usr/bin/env bash
exec redis-server --port $port --bind 127.0.0.1 --save '' --appendonly yes --appendfsync everysec \\
  --daemonize yes --pidfile "$run/redis.pid" --logfile "$run/redis.log" --dir "$run"
EOS
  cat > "$run/restart.sh" <<EOS
#!/usr/bin/env bash
# Stops this Redis (AOF flushed) and starts it again on the same port and data directory.
redis-cli -p $port SHUTDOWN >/dev/null 2>&1 || true
for i in \$(seq 1 100); do redis-cli -p $port PING >/dev/null 2>&1 || break; sleep 0.05; done
bash "$run/start.sh"
for i in \$(seq 1 200); do [ "\$(redis-cli -p $port PING 2>/dev/null)" = PONG ] && exit 0; sleep 0.05; done
echo "redis did not come back on port $port" >&2; exit 1
EOS
  chmod +x "$run/start.sh" "$run/restart.sh"
  bash "$run/start.sh" || return 1
  local i
  for i in $(seq 1 200); do
    if [ "$(redis-cli -p "$port" PING 2>/dev/null)" = PONG ]; then
      export TOOLBUS_REDIS_URL="redis://127.0.0.1:$port"
      export TOOLBUS_REDIS_PORT="$port"
      export TOOLBUS_REDIS_RESTART="$run/restart.sh"
      _TB_REDIS_RUN="$run"
      echo "[services] redis on $TOOLBUS_REDIS_URL ($run)" >&2
      return 0
    fi
    sleep 0.05
  done
  echo "[services] redis did not answer PING on port $port; log: $run/redis.log" >&2
  return 1
}

stop_redis() {
  [ -n "${TOOLBUS_REDIS_PORT:-}" ] || return 0
  redis-cli -p "$TOOLBUS_REDIS_PORT" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
  if [ -n "${_TB_REDIS_RUN:-}" ] && [ -f "$_TB_REDIS_RUN/redis.pid" ]; then
    local pid; pid=$(cat "$_TB_REDIS_RUN/redis.pid" 2>/dev/null || true)
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  fi
  [ -n "${_TB_REDIS_RUN:-}" ] && rm -rf "$_TB_REDIS_RUN"
  unset TOOLBUS_REDIS_URL TOOLBUS_REDIS_PORT TOOLBUS_REDIS_RESTART _TB_REDIS_RUN
}
