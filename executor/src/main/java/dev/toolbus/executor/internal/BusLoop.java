package dev.toolbus.executor.internal;

import dev.toolbus.executor.state.TurnStateStep;
import dev.toolbus.protocol.ErrorEvent;
import dev.toolbus.protocol.ControlEvent;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.EventDecodeException;
import dev.toolbus.protocol.InboundEvent;
import dev.toolbus.protocol.ListSkillsEvent;
import dev.toolbus.protocol.ListToolsEvent;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.spi.BusMessage;
import dev.toolbus.spi.ToolBus;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.reactivestreams.Subscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * Runs an executor on a bus: decode, run, publish the turn's events in order, then acknowledge. Control
 * events act at once through {@link ToolExecutor#control}; an answer to an id nobody waits for is
 * answered with an {@code UNKNOWN_REQUEST} error event. At
 * most {@code maxInflightTurns} turns (and {@code list_tools}) run at once; messages are decoded as they
 * arrive, so control events never wait behind turns at that limit: while it is reached, the loop keeps
 * taking messages until another {@code maxInflightTurns} turns (at least {@link #MIN_WAITING_TURNS};
 * at most {@link #MAX_WAITING_BYTES} of them) wait for a slot, and at most {@link #MAX_CONTROL} control events (and bad messages) are handled at once.
 * Demand is the bus's backpressure beyond those bounds (a control event behind more waiting turns than
 * that is read when a turn ends).
 * Nothing is dropped: undecodable input is answered on its stream or dead-lettered; a failed publish
 * leaves the message unacknowledged so the bus delivers it again.
 */
final class BusLoop {

    private static final Logger log = LoggerFactory.getLogger(BusLoop.class);

    private final Engine executor;
    private final ToolBus bus;
    private final EventCodec codec;
    private final int maxInflightTurns;
    private final int maxWaiting;
    private final TurnStateStep.OnBus turns;

    BusLoop(Engine executor, ToolBus bus, EventCodec codec, int maxInflightTurns) {
        this.executor = executor;
        this.bus = bus;
        this.codec = codec;
        this.maxInflightTurns = maxInflightTurns;
        this.maxWaiting = Math.max(maxInflightTurns, MIN_WAITING_TURNS);
        this.turns = executor.turnStateStep().onBus(bus.turnState(), bus.principal());
    }

    /** Turns taken from the bus that wait for a slot, at most: this many, or {@code maxInflightTurns} if more. */
    static final int MIN_WAITING_TURNS = 64;
    /** Their payload bytes, at most (the bound applies to taking more; one message may pass it). */
    static final long MAX_WAITING_BYTES = 16L * 1024 * 1024;
    /** Control events and undecodable messages being handled at once, at most. */
    static final int MAX_CONTROL = 256;

    Mono<Void> run() {
        return Mono.create(sink -> {
            Loop loop = new Loop(sink);
            // the bus's own answers (its requests facet) reach the calls waiting here
            Disposable answers = turns.state().requests() == executor.turnState().requests() ? null
                    : executor.listen(turns.state());
            sink.onDispose(() -> {
                loop.stop();
                if (answers != null) {
                    answers.dispose();
                }
            });
            bus.receive().subscribe(loop);
        });
    }

    /** A decoded message that counts against {@code maxInflightTurns}. */
    private record Job(BusMessage msg, InboundEvent event, long bytes) {
    }

    /**
     * Takes messages with demand, runs control events at once and turns up to the limit. Counters are
     * guarded by the monitor; nothing else (requests, turns, publishes) runs under it.
     */
    private final class Loop extends BaseSubscriber<BusMessage> {
        private final MonoSink<Void> sink;
        private final ArrayDeque<Job> waiting = new ArrayDeque<>();
        private final AtomicInteger starting = new AtomicInteger();
        private final Disposable.Composite inner = Disposables.composite();
        private long waitingBytes;
        private int running;
        private int controls;
        private long outstanding;
        private boolean upstreamDone;

        Loop(MonoSink<Void> sink) {
            this.sink = sink;
        }

        @Override
        protected void hookOnSubscribe(Subscription s) {
            demand();
        }

        @Override
        protected void hookOnNext(BusMessage msg) {
            InboundEvent event;
            Mono<Void> now = null;
            try {
                event = codec.decode(msg.payload());
            } catch (EventDecodeException e) {
                log.warn("bad event {}: {}", msg.id(), e.getMessage());
                event = null;
                now = e.streamId() != null ? bus.publish(List.of(e.toErrorEvent())) : msg.deadLetter(e.getMessage());
            } catch (RuntimeException e) {
                log.error("cannot decode message {}", msg.id(), e);
                event = null;
                now = msg.deadLetter("cannot decode: " + e);
            }
            if (event instanceof ControlEvent c) {
                // acts at once, whatever the stream's lane is doing and however many turns are in flight
                now = executor.control(c, turns.principal(), turns.state()).flatMap(o -> {
                    ErrorEvent error = executor.controlError(c, o);
                    return error == null ? Mono.<Void>empty() : bus.publish(List.of(error));
                });
            }
            if (now != null) {
                synchronized (this) {
                    outstanding = Math.max(0, outstanding - 1);
                    controls++;
                }
                track(settle(msg, now), this::controlDone);
                demand();
                return;
            }
            long bytes = msg.payload().length;
            synchronized (this) {
                outstanding = Math.max(0, outstanding - 1);
                waiting.add(new Job(msg, event, bytes));
                waitingBytes += bytes;
            }
            startTurns();
        }

        @Override
        protected void hookOnComplete() {
            synchronized (this) {
                upstreamDone = true;
            }
            checkDone();
        }

        @Override
        protected void hookOnError(Throwable t) {
            sink.error(t);
        }

        /** Starts waiting turns while fewer than the limit run; one thread at a time, in arrival order. */
        private void startTurns() {
            if (starting.getAndIncrement() != 0) {
                return;
            }
            do {
                for (;;) {
                    Job j;
                    synchronized (this) {
                        if (running >= maxInflightTurns || waiting.isEmpty()) {
                            break;
                        }
                        j = waiting.poll();
                        waitingBytes -= j.bytes;
                        running++;
                    }
                    track(handle(j), this::turnDone);
                }
            } while (starting.decrementAndGet() != 0);
            demand();
        }

        /** Requests more while below every bound (batched: when a quarter of the room is free, or none is asked). */
        private void demand() {
            long n;
            synchronized (this) {
                if (upstreamDone) {
                    return;
                }
                long turnRoom = waitingBytes >= MAX_WAITING_BYTES
                        ? Math.max(0, maxInflightTurns - running - waiting.size())
                        : (long) maxInflightTurns + maxWaiting - running - waiting.size();
                long room = Math.min(turnRoom, MAX_CONTROL - controls) - outstanding;
                if (room <= 0 || (outstanding > 0 && room < Math.max(1, Math.min(maxInflightTurns, MAX_CONTROL) / 4))) {
                    return;
                }
                n = room;
                outstanding += n;
            }
            request(n);
        }

        private void turnDone() {
            synchronized (this) {
                running--;
            }
            startTurns();
            checkDone();
        }

        private void controlDone() {
            synchronized (this) {
                controls--;
            }
            demand();
            checkDone();
        }

        private void checkDone() {
            synchronized (this) {
                if (!upstreamDone || running > 0 || controls > 0 || !waiting.isEmpty()) {
                    return;
                }
            }
            sink.success();
        }

        /** Subscribes to one message's work; disposed with the loop. */
        private void track(Mono<Void> work, Runnable onDone) {
            Disposable.Swap slot = Disposables.swap();
            inner.add(slot);
            slot.update(work.doFinally(s -> {
                inner.remove(slot);
                onDone.run();
            }).subscribe());
        }

        void stop() {
            cancel();
            inner.dispose();
        }
    }

    /** A turn, a {@code list_tools} or a {@code list_skills}, run under the limit. */
    private Mono<Void> handle(Job j) {
        if (j.event instanceof ListToolsEvent l) {
            return settle(j.msg, executor.answerListTools(l).flatMap(tools -> bus.publish(List.of(tools))));
        }
        if (j.event instanceof ListSkillsEvent s) {
            return settle(j.msg, executor.answerSkillsOrError(s).flatMap(answer -> bus.publish(List.of(answer))));
        }
        ToolCallsEvent turn = (ToolCallsEvent) j.event;
        return settle(j.msg, turns.run(turn, bus::publish, p -> executor.runForBus(turn, turns.principal(), turns.state(), p)));
    }

    private Mono<Void> settle(BusMessage msg, Mono<Void> answer) {
        return answer
                .then(Mono.defer(msg::ack))
                .onErrorResume(e -> {
                    log.error("message {} not acknowledged (it will be delivered again): {}", msg.id(), e.toString());
                    return Mono.empty();
                });
    }
}
