package dev.toolbus.mcp;

/**
 * A call to an external MCP server failed: the server answered with a JSON-RPC error, could not be
 * started or reached, or stopped during the call. The executor reports it as {@code TOOL_FAILED}
 * with this message. (A tool that reports {@code isError} is not a failure of the call: it becomes
 * an error result, {@code TOOL_ERROR}.)
 */
public class McpCallException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public McpCallException(String message) {
        super(message);
    }

    public McpCallException(String message, Throwable cause) {
        super(message, cause);
    }
}
