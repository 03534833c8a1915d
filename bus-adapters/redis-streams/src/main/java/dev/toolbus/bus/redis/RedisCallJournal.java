package dev.toolbus.bus.redis;

import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.spi.CallJournal;
import dev.toolbus.spi.CallKey;
import dev.toolbus.spi.TurnStateSettings;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Mono;

/**
 * The {@link CallJournal} in the bus's Redis: per call, the string {@code <ns>j:<call key hash>} holding
 * {@code s} (started), {@code f} (finished, its events too large to keep) or {@code f:} and its events
 * (one JSON line each), expiring {@code recordTtl} after its last write. A wave's {@code begin} is one
 * script call: it reads every key and marks the new ones started, atomically, or refuses the whole wave
 * when its new records would pass {@code journalMaxEntries} or {@code journalMaxBytes} (the calls end
 * {@code STATE_UNAVAILABLE}; no started record is ever evicted). {@code finish} is one script call per
 * batch; the first finish of a call wins.
 */
final class RedisCallJournal implements CallJournal {

    // KEYS: the wave's records; ARGV[1] ns, ARGV[2] TTL ms, ARGV[3] max records, ARGV[4] max bytes, then the
    // weight of each new record. One answer per key: 'n' (new: now started) or the record ('s', 'f', 'f:...').
    static final String BEGIN = StateLua.script("""
            local f = ix(ARGV[1], 'j')
            local ttl = tonumber(ARGV[2])
            local now = now_ms()
            ix_trim(f, now)
            local out = {}
            local adding, addw = 0, 0
            for i = 1, #KEYS do
              local v = redis.call('GET', KEYS[i])
              if v then
                out[i] = v
              else
                out[i] = 'n'
                adding = adding + 1
                addw = addw + tonumber(ARGV[4 + i])
              end
            end
            if adding > 0 then
              if ix_count(f) + adding > tonumber(ARGV[3]) or ix_bytes(f) + addw > tonumber(ARGV[4]) then
                return full('call journal', f, ARGV[3], ARGV[4])
              end
              for i = 1, #KEYS do
                if out[i] == 'n' then
                  redis.call('SET', KEYS[i], 's', 'PX', ttl)
                  ix_put(f, string.sub(KEYS[i], #f[4] + 1), now + ttl, tonumber(ARGV[4 + i]))
                end
              end
            end
            return out
            """);

    // KEYS: records; ARGV[1] ns, ARGV[2] TTL ms, then per key its weight and its value. A key already
    // finished keeps its first events. Answers how many were written.
    static final String FINISH = StateLua.script("""
            local f = ix(ARGV[1], 'j')
            local ttl = tonumber(ARGV[2])
            local now = now_ms()
            local n = 0
            for i = 1, #KEYS do
              local v = redis.call('GET', KEYS[i])
              if not v or string.sub(v, 1, 1) ~= 'f' then
                redis.call('SET', KEYS[i], ARGV[2 + 2 * i], 'PX', ttl)
                ix_put(f, string.sub(KEYS[i], #f[4] + 1), now + ttl, tonumber(ARGV[1 + 2 * i]))
                n = n + 1
              end
            end
            return n
            """);

    /** Estimated bytes of a record besides its key and value: its index entries and Redis's own. */
    static final int OVERHEAD = 64 + 2 * 64;

    private final RedisAsyncCommands<String, byte[]> commands;
    private final EventCodec codec;
    private final String ns;
    private final String prefix;
    private final byte[] nsBytes;
    private final byte[] ttl;
    private final byte[] maxEntries;
    private final byte[] maxBytes;
    private final long maxRecordedBytes;
    private final String beginSha;
    private final String finishSha;

