package dev.toolbus.benchmarks.scale;

import io.netty.handler.codec.http.HttpHeaderNames;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.http.client.HttpClient;

/** Opens WebSocket connections to the gateway that send nothing, and holds them until {@link #close()}. */
final class IdleSockets implements AutoCloseable {

    private final Sinks.Empty<Void> release = Sinks.empty();
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();

    /** Opens {@code count} connections, at most 64 handshakes at once, and returns when all are up. */
    int open(int port, String token, int count, Duration max) {
        HttpClient client = HttpClient.newConnection()
                .headers(h -> h.set(HttpHeaderNames.AUTHORIZATION, "Bearer " + token));
        Flux.range(0, count)
                .flatMap(i -> Mono.<Void>create(opened -> client.websocket().uri("ws://127.0.0.1:" + port + "/v1/ws")
                        .handle((in, out) -> {
                            open.incrementAndGet();
                            opened.success();
                            return in.receive().then().takeUntilOther(release.asMono())
                                    .then(out.sendClose());
                        })
                        .doOnError(e -> {
                            failed.incrementAndGet();
                            opened.success();
                        })
                        .subscribe()), 64)
                .then()
                .block(max);
        return open.get();
    }

    int failed() {
        return failed.get();
    }

    @Override
    public void close() {
        release.tryEmitEmpty();
    }
}
