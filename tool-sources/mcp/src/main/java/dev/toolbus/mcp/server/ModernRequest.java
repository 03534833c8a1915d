package dev.toolbus.mcp.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.CallContext;

/**
 * One 2026-07-28 request as the dispatcher sees it, whatever the transport.
 *
 * @param id its JSON-RPC id
 * @param method its method
 * @param params its params (an empty object when it had none)
 * @param meta its validated {@code _meta}
 * @param principal who sent it: the HTTP client's token, or {@code stdio}; binds its
 *     {@code requestState} and the tasks it creates
 * @param context the call context its calls run with
 */
record ModernRequest(JsonNode id, String method, ObjectNode params, RequestMeta meta, String principal,
                     CallContext context) {
}
