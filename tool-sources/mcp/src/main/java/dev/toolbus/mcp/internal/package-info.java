/**
 * The MCP wire as both sides of the module speak it beside the Java SDK (the 2026-07-28 revision has
 * no SDK types yet): versions, reserved {@code _meta} keys, error codes, header names and the JSON-RPC
 * envelopes ({@code Wire}), and the Base64 sentinel of header values ({@code HeaderValues}). Not API:
 * public only so that the client and server packages can share it.
 */
package dev.toolbus.mcp.internal;
