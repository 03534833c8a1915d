package dev.toolbus.bus.redis;

import io.lettuce.core.XAddArgs;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Mono;

/**
 * Writes the events of a turn and its finished-turn record in one Lua script ({@link AppendBatcher};
 * atomic: a redelivered turn sees either all its events and the record, or neither; a turn already
 * recorded is not written twice), replays a recorded turn's events, and writes entries of the dead-letter stream.
 */
final class ResultWriter {

    // KEYS[1] results stream, KEYS[2] the turn's key, KEYS[3] calls stream; ARGV[1] approximate MAXLEN,
    // ARGV[2] group, ARGV[3] this consumer, ARGV[4] the entry that asks. Appends the recorded events again,
    // each marked "replayed":true, and returns how many (0: the record holds no events, it was too large;
    // -1: no record, the key being empty or a running turn's claim "c:..."; -2: the entry is not pending
    // for this consumer any more: another instance took it over, ran its turn and maybe settled it, so it
    // is not a resent turn and nothing is replayed).
    static final String REPLAY_SCRIPT = """
            local p = redis.call('XPENDING', KEYS[3], ARGV[2], ARGV[4], ARGV[4], 1)
            if #p == 0 or p[1][2] ~= ARGV[3] then
              return -2
            end
            local v = redis.call('GET', KEYS[2])
            if not v or string.sub(v, 1, 2) == 'c:' then
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
    private final AppendBatcher appends;
    private final String replaySha;

    ResultWriter(RedisAsyncCommands<String, byte[]> commands, RedisStreamsConfig config) {
        this.commands = commands;
        this.config = config;
        this.appends = new AppendBatcher(commands, config);
        this.replaySha = commands.digest(REPLAY_SCRIPT);
    }

    /**
     * Appends the events to the results stream and (same script) records the turn in its key when one is
     * given, over the turn's running-turn claim. Writes asked for while one is on the wire go together
     * ({@link AppendBatcher}).
     */
    Mono<Void> write(String resultsKey, String markerKey, List<byte[]> events) {
        return Mono.<Long>create(sink -> appends.write(resultsKey, markerKey, events, sink)).then();
    }

    /**
     * Appends a finished turn's recorded events to its results stream again, marked
     * {@code "replayed":true}, for an entry read as new; the count, 0 when none were recorded, -1 without a
     * record, -2 when the entry is no longer pending for this consumer (nothing replayed).
     */
    Mono<Long> replay(String resultsKey, String markerKey, String entryId) {
        return run(replaySha, REPLAY_SCRIPT, new String[] {resultsKey, markerKey, config.callsStream()},
                new byte[][] {ascii(config.resultsMaxLen()), utf8(config.group()), utf8(config.consumer()),
                        utf8(entryId)});
    }

    private Mono<Long> run(String digest, String script, String[] keys, byte[]... args) {
        return Scripts.one(commands, digest, script, keys, args);
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
