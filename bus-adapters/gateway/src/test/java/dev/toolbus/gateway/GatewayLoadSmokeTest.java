package dev.toolbus.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.HttpHeaderNames;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * A few hundred turns from several concurrent clients over HTTP and over WebSocket, every one answered
 * without an error. The measured load run (calls/s, latency, server memory) is
 * {@code dev.toolbus.benchmarks.gateway.GatewayLoad} in the benchmarks module; this test only keeps
 * concurrency on both transports covered in the module's own build.
 */
class GatewayLoadSmokeTest {

    private static final int TURNS = 300;
    private static final int CLIENTS = 8;

    private static String turn(String stream, int i) {
        return "{\"type\":\"tool_call\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"t" + i
                + "\",\"name\":\"echo\",\"arguments\":{\"text\":\"n" + i + "\"}}";
    }

    @Test
    void concurrentHttpClientsGetEveryTurnAnswered() {
        ConnectionProvider pool = ConnectionProvider.builder("smoke").maxConnections(CLIENTS).build();
        try (TestGateway gw = TestGateway.start()) {
            HttpClient client = HttpClient.create(pool).baseUrl(gw.baseUrl())
                    .headers(h -> h.set(HttpHeaderNames.AUTHORIZATION, "Bearer " + TestGateway.TOKEN));
            Long ok = Flux.range(0, TURNS)
                    .flatMap(i -> client.post().uri("/v1/turns")
                            .send(ByteBufFlux.fromString(Mono.just(turn("h" + (i % CLIENTS), i))))
                            .responseSingle((res, body) -> body.asString()
                                    .filter(b -> res.status().code() == 200 && b.contains("\"content\":\"n" + i + "\"")
                                            && b.contains("turn_completed") && b.contains("\"is_error\":false"))),
                            CLIENTS)
                    .count()
                    .block(Duration.ofSeconds(60));
            assertThat(ok).isEqualTo(TURNS);
        } finally {
            pool.disposeLater().block(Duration.ofSeconds(10));
        }
    }

    @Test
    void concurrentWebSocketClientsGetEveryTurnAnswered() {
        try (TestGateway gw = TestGateway.start()) {
            AtomicInteger issued = new AtomicInteger();
            AtomicInteger completed = new AtomicInteger();
            AtomicInteger errors = new AtomicInteger();
            HttpClient client = HttpClient.create()
                    .headers(h -> h.set(HttpHeaderNames.AUTHORIZATION, "Bearer " + TestGateway.TOKEN));
            Flux.range(0, CLIENTS)
                    .flatMap(c -> client.websocket().uri("ws://127.0.0.1:" + gw.port() + "/v1/ws").handle((in, out) -> {
                        // one turn at a time per connection: the next goes out when the last completed
                        Sinks.Many<String> frames = Sinks.many().unicast().onBackpressureBuffer();
                        Sinks.Empty<Void> finished = Sinks.empty();
                        Runnable next = () -> {
                            int i = issued.getAndIncrement();
                            if (i < TURNS) {
                                frames.tryEmitNext(turn("w" + c, i));
                            } else {
                                frames.tryEmitComplete();
                                finished.tryEmitEmpty();
                            }
                        };
                        next.run();
                        Mono<Void> answers = in.receive().asString()
                                .filter(f -> f.contains("\"type\":\"turn_completed\"") || f.contains("\"type\":\"error\""))
                                .doOnNext(f -> {
                                    if (f.contains("\"type\":\"error\"") || !f.contains("\"error_count\":0")) {
                                        errors.incrementAndGet();
                                    }
                                    completed.incrementAndGet();
                                    next.run();
                                })
                                .takeUntilOther(finished.asMono())
                                .then();
                        return out.sendString(frames.asFlux()).then().and(answers).then(out.sendClose());
                    }).then(), CLIENTS)
                    .blockLast(Duration.ofSeconds(60));
            assertThat(completed.get()).isEqualTo(TURNS);
            assertThat(errors.get()).isZero();
        }
    }
}
