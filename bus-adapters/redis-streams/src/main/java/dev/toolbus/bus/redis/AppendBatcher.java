package dev.toolbus.bus.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.publisher.MonoSink;

/**
 * Sends the turns' result writes of {@link ResultWriter} in batches without waiting: while one script
 * call is on the wire, the writes asked for meanwhile queue up and go out together in the next (at most
 * {@link #MAX_WRITES} writes and {@link RedisStreamsConfig#writeBatchBytes()} bytes of events per call
 * (a single larger write goes alone), in the order they
 * were asked for). Each write is done exactly as on its own, under {@code pcall}, so one that fails (a
 * results key of the wrong type) fails alone. An idle bus sends each write at once. The queue is
 * bounded by the turns delivered (a turn writes its final events once).
 */
final class AppendBatcher {

    static final int MAX_WRITES = 64;

    // ARGV[1] approximate MAXLEN (0: no trimming), ARGV[2] record TTL in ms, ARGV[3] largest recorded events
    // in bytes, ARGV[4] this instance's running-turn claim value ("c:<consumer>"), ARGV[5] the claim TTL in ms;
    // then per write: its kind (0: events only; 1: and the finished-turn record), its event count n, its n
    // events. Each write takes 1 + kind KEYS in order: results stream, the turn's key.
    // A turn's key holds its running-turn claim ("c:<consumer>") while it runs and its record ("1", or
    // "e:" and the events when small enough) once it finished. Per write with a record: one SET ... GET
    // (Redis 6.2) writes the record over whatever claim the key held and says what it held; a turn already
    // recorded gets its record back and is not written again (-1); else the events are appended. An
    // append that fails puts back what the key held (or deletes it, when that was this instance's claim:
    // the turn may be taken up again at once), so the turn is not recorded without its events. The answer
    // is the count, or 'ERR ...' on a failure. Every redis.call from Lua costs the broker about what a
    // plain command does, so each write makes as few as it can: one SET and one XADD per event
    // (docs/benchmarks.md, fourteenth pass).
    static final String APPEND_SCRIPT = """
            local maxlen = tonumber(ARGV[1])
            local limit = tonumber(ARGV[3])
            local function append(results, turn, first, last)
              local held = false
              if turn then
                local total = 0
                for i = first, last do
                  total = total + #ARGV[i]
                end
                local value = '1'
                if total <= limit then
                  value = 'e:' .. table.concat(ARGV, '\\n', first, last)
                end
                held = redis.call('SET', turn, value, 'PX', ARGV[2], 'GET')
                if held and string.sub(held, 1, 2) ~= 'c:' then
                  redis.call('SET', turn, held, 'PX', ARGV[2])
                  return -1
                end
              end
              for i = first, last do
                local r
                if maxlen > 0 then
                  r = redis.pcall('XADD', results, 'MAXLEN', '~', ARGV[1], '*', 'event', ARGV[i])
                else
                  r = redis.pcall('XADD', results, '*', 'event', ARGV[i])
                end
                if type(r) == 'table' and r.err then
                  if turn then
                    if held and held ~= ARGV[4] then
                      redis.call('SET', turn, held, 'PX', ARGV[5])
                    else
                      redis.call('DEL', turn)
                    end
                  end
                  error(r)
                end
              end
              return last - first + 1
            end
            local out = {}
            local k = 1
            local a = 6
            while a <= #ARGV do
              local kind = tonumber(ARGV[a])
              local first = a + 2
              local last = a + 1 + tonumber(ARGV[a + 1])
              local turn = nil
              if kind == 1 then turn = KEYS[k + 1] end
              local ok, r = pcall(append, KEYS[k], turn, first, last)
              if ok then
                out[#out + 1] = r
              else
                if type(r) == 'table' then r = r.err end
                out[#out + 1] = 'ERR ' .. tostring(r)
              end
              k = k + 1 + kind
              a = last + 1
            end
            return out
            """;

    private final RedisAsyncCommands<String, byte[]> commands;
    private final byte[][] fixedArgs;
    private final String sha;
    private final long maxBatchBytes;
    private final ConcurrentLinkedQueue<Write> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean sending = new AtomicBoolean();

    AppendBatcher(RedisAsyncCommands<String, byte[]> commands, RedisStreamsConfig config) {
        this.commands = commands;
        this.fixedArgs = new byte[][] {ascii(config.resultsMaxLen()), ascii(Math.max(1, config.doneMarkerTtl().toMillis())),
                ascii(config.maxRecordedBytes()), RedisTurnLedger.claimValue(config),
                ascii(RedisTurnLedger.claimTtlMs(config))};
        this.sha = commands.digest(APPEND_SCRIPT);
        this.maxBatchBytes = config.writeBatchBytes();
    }

    /**
     * Queues one write; the sink gets the script's count for it (-1: already recorded) or its error. With
     * a turn key, the write records the turn there (over its running-turn claim).
     */
    void write(String resultsKey, String turnKey, List<byte[]> events, MonoSink<Long> sink) {
        int kind = turnKey == null ? 0 : 1;
        long bytes = 0;
        for (byte[] e : events) {
            bytes += e.length;
        }
        queue.add(new Write(resultsKey, turnKey, kind, events, bytes, sink));
        trySend();
    }

    private void trySend() {
        while (!queue.isEmpty() && sending.compareAndSet(false, true)) {
            List<Write> batch = new ArrayList<>(Math.min(queue.size(), MAX_WRITES));
            long bytes = 0;
            Write w;
            // only the sender polls, so the head looked at is the one taken
            while (batch.size() < MAX_WRITES && (w = queue.peek()) != null
                    && (batch.isEmpty() || bytes + w.bytes <= maxBatchBytes)) {
                queue.poll();
                batch.add(w);
                bytes += w.bytes;
            }
            if (batch.isEmpty()) {
                sending.set(false);
                continue;
            }
            List<String> keys = new ArrayList<>(batch.size() * 2);
            List<byte[]> args = new ArrayList<>(fixedArgs.length + batch.size() * 4);
            for (byte[] a : fixedArgs) {
                args.add(a);
            }
            for (Write b : batch) {
                keys.add(b.resultsKey);
                if (b.kind == 1) {
                    keys.add(b.turnKey);
                }
                args.add(ascii(b.kind));
                args.add(ascii(b.events.size()));
                args.addAll(b.events);
            }
            String[] k = keys.toArray(String[]::new);
            byte[][] a = args.toArray(byte[][]::new);
            try {
                Scripts.many(commands, sha, APPEND_SCRIPT, k, a)
                        .whenComplete((answers, error) -> settle(batch, answers, error == null ? null : Scripts.cause(error)));
            } catch (RuntimeException e) {
                sending.set(false);
                batch.forEach(done -> done.sink.error(e));
            }
            return;
        }
    }

    private void settle(List<Write> batch, List<Object> answers, Throwable error) {
        sending.set(false);
        for (int i = 0; i < batch.size(); i++) {
            MonoSink<Long> sink = batch.get(i).sink;
            Object r = answers != null && i < answers.size() ? answers.get(i) : null;
            if (error != null) {
                sink.error(error);
            } else if (r instanceof Long n) {
                sink.success(n);
            } else {
                String text = r instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(r);
                sink.error(new RedisCommandExecutionException("result write failed: " + text));
            }
        }
        trySend();
    }

    private static byte[] ascii(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    private record Write(String resultsKey, String turnKey, int kind, List<byte[]> events, long bytes, MonoSink<Long> sink) {
    }
}
