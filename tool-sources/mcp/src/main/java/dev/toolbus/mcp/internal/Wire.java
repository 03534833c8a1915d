package dev.toolbus.mcp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * The MCP wire as both sides of this module speak it beside the Java SDK: protocol versions,
 * reserved {@code _meta} keys, error codes, HTTP header names, and the JSON-RPC envelopes of the
 * 2026-07-28 revision (built as Jackson trees: the SDK has no types for them).
 */
public final class Wire {

    /** The modern revision: per-request {@code _meta}, no handshake. */
    public static final String MODERN = "2026-07-28";
    /** The legacy revisions ({@code initialize} handshake) served over HTTP, newest first. */
    public static final List<String> LEGACY = List.of("2025-11-25", "2025-06-18", "2025-03-26");
    /** The oldest legacy revision, served over stdio only. */
    public static final String LEGACY_OLDEST = "2024-11-05";

    public static final String META = "_meta";
    public static final String META_VERSION = "io.modelcontextprotocol/protocolVersion";
    public static final String META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
    public static final String META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
    public static final String META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";
    public static final String META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";
    public static final String META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
    /** The 2025-11-25 tasks' {@code _meta} key naming the task a message belongs to. */
    public static final String META_RELATED_TASK = "io.modelcontextprotocol/related-task";
    /** The Tasks extension's id. */
    public static final String TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

    public static final int PARSE_ERROR = -32700;
    public static final int INVALID_REQUEST = -32600;
    public static final int METHOD_NOT_FOUND = -32601;
    public static final int INVALID_PARAMS = -32602;
    public static final int INTERNAL_ERROR = -32603;
    public static final int HEADER_MISMATCH = -32020;
    public static final int MISSING_CAPABILITY = -32021;
    public static final int UNSUPPORTED_VERSION = -32022;
    /** toolbus's code for a request the client cancelled (HTTP has to answer something). */
    public static final int REQUEST_CANCELLED = -32800;

    public static final String HEADER_VERSION = "MCP-Protocol-Version";
    public static final String HEADER_METHOD = "Mcp-Method";
    public static final String HEADER_NAME = "Mcp-Name";
    public static final String HEADER_PARAM_PREFIX = "Mcp-Param-";
    public static final String HEADER_SESSION = "Mcp-Session-Id";

    public static final String RESULT_TYPE = "resultType";
    public static final String COMPLETE = "complete";
    public static final String INPUT_REQUIRED = "input_required";
    public static final String TASK = "task";

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private Wire() {
    }

    /** A JSON-RPC response carrying {@code result}. */
    public static ObjectNode response(JsonNode id, ObjectNode result) {
        ObjectNode m = NODES.objectNode().put("jsonrpc", "2.0");
        m.set("id", id == null ? NODES.nullNode() : id);
        m.set("result", result);
        return m;
    }

    /** A JSON-RPC error response; {@code data} may be {@code null}. */
    public static ObjectNode error(JsonNode id, int code, String message, JsonNode data) {
        ObjectNode e = NODES.objectNode().put("code", code).put("message", message);
        if (data != null) {
            e.set("data", data);
        }
        ObjectNode m = NODES.objectNode().put("jsonrpc", "2.0");
        m.set("id", id == null ? NODES.nullNode() : id);
        m.set("error", e);
        return m;
    }

    /** A JSON-RPC request. */
    public static ObjectNode request(JsonNode id, String method, ObjectNode params) {
        ObjectNode m = NODES.objectNode().put("jsonrpc", "2.0");
        m.set("id", id);
        m.put("method", method);
        if (params != null) {
            m.set("params", params);
        }
        return m;
    }

    /** A JSON-RPC notification. */
    public static ObjectNode notification(String method, ObjectNode params) {
        ObjectNode m = NODES.objectNode().put("jsonrpc", "2.0").put("method", method);
        if (params != null) {
            m.set("params", params);
        }
        return m;
    }

    /** Whether a message is a response (it has an id and a result or an error, and no method). */
    public static boolean isResponse(JsonNode m) {
        return m != null && m.has("id") && !m.has("method") && (m.has("result") || m.has("error"));
    }

    /** The error code of an error response, or 0. */
    public static int errorCode(JsonNode m) {
        JsonNode e = m == null ? null : m.get("error");
        return e != null && e.path("code").canConvertToInt() ? e.path("code").asInt() : 0;
    }

    /** Whether a JSON-RPC id is usable: a string or an integral number. */
    public static boolean validId(JsonNode id) {
        return id != null && (id.isTextual() || id.isIntegralNumber());
    }

    /** A fresh object node. */
    public static ObjectNode object() {
        return NODES.objectNode();
    }
}
