package dev.toolbus.mcp.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.mcp.internal.HeaderValues;
import dev.toolbus.mcp.internal.Wire;
import java.util.Map;
import java.util.function.Function;

/**
 * The HTTP headers of a 2026-07-28 request against its body: {@code MCP-Protocol-Version} equal to
 * {@code _meta}'s version, {@code Mcp-Method} equal to the method, {@code Mcp-Name} equal to the
 * name the method names ({@code params.name} of {@code tools/call} and {@code prompts/get},
 * {@code params.uri} of {@code resources/read}, {@code params.taskId} of the {@code tasks/*}
 * methods), Base64-sentinel values decoded first, and {@code Mcp-Param-<Name>} equal to the argument
 * a tool's {@code x-mcp-header} property names. Any difference is -32020 (HTTP 400).
 */
final class HeaderRules {

    private HeaderRules() {
    }

    /**
     * Checks the headers.
     *
     * @param header a header's value by name (case-insensitive), or {@code null}
     * @param method the body's method
     * @param params the body's params
     * @param paramHeaders for {@code tools/call}: the tool's mirrored arguments, header name → argument name
     * @throws ModernError -32020 naming the first header that does not match
     */
    static void check(Function<String, String> header, String method, JsonNode params, Map<String, String> paramHeaders) {
        String version = header.apply(Wire.HEADER_VERSION);
        if (version == null) {
            throw mismatch("the " + Wire.HEADER_VERSION + " header is missing");
        }
        if (!HeaderValues.valid(version)) {
            throw mismatch("the " + Wire.HEADER_VERSION + " header holds characters a header may not carry");
        }
        JsonNode metaVersion = params == null ? null : params.path(Wire.META).get(Wire.META_VERSION);
        if (metaVersion != null && metaVersion.isTextual() && !metaVersion.textValue().equals(version.strip())) {
            throw mismatch("the " + Wire.HEADER_VERSION + " header (" + version + ") differs from _meta's "
                    + Wire.META_VERSION + " (" + metaVersion.textValue() + ")");
        }
        String m = header.apply(Wire.HEADER_METHOD);
        if (m == null) {
            throw mismatch("the " + Wire.HEADER_METHOD + " header is missing");
        }
        String decodedMethod = decode(Wire.HEADER_METHOD, m);
        if (!decodedMethod.strip().equals(method)) {
            throw mismatch("the " + Wire.HEADER_METHOD + " header (" + m + ") differs from the method " + method);
        }
        String named = named(method, params);
        if (named != null) {
            String n = header.apply(Wire.HEADER_NAME);
            if (n == null) {
                throw mismatch("the " + Wire.HEADER_NAME + " header is missing (" + method + " names '" + named + "')");
            }
            String decoded = decode(Wire.HEADER_NAME, n);
            if (!decoded.equals(named) && !decoded.strip().equals(named)) {
                throw mismatch("the " + Wire.HEADER_NAME + " header (" + n + ") differs from '" + named + "'");
            }
        }
        if (paramHeaders != null && !paramHeaders.isEmpty()) {
            JsonNode args = params == null ? null : params.get("arguments");
            for (Map.Entry<String, String> e : paramHeaders.entrySet()) {
                String h = header.apply(Wire.HEADER_PARAM_PREFIX + e.getKey());
                JsonNode arg = args == null ? null : args.get(e.getValue());
                String expected = mirrored(arg);
                if (h == null) {
                    if (expected != null) {
                        throw mismatch("the " + Wire.HEADER_PARAM_PREFIX + e.getKey() + " header is missing");
                    }
                    continue;
                }
                String decoded = decode(Wire.HEADER_PARAM_PREFIX + e.getKey(), h);
                if (expected == null || !equalValues(decoded, expected, arg)) {
                    throw mismatch("the " + Wire.HEADER_PARAM_PREFIX + e.getKey() + " header (" + h
                            + ") differs from the argument '" + e.getValue() + "'");
                }
            }
        }
    }

    private static String decode(String name, String value) {
        if (!HeaderValues.valid(value)) {
            throw mismatch("the " + name + " header holds characters a header may not carry");
        }
        String d = HeaderValues.decode(value);
        if (d == null) {
            throw mismatch("the " + name + " header is not valid Base64 UTF-8 in its =?base64?…?= form");
        }
        return d;
    }

    /** The value a method names in {@code Mcp-Name}, or {@code null} when it names none. */
    static String named(String method, JsonNode params) {
        String field = switch (method) {
            case "tools/call", "prompts/get" -> "name";
            case "resources/read" -> "uri";
            case "tasks/get", "tasks/update", "tasks/cancel" -> "taskId";
            default -> null;
        };
        JsonNode v = field == null || params == null ? null : params.get(field);
        return v != null && v.isValueNode() && !v.isNull() ? v.asText() : null;
    }

    /** An argument as its header carries it: strings as they are, integers in decimal, booleans in lower case. */
    static String mirrored(JsonNode arg) {
        if (arg == null || arg.isNull()) {
            return null;
        }
        if (arg.isTextual()) {
            return arg.textValue();
        }
        if (arg.isIntegralNumber()) {
            return arg.bigIntegerValue().toString();
        }
        if (arg.isBoolean()) {
            return arg.booleanValue() ? "true" : "false";
        }
        if (arg.isNumber()) {
            return arg.decimalValue().stripTrailingZeros().toPlainString();
        }
        return null;
    }

    private static boolean equalValues(String header, String expected, JsonNode arg) {
        if (header.equals(expected)) {
            return true;
        }
        if (arg != null && arg.isNumber()) {
            try {
                return new java.math.BigDecimal(header.strip()).compareTo(arg.decimalValue()) == 0;
            } catch (NumberFormatException e) {
                return false;
            }
        }
        return false;
    }

    private static ModernError mismatch(String message) {
        return new ModernError(Wire.HEADER_MISMATCH, "Header mismatch: " + message);
    }
}