    RedisCallJournal(RedisAsyncCommands<String, byte[]> commands, EventCodec codec, String ns, TurnStateSettings s) {
        this.commands = commands;
        this.codec = codec;
        this.ns = ns;
        this.prefix = ns + "j:";
        this.nsBytes = utf8(ns);
        this.ttl = ascii(s.recordTtl().toMillis());
        this.maxEntries = ascii(s.journalMaxEntries());
        this.maxBytes = ascii(s.journalMaxBytes());
        this.maxRecordedBytes = s.maxRecordedBytes();
        this.beginSha = commands.digest(BEGIN);
        this.finishSha = commands.digest(FINISH);
    }

    /** The record key of a call. */
    String key(CallKey k) {
        return prefix + k.hash();
    }

    @Override
    public Mono<Map<CallKey, Entry>> begin(List<CallKey> keys) {
        if (keys.isEmpty()) {
            return Mono.just(Map.of());
        }
        List<CallKey> calls = List.copyOf(keys);
        String[] k = new String[calls.size()];
        byte[][] args = new byte[4 + calls.size()][];
        args[0] = nsBytes;
        args[1] = ttl;
        args[2] = maxEntries;
        args[3] = maxBytes;
        for (int i = 0; i < k.length; i++) {
            k[i] = key(calls.get(i));
            args[4 + i] = ascii(weight(k[i], 1));
        }
        return Mono.defer(() -> Mono.fromCompletionStage(Scripts.many(commands, beginSha, BEGIN, k, args)))
                .map(answers -> {
                    if (answers == null || answers.size() != k.length) {
                        throw new IllegalStateException("unexpected answer to the journal's begin: " + answers);
                    }
                    Map<CallKey, Entry> out = new LinkedHashMap<>(k.length * 2);
                    for (int i = 0; i < k.length; i++) {
                        out.put(calls.get(i), entry((byte[]) answers.get(i)));
                    }
                    return out;
                });
    }

    @Override
    public Mono<Void> finish(Map<CallKey, List<OutboundEvent>> finished) {
        if (finished.isEmpty()) {
            return Mono.empty();
        }
        List<String> k = new ArrayList<>(finished.size());
        List<byte[]> args = new ArrayList<>(2 + 2 * finished.size());
        args.add(nsBytes);
        args.add(ttl);
        for (Map.Entry<CallKey, List<OutboundEvent>> e : finished.entrySet()) {
            String key = key(e.getKey());
            byte[] value = value(e.getValue());
            k.add(key);
            args.add(ascii(weight(key, value.length)));
            args.add(value);
        }
        String[] keys = k.toArray(String[]::new);
        byte[][] a = args.toArray(byte[][]::new);
        return Mono.defer(() -> Scripts.one(commands, finishSha, FINISH, keys, a)).then();
    }

    /** {@code f:} and the events, one line each; {@code f} when they pass {@code maxRecordedBytes}. */
    private byte[] value(List<OutboundEvent> events) {
        StringBuilder b = new StringBuilder("f:");
        long bytes = 0;
        for (OutboundEvent e : events) {
            String json = codec.encode(e);
            bytes += json.length();
            if (bytes > maxRecordedBytes) {
                return new byte[] {'f'};
            }
            if (b.length() > 2) {
                b.append('\n');
            }
            b.append(json);
        }
        byte[] out = b.toString().getBytes(StandardCharsets.UTF_8);
        return out.length - 2 > maxRecordedBytes ? new byte[] {'f'} : out;
    }

    private Entry entry(byte[] v) {
        if (v == null || v.length == 0) {
            throw new IllegalStateException("unexpected empty journal record");
        }
        if (v[0] == 'n') {
            return Entry.fresh();
        }
        if (v[0] == 's') {
            return Entry.started();
        }
        if (v.length <= 2) {
            return Entry.finished(List.of());
        }
        String text = new String(v, 2, v.length - 2, StandardCharsets.UTF_8);
        List<OutboundEvent> events = new ArrayList<>();
        for (String line : text.split("\n")) {
            events.add(codec.decodeOutbound(line));
        }
        return Entry.finished(events);
    }

    private static long weight(String key, int valueBytes) {
        return key.length() + valueBytes + OVERHEAD;
    }

    static byte[] ascii(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
