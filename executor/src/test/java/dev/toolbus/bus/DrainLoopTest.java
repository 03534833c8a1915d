package dev.toolbus.bus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.Exceptions;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import dev.toolbus.spi.BusMessage;

class DrainLoopTest {

    /** A source fed by the test; it records the largest fetch asked for and how many threads were inside. */
    static final class QueueSource implements BusSource {
        final ConcurrentLinkedQueue<BusMessage> ready = new ConcurrentLinkedQueue<>();
        final List<Long> requests = new CopyOnWriteArrayList<>();
        final List<BusMessage> released = new CopyOnWriteArrayList<>();
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger mostInside = new AtomicInteger();
        volatile boolean ended;
        volatile boolean started;
        volatile boolean cancelled;

        @Override
        public BusMessage poll() {
            int now = inside.incrementAndGet();
            mostInside.accumulateAndGet(now, Math::max);
            try {
                return ready.poll();
            } finally {
                inside.decrementAndGet();
            }
        }

        @Override
        public boolean finished() {
            return ended && ready.isEmpty();
        }

        @Override
        public void request(long demand) {
            requests.add(demand);
        }

        @Override
        public void release(BusMessage message, Throwable error) {
            released.add(message);
        }

        @Override
        public void started() {
            started = true;
        }

        @Override
        public void cancelled() {
            cancelled = true;
            ended = true;
        }
    }

    record Msg(int n) implements BusMessage {
        @Override
        public byte[] payload() {
            return Integer.toString(n).getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public Mono<Void> ack() {
            return Mono.empty();
        }

        @Override
        public Mono<Void> deadLetter(String reason) {
            return Mono.empty();
        }
    }

    private static void fill(QueueSource source, int from, int to) {
        for (int i = from; i < to; i++) {
            source.ready.add(new Msg(i));
        }
    }

    @Test
    void handsOverNoMoreThanRequested_andAsksTheSourceToFetchWhatDemandIsLeft() {
        QueueSource source = new QueueSource();
        fill(source, 0, 10);
        DrainLoop loop = new DrainLoop("test bus", source);
        StepVerifier.create(loop.flux(), 3)
                .expectNext(new Msg(0), new Msg(1), new Msg(2))
                .then(() -> assertThat(source.ready).hasSize(7))
                .thenRequest(9)
                .expectNextCount(7)
                .then(() -> assertThat(source.requests).last().isEqualTo(2L))
                .then(() -> {
                    fill(source, 10, 12);
                    loop.drain();
                })
                .expectNext(new Msg(10), new Msg(11))
                .then(() -> {
                    source.ended = true;
                    loop.drain();
                })
                .verifyComplete();
        assertThat(source.started).isTrue();
        assertThat(loop.isDone()).isTrue();
    }

    @Test
    void aFinishedSourceCompletesEvenWithoutDemand_andIsNotAskedToFetch() {
        QueueSource source = new QueueSource();
        source.ended = true;
        StepVerifier.create(new DrainLoop("test bus", source).flux(), 0).verifyComplete();
        assertThat(source.requests).isEmpty();
    }

    @Test
    void aSecondSubscriberIsRefused_andCancellingStopsTheSource() {
        QueueSource source = new QueueSource();
        DrainLoop loop = new DrainLoop("test bus", source);
        StepVerifier.create(loop.flux(), 1)
                .then(() -> StepVerifier.create(loop.flux())
                        .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(IllegalStateException.class)
                                .hasMessage("receive() of test bus can be subscribed once"))
                        .verify(Duration.ofSeconds(5)))
                .thenCancel()
                .verify(Duration.ofSeconds(5));
        assertThat(source.cancelled).isTrue();
    }

    @Test
    void failFromAnotherThread_endsTheFluxWithThatError_andLaterDrainsDoNothing() {
        QueueSource source = new QueueSource();
        DrainLoop loop = new DrainLoop("test bus", source);
        IllegalStateException dead = new IllegalStateException("poll thread died");
        StepVerifier.create(loop.flux(), 5)
                .then(() -> loop.fail(dead))
                .expectErrorSatisfies(e -> assertThat(e).isSameAs(dead))
                .verify(Duration.ofSeconds(5));
        fill(source, 0, 1);
        loop.drain();
        assertThat(source.ready).hasSize(1);
        assertThat(loop.isDone()).isTrue();
    }

    @Test
    void aSourceThatThrows_failsTheFlux_insteadOfWedgingTheLoop() {
        AtomicInteger polls = new AtomicInteger();
        BusSource broken = new BusSource() {
            @Override
            public BusMessage poll() {
                polls.incrementAndGet();
                throw new IllegalStateException("bug in the adapter");
            }

            @Override
            public boolean finished() {
                return false;
            }
        };
        DrainLoop loop = new DrainLoop("test bus", broken);
        StepVerifier.create(loop.flux(), 1)
                .expectErrorMessage("bug in the adapter")
                .verify(Duration.ofSeconds(5));
        loop.drain();
        assertThat(polls).hasValue(1);
    }

    @Test
    void aMessageTheReceiverCouldNotTake_isReleased_andTheFluxFails() {
        QueueSource source = new QueueSource();
        fill(source, 0, 3);
        DrainLoop loop = new DrainLoop("test bus", source);
        List<BusMessage> got = new ArrayList<>();
        List<Throwable> errors = new ArrayList<>();
        BaseSubscriber<BusMessage> receiver = new BaseSubscriber<>() {
            @Override
            protected void hookOnNext(BusMessage m) {
                if (((Msg) m).n() == 1) {
                    // a failure that Reactor lets bubble up to the producer instead of routing it to onError
                    throw Exceptions.bubble(new IllegalStateException("receiver broke"));
                }
                got.add(m);
            }

            @Override
            protected void hookOnError(Throwable t) {
                errors.add(t);
            }
        };
        assertThatThrownBy(() -> loop.flux().subscribe(receiver)).satisfies(t -> assertThat(Exceptions.unwrap(t))
                .hasMessage("receiver broke"));
        assertThat(got).containsExactly(new Msg(0));
        assertThat(source.released).containsExactly(new Msg(1));
        assertThat(loop.isDone()).isTrue();
        assertThat(source.ready).containsExactly(new Msg(2)); // never taken
    }

    @Test
    void drainsCalledFromManyThreads_runOnOneThreadAtATime_andLoseNothing() throws Exception {
        QueueSource source = new QueueSource();
        DrainLoop loop = new DrainLoop("test bus", source);
        List<BusMessage> got = new CopyOnWriteArrayList<>();
        loop.flux().subscribe(got::add);
        int threads = 4;
        int each = 2_000;
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> feeders = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int base = t * each;
            Thread feeder = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = base; i < base + each; i++) {
                    source.ready.add(new Msg(i));
                    loop.drain();
                }
            });
            feeder.start();
            feeders.add(feeder);
        }
        go.countDown();
        for (Thread feeder : feeders) {
            feeder.join(30_000);
        }
        loop.drain();
        assertThat(got).hasSize(threads * each).doesNotHaveDuplicates();
        assertThat(source.mostInside).hasValue(1);
    }
}
