package dev.toolbus.mcp.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.mcp.internal.Wire;

/**
 * A 2026-07-28 request refused with a JSON-RPC error: its code, message and {@code data}. Thrown by
 * the validation of a request, caught by the dispatcher and answered with the request's id.
 */
final class ModernError extends RuntimeException {

    private static final long serialVersionUID = 1L;

    final int code;
    final transient JsonNode data;

    ModernError(int code, String message, JsonNode data) {
        super(message, null, false, false);
        this.code = code;
        this.data = data;
    }

    ModernError(int code, String message) {
        this(code, message, null);
    }

    static ModernError invalidParams(String message) {
        return new ModernError(Wire.INVALID_PARAMS, message);
    }

    static ModernError internal(String message) {
        return new ModernError(Wire.INTERNAL_ERROR, message);
    }

    /** -32021 naming the missing capability, as a {@code ClientCapabilities} object ({@code {"sampling":{}}}). */
    static ModernError missingCapability(String what, JsonNode requiredCapabilities) {
        var data = Wire.object();
        data.set("requiredCapabilities", requiredCapabilities);
        return new ModernError(Wire.MISSING_CAPABILITY, "the request needs the client capability " + what
                + ", which it did not declare", data);
    }

    /** The error response to the request of this id. */
    com.fasterxml.jackson.databind.node.ObjectNode response(JsonNode id) {
        return Wire.error(id, code, getMessage(), data);
    }

    /** The HTTP status of a JSON-RPC error code on the 2026-07-28 wire. */
    static int httpStatus(int code) {
        return switch (code) {
            case Wire.METHOD_NOT_FOUND -> 404;
            case Wire.INVALID_PARAMS, Wire.INVALID_REQUEST, Wire.PARSE_ERROR, Wire.HEADER_MISMATCH,
                    Wire.MISSING_CAPABILITY, Wire.UNSUPPORTED_VERSION -> 400;
            default -> 200;
        };
    }
}
