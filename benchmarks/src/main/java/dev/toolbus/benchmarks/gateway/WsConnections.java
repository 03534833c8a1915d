package dev.toolbus.benchmarks.gateway;

import io.netty.handler.codec.http.HttpHeaderNames;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.http.client.HttpClient;

/**
 * WebSocket connections to one server, opened once and driven through every run of a phase: each run
 * sends its turns over the same connections, one at a time per connection (a closed loop). Opening 32
 * connections per run made the server go through the handshake's code again in every measured run, and
 * compile part of it there (docs/benchmarks.md, eighth pass).
 */
final class WsConnections implements AutoCloseable {

    /** One open connection: its outgoing frames and the run it serves now. */
    private final class Connection {
        final int index;
        final Sinks.Many<String> outgoing = Sinks.many().unicast().onBackpressureBuffer();
        /** When this connection's turn in flight was sent (its event loop reads it; one turn at a time). */
        volatile long sentNanos;

        Connection(int index) {
            this.index = index;
        }

        void sendNext() {
            Run r = current;
            int i = r.next.getAndIncrement();
            if (i >= r.requests) {
                return;
            }
            sentNanos = System.nanoTime();
            // the run's first turn is sent from the harness's thread, and its answer may arrive while that
            // thread is still inside the sink: the answer's next turn then waits its turn, it is not dropped.
            // A handler per send: busyLooping's deadline is fixed when it is made, so a shared one would
            // give up for good once its five seconds after the first send had passed
            outgoing.emitNext(GatewayLoad.turn("w" + index, i), Sinks.EmitFailureHandler.busyLooping(SERIALIZE_FOR));
        }

        void answered(String frame) {
            if (!frame.contains("\"type\":\"turn_completed\"") && !frame.contains("\"type\":\"error\"")) {
                return;
            }
            Run r = current;
            if (frame.contains("\"type\":\"error\"")) {
                r.errors.incrementAndGet();
            }
            int n = r.answered.getAndIncrement();
            if (n < r.latencies.length) {
                r.latencies[n] = System.nanoTime() - sentNanos;
            }
            if (n + 1 == r.requests) {
                r.done.countDown();
            } else {
                sendNext();
            }
        }
    }

    /** One run's counters: turns handed out, answered, failed; the latencies. */
    private static final class Run {
        final int requests;
        final long[] latencies;
        final AtomicInteger next = new AtomicInteger();
        final AtomicInteger answered = new AtomicInteger();
        final AtomicInteger errors = new AtomicInteger();
        final CountDownLatch done = new CountDownLatch(1);

        Run(int requests) {
            this.requests = requests;
            this.latencies = new long[requests];
        }
    }

    /** How long a send waits for the thread still inside the connection's sink. */
    private static final Duration SERIALIZE_FOR = Duration.ofSeconds(5);

    private final List<Connection> connections = new ArrayList<>();
    private final List<Disposable> handlers = new ArrayList<>();
    private volatile Run current = new Run(0);

    private WsConnections() {
    }

    /** Opens {@code clients} connections to {@code /v1/ws} on {@code port}, on {@code clientThreads} client loops. */
    static WsConnections open(int port, int clients, int clientThreads, String token, Duration timeout) {
        WsConnections ws = new WsConnections();
        HttpClient client = HttpClient.create().runOn(ClientLoops.of(clientThreads))
                .headers(h -> h.set(HttpHeaderNames.AUTHORIZATION, "Bearer " + token));
        CountDownLatch open = new CountDownLatch(clients);
        try {
            for (int c = 0; c < clients; c++) {
                Connection conn = ws.new Connection(c);
                ws.connections.add(conn);
                ws.handlers.add(client.websocket().uri("ws://127.0.0.1:" + port + "/v1/ws").handle((in, out) -> {
                    open.countDown();
                    Mono<Void> sending = out.sendString(conn.outgoing.asFlux()).then();
                    Mono<Void> receiving = in.receive().asString().doOnNext(conn::answered).then();
                    return Mono.when(sending, receiving);
                }).subscribe(null, e -> System.err.println("load client connection " + conn.index + " failed: " + e)));
            }
            if (!open.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(open.getCount() + " of " + clients + " WebSocket connections did not open");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ws.close();
            throw new IllegalStateException("interrupted while opening connections", e);
        } catch (RuntimeException e) {
            ws.close();
            throw e;
        }
        return ws;
    }

    /** Sends {@code requests} one-call turns over the open connections, a closed loop; waits for every answer. */
    GatewayLoad.Samples run(int requests, Duration timeout) throws InterruptedException {
        Run r = new Run(requests);
        current = r;
        long t0 = System.nanoTime();
        for (Connection c : connections) {
            c.sendNext();
        }
        if (!r.done.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException(r.answered.get() + " of " + requests + " turns answered in " + timeout);
        }
        long elapsed = System.nanoTime() - t0;
        return new GatewayLoad.Samples(Arrays.copyOf(r.latencies, Math.min(requests, r.answered.get())), r.errors.get(),
                elapsed);
    }

    @Override
    public void close() {
        for (Connection c : connections) {
            c.outgoing.tryEmitComplete();
        }
        for (Disposable d : handlers) {
            d.dispose();
        }
    }
}
