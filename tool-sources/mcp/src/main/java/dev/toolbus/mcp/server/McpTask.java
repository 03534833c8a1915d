package dev.toolbus.mcp.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;

/**
 * One task of the MCP Tasks extension (or of the 2025-11-25 tasks): an MCP {@code tools/call}
 * the server runs on after answering it, whose state the client polls. Immutable; a change is a
 * new value written through {@link McpTaskStore#update}.
 *
 * @param taskId the unguessable id (128 random bits, Base64url)
 * @param principal who created it: only the same principal may read, answer or cancel it
 * @param streamId the executor call's stream
 * @param turnId the executor call's turn
 * @param toolCallId the executor call's id
 * @param tool the tool called
 * @param legacy whether a 2025-11-25 client created it (its wire names differ)
 * @param status where it stands
 * @param statusMessage the latest progress or status text, or {@code null}
 * @param createdAt when it was created
 * @param updatedAt when it last changed
 * @param ttl how long it is kept after {@code createdAt} ({@code null}: as long as the store keeps it)
 * @param pollInterval the poll interval suggested to the client
 * @param inputRequests the questions waiting for an answer (key → MCP request), or an empty object
 * @param result the {@code CallToolResult} once completed, else {@code null}
 * @param error the JSON-RPC error object once failed, else {@code null}
 */
public record McpTask(String taskId, String principal, String streamId, String turnId, String toolCallId, String tool,
                      boolean legacy, Status status, String statusMessage, Instant createdAt, Instant updatedAt,
                      Duration ttl, Duration pollInterval, ObjectNode inputRequests, ObjectNode result,
                      ObjectNode error) {

    /** A task's status; the last three are terminal. */
    public enum Status {
        WORKING, INPUT_REQUIRED, COMPLETED, FAILED, CANCELLED;

        /** The wire name ({@code working}, {@code input_required}, …). */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** Whether nothing changes any more. */
        public boolean terminal() {
            return this == COMPLETED || this == FAILED || this == CANCELLED;
        }
    }

    public McpTask {
        Objects.requireNonNull(taskId, "taskId");
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(updatedAt, "updatedAt");
        Objects.requireNonNull(pollInterval, "pollInterval");
        inputRequests = inputRequests == null ? dev.toolbus.mcp.internal.Wire.object() : inputRequests.deepCopy();
        result = result == null ? null : result.deepCopy();
        error = error == null ? null : error.deepCopy();
    }

    /** When the store may forget it ({@code null}: never by time). */
    public Instant expiresAt() {
        return ttl == null ? null : createdAt.plus(ttl);
    }

    /** This task with another status message at {@code now}. */
    McpTask message(String message, Instant now) {
        return new McpTask(taskId, principal, streamId, turnId, toolCallId, tool, legacy, status, message, createdAt,
                now, ttl, pollInterval, inputRequests, result, error);
    }

    /** This task waiting for the answers to {@code requests} at {@code now} ({@code working} when none is left). */
    McpTask waiting(ObjectNode requests, Instant now) {
        Status s = requests.isEmpty() ? Status.WORKING : Status.INPUT_REQUIRED;
        return new McpTask(taskId, principal, streamId, turnId, toolCallId, tool, legacy, s, statusMessage, createdAt,
                now, ttl, pollInterval, requests, result, error);
    }

    /** This task ended at {@code now}: completed with a result, failed with an error, or cancelled. */
    McpTask ended(Status s, ObjectNode result, ObjectNode error, String message, Instant now) {
        return new McpTask(taskId, principal, streamId, turnId, toolCallId, tool, legacy, s, message, createdAt, now,
                ttl, pollInterval, null, result, error);
    }

    /** The bytes it weighs in a store, roughly (its JSON parts and strings). */
    public int weight() {
        int w = 256 + taskId.length() + principal.length() + (statusMessage == null ? 0 : statusMessage.length());
        w += inputRequests.toString().length();
        w += result == null ? 0 : result.toString().length();
        w += error == null ? 0 : error.toString().length();
        return w;
    }
}
