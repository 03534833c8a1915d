package dev.toolbus.bus.redis;

import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Which of a read batch's turns have a finished-turn record. One plain {@code EXISTS} of all the batch's
 * keys answers the common case, none (a count of 0); only when some exist does a script call say which,
 * one answer per key: a key that holds a running turn's claim ({@code c:...}, see {@link RedisTurnLedger})
 * is not a record. A script's {@code redis.call} costs the broker about what the plain command does
 * (docs/benchmarks.md).
 */
final class DoneMarkerCheck {

    // KEYS: turn keys; per key in order, 1 when it holds a finished-turn record, else 0 (empty, or a claim)
    static final String EXIST_SCRIPT = """
            local out = {}
            for i = 1, #KEYS do
              local v = redis.call('GET', KEYS[i])
              if v and string.sub(v, 1, 2) ~= 'c:' then
                out[i] = 1
              else
                out[i] = 0
              end
            end
            return out
            """;

    private final RedisAsyncCommands<String, byte[]> commands;
    private final String sha;

    DoneMarkerCheck(RedisAsyncCommands<String, byte[]> commands) {
        this.commands = commands;
        this.sha = commands.digest(EXIST_SCRIPT);
    }

    /** Whether each key holds a finished-turn record, in order; fails as the command does. */
    CompletableFuture<boolean[]> exist(List<String> keys) {
        if (keys.isEmpty()) {
            return CompletableFuture.completedFuture(new boolean[0]);
        }
        String[] k = keys.toArray(String[]::new);
        return commands.exists(k).toCompletableFuture().thenCompose(n -> n != null && n == 0
                ? CompletableFuture.completedFuture(new boolean[k.length]) : which(k));
    }

    private CompletableFuture<boolean[]> which(String[] k) {
        return Scripts.many(commands, sha, EXIST_SCRIPT, k)
                .thenApply(answers -> {
                    if (answers == null || answers.size() != k.length) {
                        throw new IllegalStateException("unexpected answer to the record check: " + answers);
                    }
                    boolean[] found = new boolean[k.length];
                    for (int i = 0; i < k.length; i++) {
                        found[i] = answers.get(i) instanceof Long n && n > 0;
                    }
                    return found;
                });
    }
}
