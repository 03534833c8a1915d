# Debian packages the test scripts install on first use (apt-get; through sudo when not root).

# apt_install PACKAGE...: installs the packages, refreshing the package lists once if that fails.
apt_install() {
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "[debian] installing $* (apt-get)" >&2
  if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "$@" >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive $sudo apt-get update -q >/dev/null 2>&1 || true
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "$@" >/dev/null
  fi
}

# ensure_go: a Go toolchain on PATH (Debian's golang-go; its go lives in /usr/lib/go/bin).
ensure_go() {
  command -v go >/dev/null 2>&1 && return 0
  if [ ! -x /usr/lib/go/bin/go ]; then
    apt_install golang-go
  fi
  command -v go >/dev/null 2>&1 || export PATH="$PATH:/usr/lib/go/bin"
}
