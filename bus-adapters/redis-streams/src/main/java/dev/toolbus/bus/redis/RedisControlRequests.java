package dev.toolbus.bus.redis;

import static dev.toolbus.bus.redis.RedisCallJournal.ascii;
import static dev.toolbus.bus.redis.RedisCallJournal.utf8;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.toolbus.protocol.Json;
import dev.toolbus.spi.CallKey;
import dev.toolbus.spi.ControlAnswer;
import dev.toolbus.spi.ControlRequest;
import dev.toolbus.spi.ControlRequests;
import dev.toolbus.spi.KeyHash;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.RequestState;
import dev.toolbus.spi.TurnStateSettings;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * {@link ControlRequests} in the bus's Redis.
 *
 * <ul>
 *   <li>A request is the hash {@code <ns>r:<id>} (an id that is not a derived one is hashed first): the
 *       request as first raised ({@code req}), what the scripts check (stream, kind, the asking
 *       principal's key and rank, expiry, its calls) and, per call, the answer that won
 *       ({@code a:<tool_call_id>}). It lives until {@code recordTtl} after its expiry, and so does the
 *       copy of each answer under its call ({@code <ns>a:<call key hash>}, {@link #findForCalls}).</li>
 *   <li>An answer without its request is held in the list {@code <ns>h:<stream hash>}, in arrival
 *       order, until its hold passes: at most {@code heldPerStream} answers and
 *       {@code heldBytesPerStream} bytes per stream, {@code requestsMaxEntries} and
 *       {@code requestsMaxBytes} in all (index {@code h}).</li>
 *   <li>{@link #raise}, {@link #answer} and {@link #close} are one Lua script each, so first answer wins,
 *       principals, expiry and holds are decided atomically whichever instance asks.</li>
 *   <li>An answer recorded by {@link #answer} is announced on the pub/sub channel {@code <ns>answered}
 *       (its request id) by the same script; every instance's {@link #answered()} emits it.</li>
 * </ul>
 * The expiries of requests and holds are compared with the clock given (the executor's, as the
 * request's {@code expires_at_ms} is); the index's with Redis's.
 */
final class RedisControlRequests implements ControlRequests, AutoCloseable {

    // Applies an answer (a table: id, stream, appr, call, pk, lower, rank, w, blob) to the request at key rk.
    static final String APPLY = """
            local function apply(rk, a, now, f)
              local h = redis.call('HMGET', rk, 'stream', 'kind', 'closed', 'exp', 'pk', 'rank', 'calls')
              if h[1] ~= a.stream or h[3] == '1' or now > tonumber(h[4]) or (a.appr == '1') ~= (h[2] == 'a') then
                return 'UNKNOWN'
              end
              if not (a.pk == h[5] or (a.lower == '1' and tonumber(a.rank) > tonumber(h[6]))) then
                return 'NOT_ALLOWED'
              end
              local ttl = redis.call('PTTL', rk)
              local named, added = false, 0
              for _, c in ipairs(cjson.decode(h[7])) do
                if a.call == '' or a.call == c then
                  named = true
                  if redis.call('HSETNX', rk, 'a:' .. c, a.blob) == 1 then
                    added = added + 1
                    if ttl > 0 then
                      redis.call('SET', redis.call('HGET', rk, 'c:' .. c), a.blob, 'PX', ttl)
                    end
                  end
                end
              end
              if not named then
                return 'UNKNOWN'
              end
              if added == 0 then
                return 'ALREADY_ANSWERED'
              end
              redis.call('HINCRBY', rk, 'na', added)
              local m = string.sub(rk, #f[4] + 1)
              local w = tonumber(redis.call('HGET', f[2], m) or '0') + added * tonumber(a.w)
              ix_put(f, m, tonumber(redis.call('ZSCORE', f[1], m) or now_ms()), w)
              return 'RECORDED'
            end
            local function rewrite(list, keep, n)
              if #keep == n then
                return
              end
              local pttl = redis.call('PTTL', list)
              redis.call('DEL', list)
              for _, e in ipairs(keep) do
                redis.call('RPUSH', list, e)
              end
              if #keep > 0 and pttl > 0 then
                redis.call('PEXPIRE', list, pttl)
              end
            end
            """;

    // KEYS[1] the request, KEYS[2] its stream's held answers; ARGV[1] ns, ARGV[2] now, ARGV[3] record TTL ms,
    // ARGV[4] max requests, ARGV[5] max bytes, ARGV[6] id, ARGV[7] kind (a/i), ARGV[8] stream, ARGV[9] asking
    // principal's key, ARGV[10] its rank, ARGV[11] expiry, ARGV[12] the request, ARGV[13] weight, ARGV[14]
    // its tool call ids (JSON), then per call its id and the key of its answer. Answers {1 (raised now) or 0
    // (raised before), the request's fields}.
    static final String RAISE = StateLua.script(APPLY + """
            local ns = ARGV[1]
            local now = tonumber(ARGV[2])
            if redis.call('EXISTS', KEYS[1]) == 1 then
              return {0, redis.call('HGETALL', KEYS[1])}
            end
            local f = ix(ns, 'r')
            local fh = ix(ns, 'h')
            local rnow = now_ms()
            ix_trim(f, rnow)
            local w = tonumber(ARGV[13])
            if ix_count(f) + 1 > tonumber(ARGV[4]) or ix_bytes(f) + w > tonumber(ARGV[5]) then
              return full('approval and question store', f, ARGV[4], ARGV[5])
            end
            local ttl = math.max(0, tonumber(ARGV[11]) - now) + tonumber(ARGV[3])
            redis.call('HSET', KEYS[1], 'req', ARGV[12], 'kind', ARGV[7], 'stream', ARGV[8], 'pk', ARGV[9],
              'rank', ARGV[10], 'exp', ARGV[11], 'n', (#ARGV - 14) / 2, 'na', 0, 'closed', '0', 'calls', ARGV[14])
            for i = 15, #ARGV, 2 do
              redis.call('HSET', KEYS[1], 'c:' .. ARGV[i], ARGV[i + 1])
            end
            redis.call('PEXPIRE', KEYS[1], ttl)
            ix_put(f, string.sub(KEYS[1], #f[4] + 1), rnow + ttl, w)
            local held = redis.call('LRANGE', KEYS[2], 0, -1)
            local keep = {}
            for _, e in ipairs(held) do
              local a = cjson.decode(e)
              if a.id == ARGV[6] or a.u < now then
                ix_del(fh, a.m)
                if a.id == ARGV[6] and a.u >= now then
                  apply(KEYS[1], a, now, f)
                end
              else
                keep[#keep + 1] = e
              end
            end
            rewrite(KEYS[2], keep, #held)
            return {1, redis.call('HGETALL', KEYS[1])}
            """);

    // KEYS[1] the request, KEYS[2] its stream's held answers; ARGV[1] ns, ARGV[2] now, ARGV[3] hold until,
    // ARGV[4] hold ms, ARGV[5] held per stream, ARGV[6] held bytes per stream, ARGV[7] max held, ARGV[8] their
    // max bytes, ARGV[9] the channel of recorded answers, then the answer: ARGV[10] id, ARGV[11] stream,
    // ARGV[12] approval (1/0), ARGV[13] its call ('' : every call), ARGV[14] its principal's key, ARGV[15]
    // answers for lower ones (1/0), ARGV[16] its rank, ARGV[17] weight, ARGV[18] the answer. Answers the outcome.
    static final String ANSWER = StateLua.script(APPLY + """
            local a = {id = ARGV[10], stream = ARGV[11], appr = ARGV[12], call = ARGV[13], pk = ARGV[14],
              lower = ARGV[15], rank = ARGV[16], w = ARGV[17], blob = ARGV[18]}
            local now = tonumber(ARGV[2])
            if redis.call('EXISTS', KEYS[1]) == 1 then
              local o = apply(KEYS[1], a, now, ix(ARGV[1], 'r'))
              if o == 'RECORDED' then
                redis.call('PUBLISH', ARGV[9], a.id)
              end
              return o
            end
            local fh = ix(ARGV[1], 'h')
            local rnow = now_ms()
            ix_trim(fh, rnow)
            local held = redis.call('LRANGE', KEYS[2], 0, -1)
            local keep, b = {}, 0
            for _, e in ipairs(held) do
              local h = cjson.decode(e)
              if h.u < now then
                ix_del(fh, h.m)
              else
                keep[#keep + 1] = e
                b = b + tonumber(h.w)
              end
            end
            rewrite(KEYS[2], keep, #held)
            local w = tonumber(a.w)
            if #keep >= tonumber(ARGV[5]) or b + w > tonumber(ARGV[6]) then
              return 'HOLD_FULL'
            end
            if ix_count(fh) + 1 > tonumber(ARGV[7]) or ix_bytes(fh) + w > tonumber(ARGV[8]) then
              return 'HOLD_FULL'
            end
            a.m = tostring(redis.call('INCR', ARGV[1] .. 'h:seq'))
            a.u = tonumber(ARGV[3])
            redis.call('RPUSH', KEYS[2], cjson.encode(a))
            local hold = tonumber(ARGV[4])
            if redis.call('PTTL', KEYS[2]) < hold then
              redis.call('PEXPIRE', KEYS[2], hold)
            end
            ix_put(fh, a.m, rnow + hold, w)
            return 'HELD'
            """);

    // KEYS[1] the request. Closes it unless every call is answered; answers its fields ({} when none).
    static final String CLOSE = """
            if redis.call('EXISTS', KEYS[1]) == 0 then
              return {}
            end
            local h = redis.call('HMGET', KEYS[1], 'n', 'na')
            if tonumber(h[2]) < tonumber(h[1]) then
              redis.call('HSET', KEYS[1], 'closed', '1')
            end
            return redis.call('HGETALL', KEYS[1])
            """;

    /** Estimated bytes of a request besides its event: its fields, index entries and Redis's own. */
    static final int REQUEST_OVERHEAD = 400;
    /** Estimated bytes of an answer besides its JSON (which is kept twice: in its request and under its call). */
    static final int ANSWER_OVERHEAD = 240;

    private final RedisAsyncCommands<String, byte[]> commands;
    private final StateCodec codec;
    private final LongSupplier epochMillis;
    private final String requestPrefix;
    private final String answerPrefix;
    private final String holdPrefix;
    private final byte[] ns;
    private final byte[] channel;
    private final TurnStateSettings settings;
    private final String raiseSha;
    private final String answerSha;
    private final String closeSha;
    private final StatefulRedisPubSubConnection<String, String> pubsub;
    private final Sinks.Many<String> answered = Sinks.many().multicast().directBestEffort();

    RedisControlRequests(RedisClient client, RedisAsyncCommands<String, byte[]> commands, StateCodec codec,
                         String ns, TurnStateSettings settings, LongSupplier epochMillis) {
        this.commands = commands;
        this.codec = codec;
        this.epochMillis = epochMillis;
        this.settings = settings;
        this.requestPrefix = ns + "r:";
        this.answerPrefix = ns + "a:";
        this.holdPrefix = ns + "h:";
        this.ns = utf8(ns);
        String channelName = ns + "answered";
        this.channel = utf8(channelName);
        this.raiseSha = commands.digest(RAISE);
        this.answerSha = commands.digest(ANSWER);
        this.closeSha = commands.digest(CLOSE);
        this.pubsub = client.connectPubSub(StringCodec.UTF8);
        this.pubsub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String ch, String id) {
                synchronized (answered) {
                    answered.tryEmitNext(id);
                }
            }
        });
        this.pubsub.sync().subscribe(channelName);
    }

    /** The key of a request: a derived id as it is, any other hashed (an answer may name anything). */
    String requestKey(String id) {
        return requestPrefix + (ControlRequest.isDerivedId(id) ? id : KeyHash.hex(id));
    }

    private String holdKey(String streamId) {
        return holdPrefix + KeyHash.hex(streamId);
    }

    @Override
    public Mono<RequestState> raise(ControlRequest request) {
        return Mono.defer(() -> {
            long now = epochMillis.getAsLong();
            byte[] blob = codec.request(request);
            ArrayNode ids = Json.mapper().createArrayNode();
            List<byte[]> args = new ArrayList<>(14 + 2 * request.calls().size());
            args.add(ns);
            args.add(ascii(now));
            args.add(ascii(settings.recordTtl().toMillis()));
            args.add(ascii(settings.requestsMaxEntries()));
            args.add(ascii(settings.requestsMaxBytes()));
            args.add(utf8(request.id()));
            args.add(utf8(request.kind() == ControlRequest.Kind.APPROVAL ? "a" : "i"));
            args.add(utf8(request.streamId()));
            args.add(utf8(request.principal().key()));
            args.add(ascii(StateCodec.rank(request.principal())));
            args.add(ascii(request.expiresAtMs()));
            args.add(blob);
            args.add(ascii(REQUEST_OVERHEAD + blob.length + 2L * request.calls().size() * (answerPrefix.length() + 64)));
            List<byte[]> calls = new ArrayList<>();
            for (CallKey k : request.calls()) {
                ids.add(k.toolCallId());
                calls.add(utf8(k.toolCallId()));
                calls.add(utf8(answerPrefix + k.hash()));
            }
            args.add(utf8(ids.toString()));
            args.addAll(calls);
            String[] keys = {requestKey(request.id()), holdKey(request.streamId())};
            return Mono.fromCompletionStage(Scripts.many(commands, raiseSha, RAISE, keys, args.toArray(byte[][]::new)))
                    .map(out -> {
                        boolean raised = out.get(0) instanceof Long n && n == 1;
                        return state(fields(out.get(1)), raised ? RequestState.Status.NEW : null);
                    });
        });
    }

    @Override
    public Mono<AnswerOutcome> answer(ControlAnswer answer, Duration hold) {
        return Mono.defer(() -> {
            long now = epochMillis.getAsLong();
            long holdMs = Math.max(1, hold.toMillis());
            byte[] blob = codec.answer(answer);
            Principal p = answer.principal();
            byte[][] args = {ns, ascii(now), ascii(now + holdMs), ascii(holdMs), ascii(settings.heldPerStream()),
                    ascii(settings.heldBytesPerStream()), ascii(settings.requestsMaxEntries()),
                    ascii(settings.requestsMaxBytes()), channel, utf8(answer.requestId()), utf8(answer.streamId()),
                    utf8(answer.isApproval() ? "1" : "0"), utf8(answer.toolCallId() == null ? "" : answer.toolCallId()),
                    utf8(p.key()), utf8(p.approves() == Principal.Approves.LOWER ? "1" : "0"), ascii(StateCodec.rank(p)),
                    ascii(ANSWER_OVERHEAD + 2L * blob.length), blob};
            String[] keys = {requestKey(answer.requestId()), holdKey(answer.streamId())};
            return Mono.fromCompletionStage(Scripts.value(commands, answerSha, ANSWER, keys, args))
                    .map(v -> AnswerOutcome.valueOf(new String(v, StandardCharsets.US_ASCII)));
        });
    }

    @Override
    public Mono<RequestState> find(String id) {
        if (id == null) {
            return Mono.empty();
        }
        return Mono.defer(() -> Mono.fromCompletionStage(commands.hgetall(requestKey(id))))
                .flatMap(fields -> fields.isEmpty() ? Mono.empty() : Mono.just(state(fields, null)));
    }

    @Override
    public Mono<Map<CallKey, ControlAnswer>> findForCalls(List<CallKey> calls) {
        if (calls.isEmpty()) {
            return Mono.just(Map.of());
        }
        List<CallKey> ks = List.copyOf(calls);
        String[] keys = ks.stream().map(k -> answerPrefix + k.hash()).toArray(String[]::new);
        return Mono.defer(() -> Mono.fromCompletionStage(commands.mget(keys))).map(values -> {
            Map<CallKey, ControlAnswer> out = new LinkedHashMap<>();
            for (int i = 0; i < values.size(); i++) {
                if (values.get(i).hasValue()) {
                    out.put(ks.get(i), codec.answer(values.get(i).getValue()));
                }
            }
            return out;
        });
    }

    @Override
    public Mono<RequestState> close(String id) {
        String[] keys = {requestKey(id)};
        return Mono.defer(() -> Mono.fromCompletionStage(Scripts.many(commands, closeSha, CLOSE, keys)))
                .flatMap(out -> out == null || out.isEmpty() ? Mono.empty()
                        : Mono.just(state(fields(out), RequestState.Status.CLOSED)));
    }

    @Override
    public Flux<String> answered() {
        return answered.asFlux();
    }

    @Override
    public void close() {
        pubsub.closeAsync();
    }

    /** A HGETALL answered inside a script: field, value, field, value… */
    private static Map<String, byte[]> fields(Object flat) {
        Map<String, byte[]> out = new HashMap<>();
        if (flat instanceof List<?> l) {
            for (int i = 0; i + 1 < l.size(); i += 2) {
                out.put(new String((byte[]) l.get(i), StandardCharsets.UTF_8), (byte[]) l.get(i + 1));
            }
        }
        return out;
    }

    /**
     * The state of a request from its fields: {@code ANSWERED} when every call has an answer, else
     * {@code status} when given, else {@code CLOSED} or {@code PENDING} as the request is.
     */
    private RequestState state(Map<String, byte[]> f, RequestState.Status status) {
        ControlRequest request = codec.request(f.get("req"));
        Map<CallKey, ControlAnswer> answers = new LinkedHashMap<>();
        for (CallKey k : request.calls()) {
            byte[] a = f.get("a:" + k.toolCallId());
            if (a != null) {
                answers.put(k, codec.answer(a));
            }
        }
        RequestState.Status s;
        if (answers.size() == request.calls().size()) {
            s = RequestState.Status.ANSWERED;
        } else if (status != null) {
            s = status;
        } else {
            byte[] closed = f.get("closed");
            s = closed != null && closed.length == 1 && closed[0] == '1' ? RequestState.Status.CLOSED
                    : RequestState.Status.PENDING;
        }
        return RequestState.of(s, request, answers);
    }
}
