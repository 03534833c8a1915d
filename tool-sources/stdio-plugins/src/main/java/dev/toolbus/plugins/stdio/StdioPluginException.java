package dev.toolbus.plugins.stdio;

/**
 * A stdio plugin failed: it could not be started or activated, it exited or broke the protocol during
 * a call, or its folder or manifest is invalid. A call that fails this way is reported by the executor
 * as {@code TOOL_FAILED} with this message; a plugin's own {@code {"error": …}} answer is an error
 * result ({@code TOOL_ERROR}) instead.
 */
public class StdioPluginException extends RuntimeException {

    /**
     * @param message what failed, naming the plugin
     */
    public StdioPluginException(String message) {
        super(message);
    }

    /**
     * @param message what failed, naming the plugin
     * @param cause the underlying failure
     */
    public StdioPluginException(String message, Throwable cause) {
        super(message, cause);
    }
}
