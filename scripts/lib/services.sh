# Services the tests need. start_services installs (first time) and starts them on free loopback
# ports and exports their addresses; stop_services stops what start_services started.
# Each service lives in its own file under scripts/services/ and defines start_<name>/stop_<name>.
SERVICES_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../services" 2>/dev/null && pwd || true)"
_started_services=()

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
