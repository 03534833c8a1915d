package dev.toolbus.mcp.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The wire to a 2026-07-28 MCP server: one request in, the messages that belong to it out (its
 * notifications, then its response, last). There is no session; cancelling a request's Flux cancels
 * the request on the server (stdio: {@code notifications/cancelled}; HTTP: the stream is closed).
 */
interface ModernChannel {

    /** Sends a request (with its id); the messages for it, the response last. */
    Flux<JsonNode> exchange(ObjectNode request);

    /** Completes when the channel can no longer carry requests (the process exited). */
    Mono<Void> dead();

    /** Stops the channel (and the server process it started). */
    Mono<Void> close();

    /** The process id of a stdio server, or -1. */
    long pid();
}
