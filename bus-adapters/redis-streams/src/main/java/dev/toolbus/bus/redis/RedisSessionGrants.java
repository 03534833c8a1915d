package dev.toolbus.bus.redis;

import static dev.toolbus.bus.redis.RedisCallJournal.ascii;
import static dev.toolbus.bus.redis.RedisCallJournal.utf8;

import dev.toolbus.spi.GrantKey;
import dev.toolbus.spi.SessionGrants;
import dev.toolbus.spi.TurnStateSettings;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import reactor.core.publisher.Mono;

/**
 * {@link SessionGrants} in the bus's Redis: a grant is the key {@code <ns>g:<grant key hash>} with the
 * grant's TTL, so every instance honours it until it expires. At most {@code grantsMaxEntries}: a grant
 * past the bound removes the grants that expire first (a lost grant only asks again).
 */
final class RedisSessionGrants implements SessionGrants {

    // KEYS[1] the grant; ARGV[1] ns, ARGV[2] TTL ms, ARGV[3] max grants, ARGV[4] weight
    static final String GRANT = StateLua.script("""
            local f = ix(ARGV[1], 'g')
            local now = now_ms()
            local ttl = tonumber(ARGV[2])
            ix_trim(f, now)
            redis.call('SET', KEYS[1], '1', 'PX', ttl)
            ix_put(f, string.sub(KEYS[1], #f[4] + 1), now + ttl, tonumber(ARGV[4]))
            local over = ix_count(f) - tonumber(ARGV[3])
            if over > 0 then
              for _, m in ipairs(redis.call('ZRANGE', f[1], 0, over - 1)) do
                redis.call('DEL', f[4] .. m)
                ix_del(f, m)
              end
            end
            return 1
            """);

    /** Estimated bytes of a grant: its key, value, index entries and Redis's own. */
    static final int GRANT_BYTES = 320;

    private final RedisAsyncCommands<String, byte[]> commands;
    private final String prefix;
    private final byte[] ns;
    private final byte[] max;
    private final String sha;

    RedisSessionGrants(RedisAsyncCommands<String, byte[]> commands, String ns, TurnStateSettings s) {
        this.commands = commands;
        this.prefix = ns + "g:";
        this.ns = utf8(ns);
        this.max = ascii(s.grantsMaxEntries());
        this.sha = commands.digest(GRANT);
    }

    @Override
    public Mono<Void> grant(GrantKey key, Duration ttl) {
        long ms = ttl.toMillis();
        if (ms <= 0) {
            return Mono.empty(); // nothing to grant
        }
        String[] keys = {prefix + key.hash()};
        return Mono.defer(() -> Scripts.one(commands, sha, GRANT, keys, ns, ascii(ms), max, ascii(GRANT_BYTES))).then();
    }

    @Override
    public Mono<Boolean> has(GrantKey key) {
        return Mono.defer(() -> Mono.fromCompletionStage(commands.exists(prefix + key.hash()))).map(n -> n > 0);
    }
}
