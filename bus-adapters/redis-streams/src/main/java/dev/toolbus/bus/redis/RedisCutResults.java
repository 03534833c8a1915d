package dev.toolbus.bus.redis;

import static dev.toolbus.bus.redis.RedisCallJournal.ascii;
import static dev.toolbus.bus.redis.RedisCallJournal.utf8;

import dev.toolbus.spi.CutKey;
import dev.toolbus.spi.CutResults;
import dev.toolbus.spi.KeyHash;
import dev.toolbus.spi.TurnStateSettings;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.nio.charset.StandardCharsets;
import reactor.core.publisher.Mono;

/**
 * {@link CutResults} in the bus's Redis: a text is the string {@code <ns>c:<cut key hash>} ({@code limit:text}),
 * expiring {@code cutResultsTtl} after it was put, so any instance serves its read-back to the principal
 * that received it. Per stream the sorted set {@code <ns>c:s:<stream hash>} orders the stream's texts
 * (insertion time in µs, strictly increasing): beyond {@code cutResultsPerStream} the stream's oldest go.
 * Beyond {@code cutResultsMaxEntries} or {@code cutResultsMaxBytes} in total the oldest of all go. A text
 * above a quarter of the bytes is not kept.
 */
final class RedisCutResults implements CutResults {

    /** Drops a text: its key, its place in its stream, its index entry (the prelude of both scripts). */
    static final String DROP = """
            local function c_drop(f, st, m)
              redis.call('DEL', f[4] .. m)
              local s = redis.call('HGET', st, m)
              if s then
                redis.call('ZREM', s, m)
                redis.call('HDEL', st, m)
              end
              ix_del(f, m)
            end
            local function c_trim(f, st, now)
              for _, m in ipairs(redis.call('ZRANGEBYSCORE', f[1], '-inf', now, 'LIMIT', 0, 512)) do
                c_drop(f, st, m)
              end
            end
            """;

    // KEYS[1] the text, KEYS[2] its stream's set; ARGV[1] ns, ARGV[2] TTL ms, ARGV[3] per stream, ARGV[4] max
    // texts, ARGV[5] max bytes, ARGV[6] weight, ARGV[7] the value ('' : too large, drop any text of the key)
    static final String PUT = StateLua.script(DROP + """
            local f = ix(ARGV[1], 'c')
            local st = ARGV[1] .. 'c:st'
            local t = redis.call('TIME')
            local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
            local now = math.floor(now_us / 1000)
            local ttl = tonumber(ARGV[2])
            local m = string.sub(KEYS[1], #f[4] + 1)
            c_trim(f, st, now)
            if ARGV[7] == '' then
              c_drop(f, st, m)
              return 0
            end
            redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now_us - ttl * 1000)
            local score = now_us
            local top = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
            if top[2] and tonumber(top[2]) >= score then
              score = tonumber(top[2]) + 1
            end
            redis.call('SET', KEYS[1], ARGV[7], 'PX', ttl)
            redis.call('ZADD', KEYS[2], score, m)
            redis.call('PEXPIRE', KEYS[2], ttl)
            redis.call('HSET', st, m, KEYS[2])
            ix_put(f, m, now + ttl, tonumber(ARGV[6]))
            local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[3])
            if over > 0 then
              for _, old in ipairs(redis.call('ZRANGE', KEYS[2], 0, over - 1)) do
                c_drop(f, st, old)
              end
            end
            while ix_count(f) > tonumber(ARGV[4]) or ix_bytes(f) > tonumber(ARGV[5]) do
              local oldest = redis.call('ZRANGE', f[1], 0, 0)[1]
              if not oldest or oldest == m then
                break
              end
              c_drop(f, st, oldest)
            end
            return 1
            """);

    /** Estimated bytes of a text besides its key and value: its stream entry, index entries and Redis's own. */
    static final int OVERHEAD = 96 + 4 * 64;

    private final RedisAsyncCommands<String, byte[]> commands;
    private final String prefix;
    private final String streamPrefix;
    private final byte[] ns;
    private final byte[] ttl;
    private final byte[] perStream;
    private final byte[] maxEntries;
    private final byte[] maxBytes;
    private final long maxTextBytes;
    private final String sha;

    RedisCutResults(RedisAsyncCommands<String, byte[]> commands, String ns, TurnStateSettings s) {
        this.commands = commands;
        this.prefix = ns + "c:";
        this.streamPrefix = ns + "c:s:";
        this.ns = utf8(ns);
        this.ttl = ascii(s.cutResultsTtl().toMillis());
        this.perStream = ascii(s.cutResultsPerStream());
        this.maxEntries = ascii(s.cutResultsMaxEntries());
        this.maxBytes = ascii(s.cutResultsMaxBytes());
        this.maxTextBytes = Math.max(1, s.cutResultsMaxBytes() / 4);
        this.sha = commands.digest(PUT);
    }

    @Override
    public Mono<Boolean> put(CutKey key, String text, int limit) {
        String k = prefix + key.hash();
        byte[] value = (limit + ":" + text).getBytes(StandardCharsets.UTF_8);
        long weight = k.length() + value.length + OVERHEAD;
        boolean keep = weight <= maxTextBytes;
        String[] keys = {k, streamPrefix + KeyHash.hex(key.streamId())};
        byte[][] args = {ns, ttl, perStream, maxEntries, maxBytes, ascii(weight), keep ? value : new byte[0]};
        return Mono.defer(() -> Scripts.one(commands, sha, PUT, keys, args)).map(n -> n == 1);
    }

    @Override
    public Mono<Cut> get(CutKey key) {
        return Mono.defer(() -> Mono.fromCompletionStage(commands.get(prefix + key.hash()))).map(v -> {
            String s = new String(v, StandardCharsets.UTF_8);
            int colon = s.indexOf(':');
            return new Cut(s.substring(colon + 1), Integer.parseInt(s.substring(0, colon)));
        });
    }
}
