package dev.toolbus.gateway;

import java.time.Duration;
import reactor.core.publisher.Mono;

/** A running {@link Gateway}. Obtained from {@link Gateway#start()}. */
public interface GatewayServer extends AutoCloseable {

    /** The bound address. */
    String host();

    /** The bound port (the real one when the gateway was configured with port 0). */
    int port();

    /** {@code http://host:port}, for clients and logs. */
    default String baseUrl() {
        String h = host().contains(":") ? "[" + host() + "]" : host();
        return "http://" + h + ":" + port();
    }

    /** WebSocket connections open now. */
    int openWebSockets();

    /**
     * Stops taking new work, lets running turns deliver their events (at most the drain timeout),
     * closes WebSocket connections with 1001, then unbinds. New HTTP requests meanwhile get 503 with
     * an {@code error} event ({@code REJECTED}); new WebSocket frames get an {@code error} event.
     * The executor is not closed.
     */
    Mono<Void> closeGracefully();

    /** Unbinds and drops every connection now; running turns are cancelled. */
    @Override
    void close();

    /** {@link #closeGracefully()}, waiting at most {@code timeout}; then {@link #close()}. */
    default void closeGracefully(Duration timeout) {
        try {
            closeGracefully().block(timeout);
        } finally {
            close();
        }
    }
}
