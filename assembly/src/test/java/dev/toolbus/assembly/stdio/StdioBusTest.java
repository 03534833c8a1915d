package dev.toolbus.assembly.stdio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorEvent;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import dev.toolbus.spi.BusMessage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

class StdioBusTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private StdioBus bus;

    @AfterEach
    void close() {
        if (bus != null) {
            bus.closeGracefully().block(WAIT);
        }
    }

    private StdioBus bus(String input) {
        return bus(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), EventCodec.defaults());
    }

    private StdioBus bus(InputStream in, EventCodec codec) {
        bus = StdioBus.create(in, out, codec);
        return bus;
    }

    private List<String> outputLines() {
        synchronized (out) {
            String s = out.toString(StandardCharsets.UTF_8);
            return s.isEmpty() ? List.of() : List.of(s.split("\n", -1)).subList(0, s.split("\n", -1).length - 1);
        }
    }

    private static String payload(BusMessage m) {
        return new String(m.payload(), StandardCharsets.UTF_8);
    }

    private static TurnCompletedEvent done(String stream, String turn) {
        return new TurnCompletedEvent(stream, turn, List.of("call_1"), 0, 1);
    }

    @Test
    void receive_emitsOneMessagePerNonBlankLineThenCompletes() {
        StepVerifier.create(bus("{\"a\":1}\r\n\n   \n{\"b\":2}").receive().map(StdioBusTest::payload))
                .expectNext("{\"a\":1}", "{\"b\":2}")
                .expectComplete()
                .verify(WAIT);
    }

    @Test
    void receive_readsOnlyWhatIsRequested_fromEndlessInput() {
        AtomicInteger linesServed = new AtomicInteger();
        byte[] line = "{\"type\":\"tool_call\"}\n".getBytes(StandardCharsets.UTF_8);
        InputStream endless = new InputStream() {
            int i;

            @Override
            public int read() {
                if (i == 0) {
                    linesServed.incrementAndGet();
                }
                byte b = line[i];
                i = (i + 1) % line.length;
                return b;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                b[off] = (byte) read();
                return 1;
            }
        };

        StepVerifier.create(bus(endless, EventCodec.defaults()).receive(), 3)
                .expectNextCount(3)
                .expectNoEvent(Duration.ofMillis(100))
                .thenCancel()
                .verify(WAIT);
        // the reader stays one line ahead at most: demand, not the input, paces it
        assertThat(linesServed.get()).isBetween(3, 4);
    }

    @Test
    void receive_readsOnItsOwnThread() {
        AtomicReference<String> thread = new AtomicReference<>();

        bus("{}\n").receive().doOnNext(m -> thread.set(Thread.currentThread().getName())).blockLast(WAIT);

        assertThat(thread.get()).isEqualTo("toolbus-stdin");
    }

    @Test
    void receive_overlongLine_isAnsweredWithBadEventOnItsStreamAndSkipped() {
        String big = "{\"type\":\"tool_calls\",\"stream_id\":\"s1\",\"turn_id\":\"t1\",\"calls\":[{\"name\":\"echo\","
                + "\"arguments\":{\"text\":\"" + "x".repeat(5000) + "\"}}]}";
        EventCodec codec = EventCodec.create(1024, () -> "t");
        StdioBus b = bus(new ByteArrayInputStream((big + "\n{\"ok\":true}\n").getBytes(StandardCharsets.UTF_8)),
                codec);

        StepVerifier.create(b.receive().map(StdioBusTest::payload))
                .expectNext("{\"ok\":true}")
                .expectComplete()
                .verify(WAIT);

        await().atMost(WAIT).until(() -> outputLines().size() == 1);
        ErrorEvent error = (ErrorEvent) codec.decodeOutbound(outputLines().get(0));
        assertThat(error.code()).isEqualTo(ErrorCode.BAD_EVENT);
        assertThat(error.streamId()).isEqualTo("s1");
        assertThat(error.turnId()).isEqualTo("t1");
        assertThat(error.message()).contains(big.length() + " bytes", "1024-byte limit");
    }

    @Test
    void receive_overlongLineWithoutStreamId_isAnsweredWithoutStreamId() {
        EventCodec codec = EventCodec.create(1024, () -> "t");
        StdioBus b = bus(new ByteArrayInputStream(("[" + "1,".repeat(2000) + "1]\n").getBytes(StandardCharsets.UTF_8)),
                codec);

        b.receive().blockLast(WAIT);

        await().atMost(WAIT).until(() -> outputLines().size() == 1);
        assertThat(outputLines().get(0)).startsWith("{\"type\":\"error\"").doesNotContain("stream_id")
                .contains("\"code\":\"BAD_EVENT\"");
    }

    @Test
    void receive_secondSubscription_fails() {
        StdioBus b = bus("");
        b.receive().blockLast(WAIT);

        StepVerifier.create(b.receive()).expectError(IllegalStateException.class).verify(WAIT);
    }

    @Test
    void publish_writesEachEventAsOneLineInOrder_andFlushesEachLine() {
        AtomicInteger flushes = new AtomicInteger();
        OutputStream counting = new OutputStream() {
            @Override
            public void write(int b) {
                out.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                out.write(b, off, len);
            }

            @Override
            public void flush() {
                flushes.incrementAndGet();
            }
        };
        bus = StdioBus.create(new ByteArrayInputStream(new byte[0]), counting, EventCodec.defaults());

        bus.publish(List.of(done("s", "t1"), done("s", "t2"))).block(WAIT);

        assertThat(outputLines()).hasSize(2);
        assertThat(outputLines().get(0)).contains("\"turn_id\":\"t1\"");
        assertThat(outputLines().get(1)).contains("\"turn_id\":\"t2\"");
        assertThat(flushes.get()).isEqualTo(2);
    }

    @Test
    void publish_concurrentBatches_neverInterleave() {
        StdioBus b = bus("");
        List<Mono<Void>> writes = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            String turn = "turn-" + i;
            List<OutboundEvent> batch = List.of(done("s" + i, turn), done("s" + i, turn), done("s" + i, turn));
            writes.add(Mono.defer(() -> b.publish(batch)).subscribeOn(Schedulers.parallel()));
        }

        Flux.merge(writes).blockLast(WAIT);

        List<String> lines = outputLines();
        assertThat(lines).hasSize(600);
        for (int i = 0; i < 600; i += 3) {
            String turn = lines.get(i).replaceAll(".*\"turn_id\":\"([^\"]+)\".*", "$1");
            assertThat(lines.subList(i, i + 3)).allMatch(l -> l.contains("\"turn_id\":\"" + turn + "\""));
        }
        assertThat(IntStream.range(0, 600).mapToObj(lines::get).distinct()).hasSize(200);
    }

    @Test
    void publish_writesOnTheWriterThread_notTheCaller() {
        StdioBus b = bus("");
        List<String> threads = Collections.synchronizedList(new ArrayList<>());

        b.publish(List.of(done("s", "t"))).doOnSuccess(v -> threads.add(Thread.currentThread().getName()))
                .block(WAIT);

        assertThat(threads).containsExactly("toolbus-stdout");
    }

    @Test
    void deadLetter_writesAnErrorEventWithoutStream() {
        StdioBus b = bus("garbage\n");
        BusMessage m = b.receive().blockFirst(WAIT);

        m.deadLetter("malformed JSON: Unrecognized token 'garbage'").then(m.ack()).block(WAIT);

        assertThat(outputLines()).singleElement().satisfies(line -> assertThat(line)
                .isEqualTo("{\"type\":\"error\",\"code\":\"BAD_EVENT\","
                        + "\"message\":\"malformed JSON: Unrecognized token 'garbage'\"}"));
        assertThat(m.id()).isEqualTo("stdin:1");
    }

    @Test
    void closeGracefully_flushesPendingWritesThenRefusesMore() {
        StdioBus b = bus("");
        b.publish(List.of(done("s", "t"))).subscribe();

        b.closeGracefully().block(WAIT);

        assertThat(outputLines()).hasSize(1);
        StepVerifier.create(b.publish(List.of(done("s", "t2")))).expectError().verify(WAIT);
        bus = null;
    }
}
