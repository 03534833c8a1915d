package dev.toolbus.crossface;

import java.util.List;

/** One way of running the fixture's toolbus.yaml, as its clients see it. */
interface Face extends AutoCloseable {

    /** Who asks: a member or an owner session (a member or owner token on a gateway). */
    enum Session { MEMBER, OWNER }

    /** What to answer if the call asks for approval. */
    enum Answer { APPROVE, DENY }

    /**
     * A call's outcome.
     *
     * @param asked whether approval was asked for
     * @param error whether the result is an error
     * @param code its error code, or {@code null}
     * @param content its text
     */
    record Result(boolean asked, boolean error, String code, String content) {
    }

    String name();

    /** The tool names the session may see, sorted. */
    List<String> tools(Session session) throws Exception;

    /** Calls a tool as the session, answering an approval request with {@code answer}. */
    Result call(Session session, String tool, String argumentsJson, Answer answer) throws Exception;

    /** The gateway of this face, or {@code null} when it has none. */
    GatewayClient gateway();

    @Override
    void close() throws Exception;
}
