package dev.toolbus.spi;

import dev.toolbus.protocol.CallContext;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * Narrows the tools a session is offered to those the conversation text needs (ChatAI's
 * {@code dispatch}: a small model picks tool groups). It only narrows: the executor offers the chosen
 * tools that the policy allows, plus the core tools that belong to no group. Whenever the choice fails
 * (an error, a timeout, an answer that cannot be read, no group chosen) the executor offers the whole
 * policy-filtered list, so a broken dispatcher never leaves the model without tools.
 */
public interface ToolDispatch {

    /**
     * Chooses for one {@code list_tools} request. Signal a failure as a {@link DispatchException} (or any
     * error); complete empty or with no tools to mean "no choice".
     */
    Mono<Choice> choose(Query query);

    /**
     * What the dispatcher chooses from.
     *
     * @param streamId the conversation
     * @param text the conversation text
     * @param context who asks
     * @param allowedTools the tools the policy lets this session see, name → description, in listing order
     */
    record Query(String streamId, String text, CallContext context, Map<String, String> allowedTools) {
        public Query {
            Objects.requireNonNull(streamId, "streamId");
            Objects.requireNonNull(text, "text");
            context = context == null ? CallContext.EMPTY : context;
            allowedTools = Map.copyOf(allowedTools);
        }
    }

    /**
     * A choice.
     *
     * @param groups the chosen groups, for logs and meters
     * @param tools the tools of the chosen groups
     * @param groupedTools every tool that belongs to some group (the rest are "ungrouped")
     */
    record Choice(List<String> groups, Set<String> tools, Set<String> groupedTools) {
        public Choice {
            groups = List.copyOf(groups);
            tools = Set.copyOf(tools);
            groupedTools = Set.copyOf(groupedTools);
        }
    }

    /** Why a choice failed; the listing then falls back to the full list. */
    enum Failure {
        /** The endpoint failed or answered an HTTP error. */
        ERROR,
        /** No answer within the dispatcher's timeout. */
        TIMEOUT,
        /** An answer that names no readable choice. */
        UNPARSABLE
    }

    /** A failed choice, with its kind (for the fallback's meter and log). */
    final class DispatchException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final Failure failure;

        public DispatchException(Failure failure, String message) {
            super(message, null, false, false);
            this.failure = Objects.requireNonNull(failure, "failure");
        }

        public Failure failure() {
            return failure;
        }
    }
}
