package dev.toolbus.bus.redis;

import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * Sends the turn admissions of {@link RedisTurnLedger} in batches without waiting: while one script
 * call is on the wire, the admissions asked for meanwhile queue up and go out together in the next
 * (at most {@link #MAX_TURNS} turns and {@link RedisStreamsConfig#writeBatchBytes()} bytes of keys per
 * call), each turn decided on its own as before. An idle bus sends each admission at once. The queue is
 * bounded by the turns delivered (the executor admits only what it was given).
 */
final class AdmitBatcher {

    static final int MAX_TURNS = 128;

    // KEYS: turn keys (each holds the turn's claim "c:<owner>" while it runs, its finished-turn record once it
    // finished: "1" or "e:<events>"); ARGV[1] this instance's claim value, ARGV[2] claim TTL ms, then one flag
    // per key: '1' admits the turn, '0' only checks it (RedisTurnLedger.admitRead: a cancel, or a turn asked
    // for already). One answer per key: 2: finished; 1: claimed now by ARGV[1] (SET NX PX); 3: already
    // claimed by ARGV[1] (renewed); 0: claimed by another, or (checked only) not finished. A turn admitted
    // for the first time, the common case, costs one SET: every redis.call from Lua costs the broker about
    // what a plain command does (docs/benchmarks.md, fourteenth pass).
    static final String ADMIT_MANY_SCRIPT = """
            local out = {}
            for i = 1, #KEYS do
              local r = 0
              local admit = ARGV[i + 2] == '1'
              if admit and redis.call('SET', KEYS[i], ARGV[1], 'NX', 'PX', ARGV[2]) then
                r = 1
              else
                local v = redis.call('GET', KEYS[i])
                if v and string.sub(v, 1, 2) ~= 'c:' then
                  r = 2
                elseif admit and v == ARGV[1] then
                  redis.call('PEXPIRE', KEYS[i], ARGV[2])
                  r = 3
                end
              end
              out[i] = r
            end
            return out
            """;

    /** The flag of a pair the script admits. */
    static final byte[] ADMIT = {'1'};
    /** The flag of a pair the script only checks. */
    static final byte[] CHECK = {'0'};

    private final RedisAsyncCommands<String, byte[]> commands;
    private final String sha;
    private final long maxBatchBytes;
    private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean sending = new AtomicBoolean();

    AdmitBatcher(RedisAsyncCommands<String, byte[]> commands, int maxBatchBytes) {
        this.commands = commands;
        this.sha = commands.digest(ADMIT_MANY_SCRIPT);
        this.maxBatchBytes = maxBatchBytes;
    }

    /** The digest of {@link #ADMIT_MANY_SCRIPT} (the read's admission runs it too). */
    String sha() {
        return sha;
    }

    /** The script's answer for this turn; {@code claim} and {@code ttlMs} are the same for every call. */
    Mono<Long> admit(String turnKey, byte[] claim, byte[] ttlMs) {
        return Mono.create(sink -> {
            queue.add(new Pending(turnKey, claim, ttlMs, sink));
            trySend();
        });
    }

    private void trySend() {
        while (!queue.isEmpty() && sending.compareAndSet(false, true)) {
            List<Pending> batch = new ArrayList<>(Math.min(queue.size(), MAX_TURNS));
            long bytes = 0;
            Pending p;
            // only the sender polls, so the head looked at is the one taken
            while (batch.size() < MAX_TURNS && (p = queue.peek()) != null
                    && (batch.isEmpty() || bytes + p.bytes() <= maxBatchBytes)) {
                queue.poll();
                batch.add(p);
                bytes += p.bytes();
            }
            if (batch.isEmpty()) {
                sending.set(false);
                continue;
            }
            String[] keys = new String[batch.size()];
            for (int i = 0; i < batch.size(); i++) {
                keys[i] = batch.get(i).turnKey;
            }
            byte[][] args = new byte[2 + batch.size()][];
            args[0] = batch.get(0).claim;
            args[1] = batch.get(0).ttlMs;
            Arrays.fill(args, 2, args.length, ADMIT);
            try {
                Scripts.many(commands, sha, ADMIT_MANY_SCRIPT, keys, args)
                        .whenComplete((answers, error) -> settle(batch, answers, error == null ? null : Scripts.cause(error)));
            } catch (RuntimeException e) {
                sending.set(false);
                batch.forEach(done -> done.sink.error(e));
            }
            return;
        }
    }

    private void settle(List<Pending> batch, List<Object> answers, Throwable error) {
        sending.set(false);
        for (int i = 0; i < batch.size(); i++) {
            MonoSink<Long> sink = batch.get(i).sink;
            if (error != null) {
                sink.error(error);
            } else if (answers == null || i >= answers.size() || !(answers.get(i) instanceof Long r)) {
                sink.error(new IllegalStateException("unexpected answer to the admission script: " + answers));
            } else {
                sink.success(r);
            }
        }
        trySend();
    }

    private record Pending(String turnKey, byte[] claim, byte[] ttlMs, MonoSink<Long> sink) {
        /** The key's size, counted in characters (about its bytes: keys are mostly ASCII). */
        long bytes() {
            return turnKey.length();
        }
    }
}
