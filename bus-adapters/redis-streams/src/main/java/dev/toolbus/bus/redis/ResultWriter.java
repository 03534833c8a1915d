package dev.toolbus.bus.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.XAddArgs;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Mono;

/**
 * Writes the events of a turn and its finished-turn marker in one Lua script (atomic: a redelivered
 * turn sees either all its events and the marker, or neither), and entries of the dead-letter stream.
 */
final class ResultWriter {

    // KEYS[1] results stream, KEYS[2] (optional) finished-turn marker
    // ARGV[1] approximate MAXLEN (0: no trimming), ARGV[2] marker TTL in ms, ARGV[3..] the events, in order
    static final String APPEND_SCRIPT = """
            local maxlen = tonumber(ARGV[1])
            for i = 3, #ARGV do
              if maxlen > 0 then
                redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'event', ARGV[i])
              else
                redis.call('XADD', KEYS[1], '*', 'event', ARGV[i])
              end
            end
            if #KEYS > 1 then
              redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
            end
            return #ARGV - 2
            """;

    private final RedisAsyncCommands<String, byte[]> commands;
    private final RedisStreamsConfig config;
    private final String sha;

    ResultWriter(RedisAsyncCommands<String, byte[]> commands, RedisStreamsConfig config) {
        this.commands = commands;
        this.config = config;
        this.sha = commands.digest(APPEND_SCRIPT);
    }

    /** Appends the events to the results stream, then (same script) sets the marker when one is given. */
    Mono<Void> write(String resultsKey, String markerKey, List<byte[]> events) {
        String[] keys = markerKey == null ? new String[] {resultsKey} : new String[] {resultsKey, markerKey};
        byte[][] args = new byte[events.size() + 2][];
        args[0] = ascii(config.resultsMaxLen());
        args[1] = ascii(Math.max(1, config.doneMarkerTtl().toMillis()));
        for (int i = 0; i < events.size(); i++) {
            args[i + 2] = events.get(i);
        }
        return Mono.defer(() -> Mono.fromCompletionStage(
                        commands.<Long>evalsha(sha, ScriptOutputType.INTEGER, keys, args)))
                // after a broker restart (or SCRIPT FLUSH) the script is gone: EVAL loads it again
                .onErrorResume(RedisNoScriptException.class, e -> Mono.fromCompletionStage(
                        commands.<Long>eval(APPEND_SCRIPT, ScriptOutputType.INTEGER, keys, args)))
                .then();
    }

    /** Appends a poison entry to the dead-letter stream with its reason and origin. */
    Mono<Void> deadLetter(byte[] payload, String reason, String sourceId, String consumer) {
        return deadLetter(payload, reason, sourceId, consumer, 0);
    }

    /** As above, with the entry's delivery count (field {@code deliveries}, when above 0). */
    Mono<Void> deadLetter(byte[] payload, String reason, String sourceId, String consumer, long deliveries) {
        Map<String, byte[]> body = new LinkedHashMap<>();
        body.put(RedisStreamsBus.EVENT_FIELD, payload == null ? new byte[0] : payload);
        body.put("reason", utf8(reason));
        body.put("source_stream", utf8(config.callsStream()));
        if (sourceId != null) {
            body.put("source_id", utf8(sourceId));
        }
        body.put("consumer", utf8(consumer));
        if (deliveries > 0) {
            body.put("deliveries", ascii(deliveries));
        }
        body.put("at_ms", ascii(System.currentTimeMillis()));
        XAddArgs args = config.deadLetterMaxLen() > 0
                ? XAddArgs.Builder.maxlen(config.deadLetterMaxLen()).approximateTrimming() : new XAddArgs();
        return Mono.defer(() -> Mono.fromCompletionStage(commands.xadd(config.deadLetterStream(), args, body)))
                .then();
    }

    private static byte[] ascii(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] utf8(String s) {
        return (s == null ? "" : s).getBytes(StandardCharsets.UTF_8);
    }
}
