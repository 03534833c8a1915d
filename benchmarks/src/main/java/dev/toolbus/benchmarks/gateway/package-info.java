/**
 * A bounded, loopback-only load run of the gateway over HTTP and WebSocket beside the in-process
 * executor ({@link dev.toolbus.benchmarks.gateway.GatewayLoad}; {@code scripts/gateway-load.sh}).
 */
package dev.toolbus.benchmarks.gateway;
