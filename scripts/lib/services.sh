# Services the tests need. start_services installs (first time) and starts them on free loopback
# ports and exports their addresses; stop_services stops what start_services started.
# Each service lives in its own file under scripts/services/ and defines start_<name>/stop_<name>.
SERVICES_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../services" 2>/dev/null && pwd || true)"
_started_services=()

# The repository root (TOOLBUS_ROOT when set).
_tb_root() {
  if [ -n "${TOOLBUS_ROOT:-}" ]; then echo "$TOOLBUS_ROOT"; else (cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd); fi
}

# A loopback TCP port nothing listens on (random in 20000-59999).
_tb_free_port() {
  local p i
  for i in $(seq 1 50); do
    p=$(( 20000 + (RANDOM * 32768 + RANDOM) % 40000 ))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
  done
  echo "no free port found" >&2
  return 1
}

start_services() {
  [ -n "$SERVICES_DIR" ] || return 0
  for f in "$SERVICES_DIR"/*.sh; do
    [ -e "$f" ] || continue
    # shellcheck disable=SC1090
    source "$f"
    local name
    name=$(basename "$f" .sh)
    "start_${name}"
    _started_services+=("$name")
  done
}

stop_services() {
  local name
  for name in "${_started_services[@]:-}"; do
    [ -n "$name" ] || continue
    "stop_${name}" || true
  done
}
