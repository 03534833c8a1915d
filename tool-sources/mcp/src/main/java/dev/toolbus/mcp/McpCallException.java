package dev.toolbus.mcp;

/**
 * An MCP request failed at the peer. On the client side: a call to an external MCP server that answered
 * with a JSON-RPC error, could not be started or reached, or stopped during the call. On the
 * server side: a {@code sampling/createMessage} the MCP client refused or answered with an invalid
 * result. The executor reports it as {@code TOOL_FAILED} with this message. (A tool that reports
 * {@code isError} is not a failure of the call: it becomes an error result, {@code TOOL_ERROR}.)
 */
public class McpCallException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** A failure with a readable message that names the server or the request. */
    public McpCallException(String message) {
        super(message);
    }

    /** A failure with a readable message and the error beneath it. */
    public McpCallException(String message, Throwable cause) {
        super(message, cause);
    }
}
