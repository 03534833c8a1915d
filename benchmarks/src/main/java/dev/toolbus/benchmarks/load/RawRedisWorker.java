package dev.toolbus.benchmarks.load;

import io.lettuce.core.Consumer;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisBusyException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAddArgs;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The Redis ceiling: what a hand-written consumer does with Lettuce alone and no toolbus. One loop:
 * {@code XREADGROUP COUNT 128} (the adapter's batch) on a blocking connection; per entry decode the
 * turn, run echo and XADD the {@code tool_result} and {@code turn_completed} to the conversation's
 * results stream ({@code MAXLEN ~ 10000}, the adapter's default), then one {@code XACK} of the whole
 * batch, all pipelined on a second connection without waiting: Redis runs one connection's commands in
 * order, so the XACK runs after the batch's XADDs, and the loop reads the next batch while they are on
 * the wire. Their answers are checked one batch later (at most two batches unanswered; an error stops
 * the loop). Same at-least-once discipline as the adapter (the ack follows the results), without its
 * finished-turn marker, running-turn claim, lease renewal, per-stream ordering or executor. Args: redis
 * URI, group, consumer name.
 */
public final class RawRedisWorker {

    static final int BATCH = 128;

    private RawRedisWorker() {
    }

    public static void main(String[] args) throws Exception {
        String uri = args[0];
        String group = args[1];
        Consumer<String> me = Consumer.from(group, args[2]);
        RedisClient client = RedisClient.create(uri);
        StatefulRedisConnection<String, byte[]> readConnection = client.connect(RedisBroker.CODEC);
        StatefulRedisConnection<String, byte[]> writeConnection = client.connect(RedisBroker.CODEC);
        RedisCommands<String, byte[]> reads = readConnection.sync();
        RedisAsyncCommands<String, byte[]> writes = writeConnection.async();
        try {
            reads.xgroupCreate(XReadArgs.StreamOffset.from(RedisBroker.CALLS, "0"), group,
                    XGroupCreateArgs.Builder.mkstream());
        } catch (RedisBusyException exists) {
            // another instance made it
        }
        // this consumer's own pending entries first, as the adapter does; a non-blocking read also makes
        // the consumer known to the group at once (a blocked XREADGROUP does not, on Redis 7.0)
        List<StreamMessage<String, byte[]>> leftover = reads.xreadgroup(me, XReadArgs.Builder.count(BATCH),
                XReadArgs.StreamOffset.from(RedisBroker.CALLS, "0"));
        XAddArgs trim = XAddArgs.Builder.maxlen(10_000).approximateTrimming();
        XReadArgs read = XReadArgs.Builder.count(BATCH).block(Duration.ofMillis(500));
        Stopper stop = new Stopper();
        Runtime.getRuntime().addShutdownHook(stop);
        System.out.println("READY " + args[2]);
        System.out.flush();
        long turns = 0;
        List<RedisFuture<?>> unanswered = List.of();
        while (!stop.requested) {
            List<StreamMessage<String, byte[]>> batch = !leftover.isEmpty() ? leftover
                    : reads.xreadgroup(me, read, XReadArgs.StreamOffset.lastConsumed(RedisBroker.CALLS));
            leftover = List.of();
            if (batch.isEmpty()) {
                continue;
            }
            List<RedisFuture<?>> written = new ArrayList<>(batch.size() * 2 + 1);
            String[] ids = new String[batch.size()];
            for (int i = 0; i < batch.size(); i++) {
                StreamMessage<String, byte[]> m = batch.get(i);
                ids[i] = m.getId();
                EchoEvents.Answer answer = EchoEvents.answer(m.getBody().get("event"));
                String key = RedisBroker.RESULTS_PREFIX + answer.streamId();
                for (byte[] event : answer.events()) {
                    written.add(writes.xadd(key, trim, Map.of("event", event)));
                }
            }
            written.add(writes.xack(RedisBroker.CALLS, group, ids));
            awaitAnswered(unanswered); // the previous batch's, long answered in practice
            unanswered = written;
            turns += batch.size();
        }
        awaitAnswered(unanswered);
        System.out.println("STOPPED after " + turns + " turns");
        readConnection.close();
        writeConnection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        stop.done();
    }

    private static void awaitAnswered(List<RedisFuture<?>> futures) throws Exception {
        if (!LettuceFutures.awaitAll(30, TimeUnit.SECONDS, futures.toArray(RedisFuture[]::new))) {
            throw new IllegalStateException("results not written within 30 s");
        }
        for (RedisFuture<?> f : futures) {
            f.get(); // throws the command's error, if any
        }
    }

    /** SIGTERM: finish the batch in hand, then leave the loop. */
    static class Stopper extends Thread {
        volatile boolean requested;
        private final CountDownLatch finished = new CountDownLatch(1);

        Stopper() {
            super("raw-worker-stop");
        }

        @Override
        public void run() {
            requested = true;
            try {
                finished.await(15, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        void done() {
            finished.countDown();
        }
    }
}
