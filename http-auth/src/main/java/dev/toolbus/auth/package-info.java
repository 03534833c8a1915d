/**
 * Bearer tokens and what each may do: {@link dev.toolbus.auth.AccessTokens} checks a token in
 * constant time and yields its {@link dev.toolbus.auth.TokenScope}, which admits, clamps or refuses
 * the context a client claims. Shared by the gateway and the MCP HTTP server.
 */
package dev.toolbus.auth;
