package dev.toolbus.gateway;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;

/** The gateway's own meters (names under {@code toolbus.gateway}). */
final class GatewayMeters {

    /** Counter of answered HTTP requests, tags endpoint and status. */
    static final String REQUESTS = "toolbus.gateway.requests";
    /** Gauge of open WebSocket connections. */
    static final String WS_OPEN = "toolbus.gateway.ws.connections";
    /** Counter of WebSocket connections closed by the server, tag reason. */
    static final String WS_CLOSED = "toolbus.gateway.ws.closed";
    /** Gauge of bytes queued for WebSocket clients and not yet written to their sockets. */
    static final String OUTBOUND_PENDING = "toolbus.gateway.outbound.pending";
    /** Gauge of open TCP connections (HTTP and WebSocket). */
    static final String CONNECTIONS = "toolbus.gateway.connections";
    /** Counter of connections the gateway closed to protect itself, tag reason (limit, evicted, header_timeout). */
    static final String CONNECTIONS_CLOSED = "toolbus.gateway.connections.closed";
    /** Gauge of turns running for gateway clients. */
    static final String TURNS_ACTIVE = "toolbus.gateway.turns.active";
    /** Bytes of events held for non-streaming answers (gauge). */
    static final String ANSWERS_PENDING = "toolbus.gateway.answers.pending";
    /** Non-streaming answers refused for passing their byte bound (counter). */
    static final String ANSWERS_REFUSED = "toolbus.gateway.answers.refused";

    private final MeterRegistry registry;
    private static final int MAX_STATUS = 600;
    private final ConcurrentMap<String, Counter> counters = new ConcurrentHashMap<>();
    /** Request counters by endpoint, then by status code (a handful of endpoints, so bounded). */
    private final ConcurrentMap<String, AtomicReferenceArray<Counter>> requestCounters = new ConcurrentHashMap<>();
    final AtomicLong pendingBytes = new AtomicLong();
    /** The most bytes ever waiting for one WebSocket client (for tests and the load harness). */
    final AtomicLong peakPendingPerConnection = new AtomicLong();

    GatewayMeters(MeterRegistry registry, Supplier<Number> openWebSockets, Supplier<Number> activeTurns) {
        this.registry = registry;
        Gauge.builder(WS_OPEN, openWebSockets).description("Open WebSocket connections").register(registry);
        Gauge.builder(OUTBOUND_PENDING, pendingBytes, AtomicLong::get).baseUnit("bytes")
                .description("Bytes queued for WebSocket clients, not yet written to their sockets").register(registry);
        Gauge.builder(TURNS_ACTIVE, activeTurns).description("Turns running for gateway clients").register(registry);
    }

    void request(String endpoint, int status) {
        if (status < 0 || status >= MAX_STATUS) {
            counters.computeIfAbsent(endpoint + ' ' + status, k -> requestCounter(endpoint, status)).increment();
            return;
        }
        // per request: two array/map reads, no key built (the endpoint names are constants)
        AtomicReferenceArray<Counter> byStatus = requestCounters.get(endpoint);
        if (byStatus == null) {
            byStatus = requestCounters.computeIfAbsent(endpoint, k -> new AtomicReferenceArray<>(MAX_STATUS));
        }
        Counter c = byStatus.get(status);
        if (c == null) {
            c = requestCounter(endpoint, status); // Micrometer hands back the one counter of these tags
            byStatus.set(status, c);
        }
        c.increment();
    }

    private Counter requestCounter(String endpoint, int status) {
        return Counter.builder(REQUESTS).tag("endpoint", endpoint).tag("status", Integer.toString(status))
                .description("HTTP requests answered by the gateway").register(registry);
    }

    void answersGauge(Supplier<Number> held) {
        Gauge.builder(ANSWERS_PENDING, held).baseUnit("bytes")
                .description("Bytes of events held for non-streaming answers").register(registry);
    }

    void answerRefused() {
        counters.computeIfAbsent("answer refused", k -> Counter.builder(ANSWERS_REFUSED)
                .description("Non-streaming answers that passed their byte bound; their turns were cancelled")
                .register(registry)).increment();
    }

    void connectionsGauge(Supplier<Number> open) {
        Gauge.builder(CONNECTIONS, open).description("Open connections (HTTP and WebSocket)").register(registry);
    }

    void connectionClosed(String reason) {
        counters.computeIfAbsent("conn " + reason, k -> Counter.builder(CONNECTIONS_CLOSED).tag("reason", reason)
                .description("Connections closed by the gateway to stay within its bounds").register(registry)).increment();
    }

    void wsClosed(String reason) {
        counters.computeIfAbsent("ws " + reason, k -> Counter.builder(WS_CLOSED).tag("reason", reason)
                .description("WebSocket connections closed by the gateway").register(registry)).increment();
    }
}
