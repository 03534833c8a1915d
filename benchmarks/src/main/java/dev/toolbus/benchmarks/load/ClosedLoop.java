package dev.toolbus.benchmarks.load;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One phase of load as bot cores make it: every stream is a conversation with one turn in flight; the
 * next turn of a stream is published when the previous one's {@code turn_completed} arrives. So the
 * offered concurrency is the number of streams, and latency is not inflated by a backlog the harness
 * created itself. The latency of a turn runs from just before its publish to the moment its
 * {@code turn_completed} is read back.
 */
final class ClosedLoop {

    /** Sends one inbound event of a stream to the broker, without waiting. */
    @FunctionalInterface
    interface Publisher {
        void publish(String streamId, byte[] event);
    }

    private final String tag;
    private final int streams;
    private final int turnsPerStream;
    private final Publisher publisher;
    private final Object[] locks;
    private final int[] next;
    private final long[] sentAt;
    private final long[] latencies;
    private final AtomicInteger completed = new AtomicInteger();
    private final AtomicLong goodResults = new AtomicLong();
    private final AtomicLong badResults = new AtomicLong();
    private final AtomicLong repeats = new AtomicLong();
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile long startNanos;
    private volatile long endNanos;

    ClosedLoop(String tag, int streams, int turnsPerStream, Publisher publisher) {
        if (tag.contains(".")) {
            throw new IllegalArgumentException("tag must not contain '.': " + tag);
        }
        this.tag = tag;
        this.streams = streams;
        this.turnsPerStream = turnsPerStream;
        this.publisher = publisher;
        this.locks = new Object[streams];
        for (int i = 0; i < streams; i++) {
            locks[i] = new Object();
        }
        this.next = new int[streams];
        this.sentAt = new long[streams];
        this.latencies = new long[streams * turnsPerStream];
    }

    int total() {
        return latencies.length;
    }

    /** Publishes the first turn of every stream. */
    void start() {
        startNanos = System.nanoTime();
        for (int s = 0; s < streams; s++) {
            synchronized (locks[s]) {
                send(s, 0);
            }
        }
    }

    private void send(int stream, int turn) {
        String streamId = EchoEvents.streamId(stream);
        byte[] event = EchoEvents.turn(streamId, EchoEvents.turnId(tag, stream, turn));
        sentAt[stream] = System.nanoTime();
        publisher.publish(streamId, event);
    }

    /** Takes one output event read from the broker (any phase: others' are ignored). */
    void onEvent(JsonNode event) {
        String turnId = event.path("turn_id").asText("");
        int a = turnId.indexOf('.');
        int b = turnId.lastIndexOf('.');
        if (a <= 0 || b <= a || !turnId.regionMatches(0, tag, 0, a) || a != tag.length()) {
            return;
        }
        int stream;
        int turn;
        try {
            stream = Integer.parseInt(turnId, a + 1, b, 10);
            turn = Integer.parseInt(turnId, b + 1, turnId.length(), 10);
        } catch (NumberFormatException e) {
            return;
        }
        if (stream < 0 || stream >= streams) {
            return;
        }
        String type = event.path("type").asText();
        if ("tool_result".equals(type)) {
            if (!event.path("is_error").asBoolean() && (EchoEvents.TEXT.equals(event.path("content").asText())
                    || !"echo".equals(EchoEvents.tool))) {
                goodResults.incrementAndGet();
            } else {
                badResults.incrementAndGet();
            }
        } else if ("turn_completed".equals(type)) {
            completed(stream, turn);
        }
    }

    private void completed(int stream, int turn) {
        long now = System.nanoTime();
        synchronized (locks[stream]) {
            if (turn != next[stream]) {
                repeats.incrementAndGet(); // a turn seen twice (at-least-once), or out of order
                return;
            }
            latencies[stream * turnsPerStream + turn] = now - sentAt[stream];
            next[stream] = turn + 1;
            if (turn + 1 < turnsPerStream) {
                send(stream, turn + 1);
            }
        }
        if (completed.incrementAndGet() == latencies.length) {
            endNanos = now;
            finished.countDown();
        }
    }

    boolean await(long timeout, TimeUnit unit) throws InterruptedException {
        return finished.await(timeout, unit);
    }

    int completed() {
        return completed.get();
    }

    /** The turn ids still awaited (at most {@code max}), for a report on a phase that stalled. */
    String stuck(int max) {
        StringBuilder sb = new StringBuilder();
        int n = 0;
        for (int s = 0; s < streams && n < max; s++) {
            synchronized (locks[s]) {
                if (next[s] < turnsPerStream) {
                    sb.append(n++ == 0 ? "" : ", ").append(EchoEvents.turnId(tag, s, next[s]));
                }
            }
        }
        return sb + " (results " + goodResults.get() + " good, " + badResults.get() + " bad, repeats " + repeats.get() + ")";
    }

    /** The phase's figures; call after {@link #await} returned true. */
    Stats stats() {
        long[] sorted = latencies.clone();
        Arrays.sort(sorted);
        double seconds = (endNanos - startNanos) / 1e9;
        return new Stats(sorted.length, seconds, sorted.length / seconds, pct(sorted, 0.50), pct(sorted, 0.99),
                sorted[sorted.length - 1] / 1e6, goodResults.get(), badResults.get(), repeats.get());
    }

    private static double pct(long[] sorted, double q) {
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
    }

    /** Figures of one phase: times in milliseconds. */
    record Stats(int turns, double seconds, double callsPerSecond, double p50Ms, double p99Ms, double maxMs,
                 long goodResults, long badResults, long repeats) {
    }
}
