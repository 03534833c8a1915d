package dev.toolbus.protocol;

import java.util.Locale;
import java.util.Objects;

/**
 * Asks which tools a session may see ({@code list_tools}); answered with a {@link ToolsEvent}.
 *
 * @param streamId the conversation
 * @param requestId echoed in the answer
 * @param context who and where (decides what is visible)
 * @param format the export format
 * @param text the conversation text the tools are for, or {@code null}; with dispatch configured a
 *     small model narrows the answer to the tool groups this text needs
 * @param trace the bot core's W3C trace context, or {@code null}
 */
public record ListToolsEvent(String streamId, String requestId, CallContext context, Format format, String text,
                             TraceContext trace) implements InboundEvent {

    /** A request without a trace context. */
    public ListToolsEvent(String streamId, String requestId, CallContext context, Format format, String text) {
        this(streamId, requestId, context, format, text, null);
    }

    /** A request without conversation text (no dispatch). */
    public ListToolsEvent(String streamId, String requestId, CallContext context, Format format) {
        this(streamId, requestId, context, format, null);
    }

    public ListToolsEvent {
        Objects.requireNonNull(streamId, "streamId");
        requestId = requestId == null ? "" : requestId;
        context = context == null ? CallContext.EMPTY : context;
        format = format == null ? Format.OPENAI : format;
        text = text == null || text.isBlank() ? null : text;
    }

    /** Tool definition formats. */
    public enum Format {
        OPENAI, ANTHROPIC, MCP;

        /** Parses {@code openai | anthropic | mcp}. */
        public static Format parse(String s) {
            if (s == null || s.isBlank()) {
                return OPENAI;
            }
            return Format.valueOf(s.strip().toUpperCase(Locale.ROOT));
        }

        /** The wire name. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
