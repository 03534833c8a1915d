package dev.toolbus.executor.state;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import dev.toolbus.spi.CallKey;
import dev.toolbus.spi.ControlAnswer;
import dev.toolbus.spi.ControlRequest;
import dev.toolbus.spi.ControlRequests;
import dev.toolbus.spi.RequestState;
import dev.toolbus.spi.TurnStateSettings;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The in-memory {@link ControlRequests}. Requests in a Caffeine cache by id, each kept until
 * {@code recordTtl} after its expiry and weighed with its event and answers (a {@code raise} past
 * {@code requestsMaxBytes} fails); answers also by call key (bounded in count); answers without a
 * request held per stream in arrival order, bounded per stream and in total, dropped when their hold
 * passes. Every transition runs under one lock; {@link #answered()} is emitted after it, serially.
 */
final class MemoryControlRequests implements ControlRequests {

    private static final long REQUEST_OVERHEAD = 400;
    private static final long ANSWER_OVERHEAD = 240;

    /** One request, its answers so far, and whether its owner closed it; guarded by the facet's lock. */
    private static final class Req {
        final ControlRequest request;
        final Map<CallKey, ControlAnswer> answers = new LinkedHashMap<>();
        final long ttlNanos;
        long weight;
        boolean closed;

        Req(ControlRequest request, long ttlNanos, long weight) {
            this.request = request;
            this.ttlNanos = ttlNanos;
            this.weight = weight;
        }
    }

    /** A call's answer, kept as long as its request. */
    private record ByCall(ControlAnswer answer, long ttlNanos) {
    }

    /** An answer waiting for its request. */
    private record Held(ControlAnswer answer, long bytes, long untilMs) {
    }

    private final Cache<String, Req> requests;
    private final Cache<CallKey, ByCall> byCall;
    private final Map<String, ArrayDeque<Held>> holds = new HashMap<>();
    private final Sinks.Many<String> answered = Sinks.many().multicast().directBestEffort();
    private final Object emitLock = new Object();
    private final LongSupplier epochMillis;
    private final long recordTtlMs;
    private final long maxBytes;
    private final long floor;
    private final int heldPerStream;
    private final long heldBytesPerStream;
    private final long maxHeld;
    private final long maxHeldBytes;
    private long heldCount;
    private long heldBytes;

    MemoryControlRequests(TurnStateSettings s, LongSupplier nanoClock, LongSupplier epochMillis) {
        this.epochMillis = epochMillis;
        this.recordTtlMs = s.recordTtl().toMillis();
        this.maxBytes = s.requestsMaxBytes();
        this.floor = Math.max(1, s.requestsMaxBytes() / s.requestsMaxEntries());
        this.heldPerStream = s.heldPerStream();
        this.heldBytesPerStream = s.heldBytesPerStream();
        this.maxHeld = s.requestsMaxEntries();
        this.maxHeldBytes = s.requestsMaxBytes();
        this.requests = Caffeine.newBuilder()
                .expireAfter(Expiry.writing((String id, Req r) -> Duration.ofNanos(r.ttlNanos)))
                .maximumWeight(s.requestsMaxBytes())
                .weigher((String id, Req r) -> (int) Math.min(Integer.MAX_VALUE, r.weight))
                .ticker(nanoClock::getAsLong)
                .executor(Runnable::run)
                .build();
        this.byCall = Caffeine.newBuilder()
                .expireAfter(Expiry.writing((CallKey k, ByCall b) -> Duration.ofNanos(b.ttlNanos())))
                .maximumSize(Math.max(16, s.requestsMaxEntries() * 4))
                .ticker(nanoClock::getAsLong)
                .executor(Runnable::run)
                .build();
    }

    @Override
    public Mono<RequestState> raise(ControlRequest request) {
        return Mono.fromCallable(() -> {
            synchronized (this) {
                Req r = requests.getIfPresent(request.id());
                if (r != null) {
                    return state(r, r.closed ? RequestState.Status.CLOSED : RequestState.Status.PENDING);
                }
                long now = epochMillis.getAsLong();
                long w = Math.max(floor, REQUEST_OVERHEAD + StateWeights.of(request.event()));
                if (weightedSize() + w > maxBytes) {
                    throw new IllegalStateException("the approval and question store is full (" + weightedSize()
                            + " of " + maxBytes + " estimated bytes): " + request.id() + " not raised");
                }
                long ttlMs = Math.max(0, request.expiresAtMs() - now) + recordTtlMs;
                r = new Req(request, Duration.ofMillis(ttlMs).toNanos(), w);
                applyHeld(r, now);
                requests.put(request.id(), r);
                return state(r, RequestState.Status.NEW);
            }
        });
    }

    @Override
    public Mono<AnswerOutcome> answer(ControlAnswer answer, Duration hold) {
        return Mono.fromCallable(() -> {
            AnswerOutcome o;
            synchronized (this) {
                long now = epochMillis.getAsLong();
                Req r = requests.getIfPresent(answer.requestId());
                if (r == null) {
                    return hold(answer, hold, now);
                }
                o = apply(r, answer, now);
                if (o == AnswerOutcome.RECORDED) {
                    requests.put(r.request.id(), r); // weighed again with its answers
                }
            }
            if (o == AnswerOutcome.RECORDED) {
                synchronized (emitLock) {
                    answered.tryEmitNext(answer.requestId());
                }
            }
            return o;
        });
    }

    @Override
    public Mono<RequestState> find(String id) {
        return Mono.fromCallable(() -> {
            synchronized (this) {
                Req r = id == null ? null : requests.getIfPresent(id);
                return r == null ? null : state(r, r.closed ? RequestState.Status.CLOSED : RequestState.Status.PENDING);
            }
        });
    }

    @Override
    public Mono<Map<CallKey, ControlAnswer>> findForCalls(List<CallKey> calls) {
        return Mono.fromCallable(() -> {
            Map<CallKey, ControlAnswer> out = new LinkedHashMap<>();
            for (CallKey k : calls) {
                ByCall b = byCall.getIfPresent(k);
                if (b != null) {
                    out.put(k, b.answer());
                }
            }
            return out;
        });
    }

    @Override
    public Mono<RequestState> close(String id) {
        return Mono.fromCallable(() -> {
            synchronized (this) {
                Req r = requests.getIfPresent(id);
                if (r == null) {
                    return null;
                }
                if (r.answers.size() < r.request.calls().size()) {
                    r.closed = true;
                }
                return state(r, RequestState.Status.CLOSED);
            }
        });
    }

    @Override
    public Flux<String> answered() {
        return answered.asFlux();
    }

    /** The state of a request: answered when every call is, else the status given. */
    private static RequestState state(Req r, RequestState.Status otherwise) {
        boolean all = r.answers.size() == r.request.calls().size();
        return RequestState.of(all ? RequestState.Status.ANSWERED : otherwise, r.request, r.answers);
    }

    /** Applies an answer to a request (the caller holds the lock). */
    private AnswerOutcome apply(Req r, ControlAnswer a, long now) {
        ControlRequest q = r.request;
        if (!q.streamId().equals(a.streamId()) || r.closed || now > q.expiresAtMs()
                || a.isApproval() != (q.kind() == ControlRequest.Kind.APPROVAL)) {
            return AnswerOutcome.UNKNOWN;
        }
        if (!a.principal().mayAnswerFor(q.principal())) {
            return AnswerOutcome.NOT_ALLOWED;
        }
        boolean named = false;
        boolean recorded = false;
        for (CallKey k : q.calls()) {
            if (a.toolCallId() != null && !a.toolCallId().equals(k.toolCallId())) {
                continue;
            }
            named = true;
            if (!r.answers.containsKey(k)) {
                r.answers.put(k, a);
                long ttlMs = Math.max(0, q.expiresAtMs() - now) + recordTtlMs;
                byCall.put(k, new ByCall(a, Duration.ofMillis(ttlMs).toNanos()));
                r.weight += ANSWER_OVERHEAD + StateWeights.of(a.response());
                recorded = true;
            }
        }
        if (!named) {
            return AnswerOutcome.UNKNOWN;
        }
        return recorded ? AnswerOutcome.RECORDED : AnswerOutcome.ALREADY_ANSWERED;
    }

    /** Applies the held answers of a request being raised, in arrival order, and drops them. */
    private void applyHeld(Req r, long now) {
        ArrayDeque<Held> q = holds.get(r.request.streamId());
        if (q == null) {
            return;
        }
        for (Iterator<Held> it = q.iterator(); it.hasNext(); ) {
            Held h = it.next();
            boolean mine = h.answer().requestId().equals(r.request.id());
            if (mine || h.untilMs() < now) {
                it.remove();
                heldCount--;
                heldBytes -= h.bytes();
                if (mine && h.untilMs() >= now) {
                    apply(r, h.answer(), now);
                }
            }
        }
        if (q.isEmpty()) {
            holds.remove(r.request.streamId());
        }
    }

    private AnswerOutcome hold(ControlAnswer a, Duration hold, long now) {
        long w = ANSWER_OVERHEAD + StateWeights.of(a.response());
        ArrayDeque<Held> q = holds.get(a.streamId());
        if (q != null) {
            dropExpired(a.streamId(), q, now);
            q = holds.get(a.streamId());
        }
        int n = q == null ? 0 : q.size();
        long b = 0;
        if (q != null) {
            for (Held h : q) {
                b += h.bytes();
            }
        }
        if (n >= heldPerStream || b + w > heldBytesPerStream) {
            return AnswerOutcome.HOLD_FULL;
        }
        if (heldCount >= maxHeld || heldBytes + w > maxHeldBytes) {
            for (String stream : List.copyOf(holds.keySet())) {
                dropExpired(stream, holds.get(stream), now);
            }
            if (heldCount >= maxHeld || heldBytes + w > maxHeldBytes) {
                return AnswerOutcome.HOLD_FULL;
            }
        }
        holds.computeIfAbsent(a.streamId(), k -> new ArrayDeque<>(4))
                .add(new Held(a, w, now + Math.max(0, hold.toMillis())));
        heldCount++;
        heldBytes += w;
        return AnswerOutcome.HELD;
    }

    private void dropExpired(String stream, ArrayDeque<Held> q, long now) {
        for (Iterator<Held> it = q.iterator(); it.hasNext(); ) {
            Held h = it.next();
            if (h.untilMs() < now) {
                it.remove();
                heldCount--;
                heldBytes -= h.bytes();
            }
        }
        if (q.isEmpty()) {
            holds.remove(stream);
        }
    }

    private long weightedSize() {
        return requests.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
    }

    /** Requests and held answers kept. */
    synchronized long size() {
        requests.cleanUp();
        return requests.estimatedSize() + heldCount;
    }

    /** Their estimated bytes. */
    synchronized long bytes() {
        requests.cleanUp();
        return weightedSize() + heldBytes;
    }
}
