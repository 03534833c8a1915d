/**
 * The WebSocket and HTTP/SSE gateway: {@link dev.toolbus.gateway.Gateway} configures and starts it,
 * {@link dev.toolbus.gateway.GatewayServer} is the running server. Everything else in this package is
 * internal. docs/gateway.md describes the endpoints, limits and close codes.
 */
package dev.toolbus.gateway;
