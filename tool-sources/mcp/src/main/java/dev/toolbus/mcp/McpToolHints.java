package dev.toolbus.mcp;

import dev.toolbus.protocol.Risk;
import dev.toolbus.tool.ToolDefinition;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * MCP's tool annotations ({@code readOnlyHint}, {@code destructiveHint}) and a toolbus
 * {@link ToolDefinition}, in both directions.
 *
 * <p>The client ({@code McpToolSource}) keeps the hints an external server declared in the
 * definition's metadata, as Booleans under {@link #READ_ONLY_HINT} and {@link #DESTRUCTIVE_HINT}, where
 * approval's risk rules read them. The server ({@code McpToolServer}) tells its clients hints only where
 * toolbus has evidence: those kept hints first, else the definition's own declarations.
 *
 * <pre>{@code
 * ToolDefinition.Builder b = ToolDefinition.builder("delete_file");
 * McpToolHints.record(b, tool.annotations());                 // from an external server's tool
 * McpSchema.ToolAnnotations served = McpToolHints.annotations(b.build());
 * }</pre>
 */
public final class McpToolHints {

    /** Metadata key of the tool's MCP {@code readOnlyHint} (a Boolean; absent when not declared). */
    public static final String READ_ONLY_HINT = "readOnlyHint";

    /** Metadata key of the tool's MCP {@code destructiveHint} (a Boolean; absent when not declared). */
    public static final String DESTRUCTIVE_HINT = "destructiveHint";

    /**
     * Metadata key of whether an MCP call of the tool may run as a task (a String: {@code forbidden},
     * {@code optional}, {@code required}; absent means forbidden). Set it with {@link #taskSupport(
     * ToolDefinition.Builder, TaskSupport)}; an external server's {@code execution.taskSupport} is kept
     * here too.
     */
    public static final String TASK_SUPPORT = "mcp.taskSupport";

    /** Whether an MCP call of a tool may become a task (MCP's {@code execution.taskSupport}). */
    public enum TaskSupport {
        /** Never a task (the default). */
        FORBIDDEN,
        /** A task when the client supports tasks and the call runs long; else an ordinary call. */
        OPTIONAL,
        /** Always a task: a client without tasks cannot call it. */
        REQUIRED;

        /** The wire name. */
        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** Reads a wire name; anything else is {@link #FORBIDDEN}. */
        public static TaskSupport parse(Object value) {
            if (value instanceof String s) {
                for (TaskSupport t : values()) {
                    if (t.wireName().equals(s)) {
                        return t;
                    }
                }
            }
            return FORBIDDEN;
        }
    }

    private McpToolHints() {
    }

    /**
     * Keeps the hints an MCP server declared in the definition's metadata, as Booleans; a hint not
     * declared adds nothing.
     *
     * @param definition the definition being built
     * @param hints the tool's annotations, or {@code null}
     * @return {@code definition}
     */
    public static ToolDefinition.Builder record(ToolDefinition.Builder definition, McpSchema.ToolAnnotations hints) {
        if (hints != null && hints.readOnlyHint() != null) {
            definition.metadata(READ_ONLY_HINT, hints.readOnlyHint());
        }
        if (hints != null && hints.destructiveHint() != null) {
            definition.metadata(DESTRUCTIVE_HINT, hints.destructiveHint());
        }
        return definition;
    }

    /** Declares whether an MCP call of the tool may run as a task. */
    public static ToolDefinition.Builder taskSupport(ToolDefinition.Builder definition, TaskSupport support) {
        return definition.metadata(TASK_SUPPORT, support.wireName());
    }

    /** Whether an MCP call of the tool may run as a task ({@link TaskSupport#FORBIDDEN} unless declared). */
    public static TaskSupport taskSupport(ToolDefinition d) {
        return TaskSupport.parse(d.metadata().get(TASK_SUPPORT));
    }

    /** Whether the annotations say the tool only reads ({@code readOnlyHint: true}). */
    public static boolean readOnly(McpSchema.ToolAnnotations hints) {
        return hints != null && Boolean.TRUE.equals(hints.readOnlyHint());
    }

    /**
     * The hints an MCP client is told about a toolbus tool, only where toolbus has evidence: an MCP tool
     * served on keeps its server's hints; otherwise a declared risk {@code low} is
     * {@code readOnlyHint: true}, a side-effecting tool {@code readOnlyHint: false}, and a dangerous or
     * high-risk one {@code destructiveHint: true}.
     *
     * @return the annotations, or {@code null} when there is nothing to say
     */
    public static McpSchema.ToolAnnotations annotations(ToolDefinition d) {
        Boolean readOnly = d.metadata().get(READ_ONLY_HINT) instanceof Boolean b ? b
                : d.sideEffecting() ? Boolean.FALSE : d.risk() == Risk.LOW ? Boolean.TRUE : null;
        Boolean destructive = d.metadata().get(DESTRUCTIVE_HINT) instanceof Boolean b ? b
                : d.dangerous() || d.risk() == Risk.HIGH ? Boolean.TRUE : null;
        return readOnly == null && destructive == null ? null
                : new McpSchema.ToolAnnotations(null, readOnly, destructive, null, null, null);
    }
}
