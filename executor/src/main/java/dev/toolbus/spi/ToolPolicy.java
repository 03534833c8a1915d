package dev.toolbus.spi;

import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.tool.ToolDefinition;
import java.util.Objects;

/**
 * Decides which tools a session may see and call. One resolution serves listing and execution, so
 * the two never disagree: a call to a tool the session may not see is answered {@code NOT_AVAILABLE}
 * (or {@code PERMISSION_DENIED}) and never runs.
 */
@FunctionalInterface
public interface ToolPolicy {

    /**
     * Decides for one tool and one session.
     *
     * @param tool the tool
     * @param streamId the conversation
     * @param context who and where
     */
    Decision decide(ToolDefinition tool, String streamId, CallContext context);

    /** Everything allowed (hidden tools are still never listed or called). */
    static ToolPolicy allowAll() {
        return (tool, streamId, context) -> Decision.ALLOW;
    }

    /**
     * The outcome of a policy check.
     *
     * @param allowed whether the session may see and call the tool
     * @param code {@code NOT_AVAILABLE} or {@code PERMISSION_DENIED} when not allowed
     * @param reason a message the model can act on
     */
    record Decision(boolean allowed, ErrorCode code, String reason) {

        public static final Decision ALLOW = new Decision(true, null, "");

        public Decision {
            if (!allowed) {
                Objects.requireNonNull(code, "code");
            }
            reason = reason == null ? "" : reason;
        }

        /** Not visible to this session. */
        public static Decision notAvailable(String reason) {
            return new Decision(false, ErrorCode.NOT_AVAILABLE, reason);
        }

        /** Visible but the caller lacks the permission. */
        public static Decision permissionDenied(String reason) {
            return new Decision(false, ErrorCode.PERMISSION_DENIED, reason);
        }
    }
}
