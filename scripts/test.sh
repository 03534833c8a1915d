#!/usr/bin/env bash
# Runs every test on a fresh machine: installs and starts what the tests need (see
# scripts/lib/services.sh), runs the Maven build with all tests, and stops the services.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export TOOLBUS_ROOT="$ROOT"
# shellcheck source=lib/services.sh
source scripts/lib/services.sh
trap stop_services EXIT
start_services
# assembly's EndToEndTracingIT runs the Python client on Redis as its bot core, under Debian's python3
# shellcheck source=lib/debian.sh
source scripts/lib/debian.sh
/usr/bin/python3 -c 'import redis' >/dev/null 2>&1 || apt_install python3-redis
# the plugin hosts and SDKs (Python, Node, Go) first: seconds, and the Java tests start those hosts too
bash scripts/test-hosts.sh
# The MCP conformance suite and the Node >= 22 it needs (tool-sources/mcp's ConformanceSuiteTest runs it),
# and the TypeScript SDKs the MCP tests drive (NodeModernClientTest, NodeLegacyTasksTest, McpTwoErasIT, …).
if command -v npm >/dev/null; then
  bash scripts/lib/mcp-conformance.sh install >/dev/null
  bash scripts/lib/mcp-node.sh install >/dev/null
fi
# install, not only verify: the Java example of docs/examples builds against the installed artifacts;
# verify runs distribution/'s DistributionIT on the built toolbus-VERSION.tar.gz. The broker tests (*IT of
# the bus adapters, maven-failsafe) run in it against the services started above; they fail, not skip, if a
# service is missing (docs/buses.md, "Broker tests").
# Two modules at a time (-T 2): the broker modules' tests mostly wait on the brokers (session timeouts,
# killed processes), so the Redis, MCP, plugin and gateway modules run beside the Kafka one; about 24 -> 19
# minutes of Maven on the 2 vCPU machine. The reactor still builds a module after the modules it needs.
mvn -B -ntp -T 2 install "$@"
bash scripts/java-example.sh
# The plugin SDKs installed as packages (pip into fresh venvs, npm into fresh projects, a Go module
# requiring the SDK), each running a plugin under the server jar just built.
bash scripts/test-packages.sh
# The Python and Node clients, against the server jar just built, on every transport.
bash scripts/client-tests.sh
# One very short iteration of every JMH benchmark, so a broken benchmark fails CI (its numbers mean
# nothing; scripts/bench.sh is the real measurement). The jar was built by `verify` above.
BENCH_SKIP_BUILD=1 bash scripts/bench-smoke.sh
