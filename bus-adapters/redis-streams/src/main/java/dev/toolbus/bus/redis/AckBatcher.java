package dev.toolbus.bus.redis;

import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * Acknowledges entries in batches without waiting: while one {@code XACK} is on the wire, the
 * acknowledgements arriving meanwhile queue up and go out together in the next one (at most
 * {@link #MAX_IDS} ids per command). An idle bus sends each acknowledgement at once. The queue is
 * bounded by the entries delivered (the executor acknowledges only what it was given).
 */
final class AckBatcher {

    static final int MAX_IDS = 512;

    private final RedisAsyncCommands<String, byte[]> commands;
    private final String stream;
    private final String group;
    private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean sending = new AtomicBoolean();

    AckBatcher(RedisAsyncCommands<String, byte[]> commands, String stream, String group) {
        this.commands = commands;
        this.stream = stream;
        this.group = group;
    }

    /** Completes when the entry's {@code XACK} was answered. */
    Mono<Void> ack(String id) {
        return Mono.create(sink -> {
            queue.add(new Pending(id, sink));
            trySend();
        });
    }

    private void trySend() {
        while (!queue.isEmpty() && sending.compareAndSet(false, true)) {
            List<Pending> batch = new ArrayList<>(Math.min(queue.size(), MAX_IDS));
            Pending p;
            while (batch.size() < MAX_IDS && (p = queue.poll()) != null) {
                batch.add(p);
            }
            if (batch.isEmpty()) {
                sending.set(false);
                continue;
            }
            String[] ids = new String[batch.size()];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = batch.get(i).id;
            }
            try {
                commands.xack(stream, group, ids).whenComplete((n, error) -> {
                    sending.set(false);
                    for (Pending done : batch) {
                        if (error != null) {
                            done.sink.error(error);
                        } else {
                            done.sink.success();
                        }
                    }
                    trySend();
                });
            } catch (RuntimeException e) {
                sending.set(false);
                batch.forEach(done -> done.sink.error(e));
            }
            return;
        }
    }

    private record Pending(String id, MonoSink<Void> sink) {
    }
}
