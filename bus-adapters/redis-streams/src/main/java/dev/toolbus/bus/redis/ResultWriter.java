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
 * Writes the events of a turn and its finished-turn record in one Lua script (atomic: a redelivered
 * turn sees either all its events and the record, or neither; a turn already recorded is not written
 * twice), replays a recorded turn's events, and writes entries of the dead-letter stream.
 */
final class ResultWriter {

    // KEYS[1] results stream, KEYS[2] (optional) finished-turn record, KEYS[3] (optional) the turn's
    // running-turn claim, deleted when ARGV[4] (then present) owns it: the turn is recorded, so the
    // claim has no more use, and its release costs no round trip of its own.
    // ARGV[1] approximate MAXLEN (0: no trimming), ARGV[2] record TTL in ms, ARGV[3] largest recorded
    // events in bytes, ARGV[4 or 5..] the events, in order. A turn already recorded is not written
    // again (a retried command, or a second run of the same turn): returns -1.
    static final String APPEND_SCRIPT = """
            local first = 4
            if #KEYS > 2 then
              first = 5
              if redis.call('GET', KEYS[3]) == ARGV[4] then
                redis.call('DEL', KEYS[3])
              end
            end
            if #KEYS > 1 and redis.call('EXISTS', KEYS[2]) == 1 then
              return -1
            end
            local maxlen = tonumber(ARGV[1])
            local total = 0
            for i = first, #ARGV do
              if maxlen > 0 then
                redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'event', ARGV[i])
              else
                redis.call('XADD', KEYS[1], '*', 'event', ARGV[i])
              end
              total = total + #ARGV[i]
            end
            if #KEYS > 1 then
              local value = '1'
              if total <= tonumber(ARGV[3]) then
                value = 'e:' .. table.concat(ARGV, '\\n', first, #ARGV)
              end
              redis.call('SET', KEYS[2], value, 'PX', ARGV[2])
            end
            return #ARGV - first + 1
            """;

    // KEYS[1] results stream, KEYS[2] finished-turn record; ARGV[1] approximate MAXLEN.
    // Appends the recorded events again, each marked "replayed":true; returns how many (0: the record
    // holds no events, it was too large; -1: no record).
    static final String REPLAY_SCRIPT = """
            local v = redis.call('GET', KEYS[2])
            if not v then
              return -1
            end
            if string.sub(v, 1, 2) ~= 'e:' then
              return 0
            end
            local maxlen = tonumber(ARGV[1])
            local n = 0
            for e in string.gmatch(string.sub(v, 3), '[^\\n]+') do
              local r = '{"replayed":true,' .. string.sub(e, 2)
              if maxlen > 0 then
                redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'event', r)
              else
                redis.call('XADD', KEYS[1], '*', 'event', r)
              end
              n = n + 1
            end
            return n
            """;

    private final RedisAsyncCommands<String, byte[]> commands;
    private final RedisStreamsConfig config;
    private final String sha;
    private final String replaySha;

    ResultWriter(RedisAsyncCommands<String, byte[]> commands, RedisStreamsConfig config) {
        this.commands = commands;
        this.config = config;
        this.sha = commands.digest(APPEND_SCRIPT);
        this.replaySha = commands.digest(REPLAY_SCRIPT);
    }

    /** Appends the events to the results stream, then (same script) sets the marker when one is given. */
    Mono<Void> write(String resultsKey, String markerKey, List<byte[]> events) {
        return write(resultsKey, markerKey, null, null, events);
    }

    /**
     * As above; with a claim key (and a marker), the same script also deletes the turn's running-turn
     * claim when {@code owner} holds it.
     */
    Mono<Void> write(String resultsKey, String markerKey, String claimKey, byte[] owner, List<byte[]> events) {
        boolean claim = markerKey != null && claimKey != null;
        String[] keys = markerKey == null ? new String[] {resultsKey}
                : claim ? new String[] {resultsKey, markerKey, claimKey} : new String[] {resultsKey, markerKey};
        int first = claim ? 4 : 3;
        byte[][] args = new byte[events.size() + first][];
        args[0] = ascii(config.resultsMaxLen());
        args[1] = ascii(Math.max(1, config.doneMarkerTtl().toMillis()));
        args[2] = ascii(config.maxRecordedBytes());
        if (claim) {
            args[3] = owner;
        }
        for (int i = 0; i < events.size(); i++) {
            args[i + first] = events.get(i);
        }
        return run(sha, APPEND_SCRIPT, keys, args).then();
    }

    /**
     * Appends a finished turn's recorded events to its results stream again, marked
     * {@code "replayed":true}; the count, 0 when none were recorded, -1 without a record.
     */
    Mono<Long> replay(String resultsKey, String markerKey) {
        return run(replaySha, REPLAY_SCRIPT, new String[] {resultsKey, markerKey},
                new byte[][] {ascii(config.resultsMaxLen())});
    }

    private Mono<Long> run(String digest, String script, String[] keys, byte[][] args) {
        return Mono.defer(() -> Mono.fromCompletionStage(
                        commands.<Long>evalsha(digest, ScriptOutputType.INTEGER, keys, args)))
                // after a broker restart (or SCRIPT FLUSH) the script is gone: EVAL loads it again
                .onErrorResume(RedisNoScriptException.class, e -> Mono.fromCompletionStage(
                        commands.<Long>eval(script, ScriptOutputType.INTEGER, keys, args)));
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
