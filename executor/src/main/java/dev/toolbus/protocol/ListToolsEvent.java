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
 */
public record ListToolsEvent(String streamId, String requestId, CallContext context, Format format)
        implements InboundEvent {

    public ListToolsEvent {
        Objects.requireNonNull(streamId, "streamId");
        requestId = requestId == null ? "" : requestId;
        context = context == null ? CallContext.EMPTY : context;
        format = format == null ? Format.OPENAI : format;
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
