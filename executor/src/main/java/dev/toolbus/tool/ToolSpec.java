package dev.toolbus.tool;

import java.util.Objects;

/**
 * A runnable tool: its definition and its handler.
 *
 * @param definition what the model sees and the executor enforces
 * @param handler the code that runs a call
 */
public record ToolSpec(ToolDefinition definition, ToolHandler handler) {

    public ToolSpec {
        Objects.requireNonNull(definition, "definition");
        Objects.requireNonNull(handler, "handler");
    }

    /** The tool's name. */
    public String name() {
        return definition.name();
    }
}
