package dev.toolbus.bus.redis;

import dev.toolbus.spi.RateLimitStore;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * Token buckets on Redis, shared by every toolbus instance that uses the same Redis and prefix: each take
 * is one Lua script ({@code EVALSHA}), so refilling and taking a token is atomic on the server and the
 * limit holds for the deployment. Buckets refill by the Redis server's clock ({@code TIME}), so the
 * instances' clocks do not matter, and expire once they would be full again.
 *
 * <p>Give it to {@code ToolExecutor.Builder.rateLimitStore}. When Redis cannot be reached (or answers
 * an error) the take fails and the executor refuses the call {@code RATE_LIMITED}: fail closed. The
 * connection is made on first use and again after a failure; commands are refused at once while it is
 * down rather than queued.
 *
 * <pre>{@code
 * RedisRateLimitStore store = RedisRateLimitStore.create("redis://127.0.0.1:6379", "toolbus:limits:");
 * ToolExecutor.builder().limits(limits).rateLimitStore(store)...
 * }</pre>
 */
public final class RedisRateLimitStore implements RateLimitStore, AutoCloseable {

    /** The default key prefix. */
    public static final String DEFAULT_PREFIX = "toolbus:limits:";

    /** KEYS[1] the bucket; ARGV rate, periodMs, burst. Returns 0 (taken) or the ms until a token is there. */
    static final String SCRIPT = String.join("\n",
            "local rate = tonumber(ARGV[1])",
            "local period = tonumber(ARGV[2])",
            "local burst = tonumber(ARGV[3])",
            "local t = redis.call('TIME')",
            "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)",
            "local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')",
            "local tokens = tonumber(b[1])",
            "local ts = tonumber(b[2])",
            "if tokens == nil or ts == nil then tokens = burst; ts = now end",
            "if now > ts then tokens = tokens + (now - ts) * rate / period; ts = now end",
            "if tokens > burst then tokens = burst end",
            "local wait = 0",
            "if tokens >= 1 then tokens = tokens - 1 else",
            "  wait = math.ceil((1 - tokens) * period / rate)",
            "  if wait < 1 then wait = 1 end",
            "end",
            "redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(ts))",
            "redis.call('PEXPIRE', KEYS[1], math.ceil(burst * period / rate) + 1000)",
            "return wait");

    private final RedisClient client;
    private final RedisURI uri;
    private final String prefix;
    private final String sha;
    private final Mono<StatefulRedisConnection<String, String>> connection;

    private RedisRateLimitStore(String uri, String prefix) {
        this.uri = RedisURI.create(uri);
        this.prefix = prefix;
        this.client = RedisClient.create();
        this.client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(Duration.ofSeconds(2)))
                .socketOptions(SocketOptions.builder().connectTimeout(Duration.ofSeconds(1)).keepAlive(true).build())
                .build());
        this.sha = sha1(SCRIPT);
        // one connection, made on first use; a failed attempt is not cached, so the next take tries again
        this.connection = Mono.defer(() -> Mono.fromCompletionStage(client.connectAsync(StringCodec.UTF8, this.uri)))
                .cache(c -> Duration.ofMillis(Long.MAX_VALUE), e -> Duration.ZERO, () -> Duration.ZERO);
    }

    /**
     * A store on the Redis at this URI ({@code redis://[:password@]host:port[/db]}); every key starts with
     * {@code prefix} (instances that share buckets use the same prefix).
     */
    public static RedisRateLimitStore create(String uri, String prefix) {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(prefix, "prefix");
        return new RedisRateLimitStore(uri, prefix);
    }

    @Override
    public Mono<Long> take(String key, int rate, long periodMs, int burst) {
        String[] keys = {prefix + key};
        String[] args = {Integer.toString(rate), Long.toString(periodMs), Integer.toString(burst)};
        return connection.flatMap(c -> c.reactive().<Long>evalsha(sha, ScriptOutputType.INTEGER, keys, args).next()
                .onErrorResume(RedisNoScriptException.class,
                        e -> c.reactive().<Long>eval(SCRIPT, ScriptOutputType.INTEGER, keys, args).next()));
    }

    @Override
    public void close() {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

    private static String sha1(String text) {
        try {
            byte[] d = java.security.MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            StringBuilder sb = new StringBuilder(40);
            for (byte b : d) {
                sb.append(String.format("%02x", b));
            }
            return sb.toString();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
