package dev.toolbus.assembly.stdio;

import dev.toolbus.spi.BusMessage;
import dev.toolbus.protocol.EventIdPeek;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.ToolBus;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorEvent;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.OutboundEvent;
import java.io.BufferedWriter;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A {@link ToolBus} over a pair of byte streams carrying JSON lines: input events on one (stdin),
 * output events on the other (stdout), one event per line, each line flushed.
 *
 * <p>Input is read on a dedicated thread, one line per unit of demand, so a slow executor slows the
 * reading instead of filling memory. A line is at most the codec's
 * {@link EventCodec#maxEventBytes() max event bytes}: a longer one is skipped to its end without
 * being held whole and answered with a {@code BAD_EVENT} {@code error} event (on its stream when its
 * first bytes name one). Blank lines are ignored. Output is written by one dedicated thread, so lines
 * never interleave and no Reactor thread waits on a full pipe.
 *
 * <p>A write that fails (the reader of the output went away: {@code EPIPE}) breaks the bus for good:
 * {@link #outputFailure()} completes with the error, every later publish fails at once, and reading
 * stops at the next line. {@code serve} then stops and exits 1.
 *
 * <pre>{@code
 * StdioBus bus = StdioBus.system(EventCodec.defaults());
 * executor.run(bus).then(bus.closeGracefully()).block();
 * }</pre>
 */
public final class StdioBus implements ToolBus {

    private static final Logger log = LoggerFactory.getLogger(StdioBus.class);

    private final InputStream in;
    private final BufferedWriter out;
    private final EventCodec codec;
    private final ExecutorService readerThread;
    private final Sinks.One<Boolean> inputEnd = Sinks.one();
    private volatile boolean inputEnded;
    private final Scheduler reader;
    private final ExecutorService writerThread;
    private final Scheduler writer;
    private final AtomicBoolean subscribed = new AtomicBoolean();
    private final Sinks.One<IOException> outputFailed = Sinks.one();
    private volatile IOException broken;
    private volatile boolean closed;

    private StdioBus(InputStream in, OutputStream out, EventCodec codec) {
        this.in = Objects.requireNonNull(in, "in");
        this.out = new BufferedWriter(new OutputStreamWriter(Objects.requireNonNull(out, "out"),
                StandardCharsets.UTF_8));
        this.codec = Objects.requireNonNull(codec, "codec");
        this.readerThread = Executors.newSingleThreadExecutor(daemon("toolbus-stdin"));
        this.reader = Schedulers.fromExecutorService(readerThread, "toolbus-stdin");
        this.writerThread = Executors.newSingleThreadExecutor(daemon("toolbus-stdout"));
        this.writer = Schedulers.fromExecutorService(writerThread, "toolbus-stdout");
    }

    /**
     * A bus over the given streams. The streams are not closed by the bus.
     *
     * @param in input events, JSON lines
     * @param out output events, JSON lines (UTF-8)
     * @param codec bounds the line length and encodes output events
     */
    public static StdioBus create(InputStream in, OutputStream out, EventCodec codec) {
        return new StdioBus(in, out, codec);
    }

    /**
     * A bus over this process's stdin and stdout. Output goes straight to file descriptor 1, not
     * through {@code System.out}, whose {@code PrintStream} swallows write errors: a closed pipe must be
     * noticed.
     */
    public static StdioBus system(EventCodec codec) {
        return new StdioBus(System.in, new FileOutputStream(FileDescriptor.out), codec);
    }

    /**
     * Completes with the write error when the output breaks (its reader closed it); never completes
     * while the output works.
     */
    public Mono<IOException> outputFailure() {
        return outputFailed.asMono();
    }

    /**
     * Ends the input as its end of file would, while the stream itself stays open (a SIGTERM with
     * stdin still open): {@link #receive()} completes, so a run over this bus finishes the turns it
     * has and publishes their events, then completes. The reader thread blocked on the stream is
     * left to {@link #closeGracefully()}.
     */
    public void endInput() {
        inputEnded = true;
        inputEnd.tryEmitValue(Boolean.TRUE);
    }

    /**
     * The input lines as messages, one line read per unit of demand on the reader thread. Completes
     * at end of input or at {@link #endInput()}. May be subscribed once.
     */
    @Override
    public Flux<BusMessage> receive() {
        if (!subscribed.compareAndSet(false, true)) {
            return Flux.error(new IllegalStateException("a StdioBus can be received from only once"));
        }
        BoundedLineReader lines = new BoundedLineReader(in, codec.maxEventBytes());
        long[] lineNumber = {0};
        return Flux.<BusMessage>generate(sink -> {
            try {
                while (!closed && broken == null) {
                    BoundedLineReader.Line line = lines.next();
                    if (line == null) {
                        break;
                    }
                    lineNumber[0]++;
                    if (line.overlong()) {
                        rejectOverlong(line, lineNumber[0]);
                    } else if (!isBlank(line.bytes())) {
                        sink.next(new StdioMessage(line.bytes(), lineNumber[0], this));
                        return;
                    }
                }
                log.debug("input ended after {} lines", lineNumber[0]);
                sink.complete();
            } catch (IOException e) {
                sink.error(new UncheckedIOException("reading input events failed", e));
            }
        }).subscribeOn(reader)
                // a read broken by the cancel of an ended input (an interrupted reader) is that end, not a failure
                .onErrorResume(e -> inputEnded ? Mono.empty() : Mono.error(e))
                .takeUntilOther(inputEnd.asMono());
    }

    /** Writes the events as lines, in order and together, flushing each line. */
    @Override
    public Mono<Void> publish(List<OutboundEvent> events) {
        List<OutboundEvent> batch = List.copyOf(events);
        // straight on the writer's executor, not subscribeOn: a Mono subscribed on a disposed scheduler
        // never terminates, and the turn waiting for it would never free its stream
        return Mono.create(sink -> {
            try {
                writerThread.execute(() -> {
                    try {
                        write(batch);
                        sink.success();
                    } catch (Throwable t) {
                        sink.error(t);
                    }
                });
            } catch (RejectedExecutionException e) {
                sink.error(new IllegalStateException("the stdio bus is closed", e));
            }
        });
    }

    /** Flushes pending output and stops the reader and writer threads; the streams stay open. */
    /** The process that started toolbus: {@link Principal#stdio()} sends every turn and answer read here. */
    @Override
    public Principal principal() {
        return Principal.stdio();
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.<Void>fromRunnable(this::flushQuietly)
                .subscribeOn(writer)
                .onErrorResume(e -> Mono.empty())
                .then(Mono.fromRunnable(() -> {
                    closed = true;
                    // not shutdownNow: a batch still queued runs (and fails, the bus being closed), so the
                    // turn waiting for it ends; a later publish is rejected with an error
                    writerThread.shutdown();
                    reader.dispose();
                    readerThread.shutdownNow();
                }));
    }

    private void rejectOverlong(BoundedLineReader.Line line, long lineNumber) {
        EventIdPeek ids = EventIdPeek.of(line.bytes());
        String message = "event of " + line.length() + " bytes on input line " + lineNumber + " is above the "
                + codec.maxEventBytes() + "-byte limit; skipped";
        log.warn("{}", message);
        ErrorEvent error = new ErrorEvent(ids.streamId(), ids.turnId(), ErrorCode.BAD_EVENT, message);
        publish(List.of(error)).subscribe(null, e -> log.error("cannot write error event", e));
    }

    private void write(List<OutboundEvent> events) {
        if (closed) {
            throw new IllegalStateException("the stdio bus is closed");
        }
        IOException failed = broken;
        if (failed != null) {
            throw new UncheckedIOException("the output is broken", failed);
        }
        try {
            // one encoded line at a time: a large answer is never held twice (events and all their lines)
            for (OutboundEvent event : events) {
                out.write(codec.encode(event));
                out.write('\n');
                out.flush();
            }
        } catch (IOException e) {
            if (broken == null) {
                broken = e;
                log.error("writing to the output failed ({}); no more events can be delivered", e.toString());
                outputFailed.tryEmitValue(e);
            }
            throw new UncheckedIOException("writing output events failed", e);
        }
    }

    private void flushQuietly() {
        try {
            out.flush();
        } catch (IOException e) {
            log.warn("flushing output failed: {}", e.toString());
        }
    }

    private static boolean isBlank(byte[] bytes) {
        for (byte b : bytes) {
            if (b != ' ' && b != '\t' && b != '\r') {
                return false;
            }
        }
        return true;
    }

    private static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }
}
