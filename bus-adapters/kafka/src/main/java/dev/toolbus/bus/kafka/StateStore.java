package dev.toolbus.bus.kafka;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.spi.CallJournal;
import dev.toolbus.spi.CallKey;
import dev.toolbus.spi.ControlAnswer;
import dev.toolbus.spi.ControlRequest;
import dev.toolbus.spi.ControlRequests.AnswerOutcome;
import dev.toolbus.spi.CutKey;
import dev.toolbus.spi.CutResults;
import dev.toolbus.spi.GrantKey;
import dev.toolbus.spi.RequestState;
import dev.toolbus.spi.TurnStateSettings;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The turn state of the partitions this instance owns, in memory: what the state topic holds for them,
 * restored on assignment and dropped on revocation. Every transition is decided here, under this
 * object's lock (the owner is the only writer of its partitions), and returns the records that make it
 * durable; the caller writes them outside the lock. Records past their expiry count as absent (checked
 * on read) and are swept into tombstones. Bounds are per instance, over its partitions, as
 * {@link TurnStateSettings} says; {@link Tally} keeps the gauges' counts.
 */
final class StateStore {

    private static final Logger log = LoggerFactory.getLogger(StateStore.class);

    /** Estimated bytes of a record beyond its key and value (map entry, objects). */
    static final long OVERHEAD = 200;
    /** The largest state record value written (below Kafka's default 1 MiB message limits). */
    static final int MAX_RECORD_BYTES = 900 * 1024;

    /** Records and estimated bytes of one facet, for the gauges. */
    static final class Tally {
        volatile long records;
        volatile long bytes;

        void add(long n, long b) {
            records += n;
            bytes += b;
        }
    }

    private record Journal(int partition, long expiresAt, byte[] value, boolean finished, long bytes) {
    }

    private static final class Req {
        final int partition;
        final ControlRequest request;
        final int ordinal;
        final LinkedHashMap<CallKey, ControlAnswer> answers = new LinkedHashMap<>();
        final long keepUntil;
        boolean closed;
        long bytes;

        Req(int partition, ControlRequest request, int ordinal, long keepUntil) {
            this.partition = partition;
            this.request = request;
            this.ordinal = ordinal;
            this.keepUntil = keepUntil;
        }
    }

    private record ByCall(ControlAnswer answer, String requestId, long keepUntil) {
    }

    private record Held(String key, int partition, ControlAnswer answer, long until, long bytes) {
    }

    private record Grant(int partition, long expiresAt) {
    }

    private record Cut(int partition, String stream, String text, int limit, long expiresAt, long bytes) {
    }

    /** A partition this instance owns: its owner token and the offset of its marker. */
    record Owned(String token, long markerOffset) {
    }

    final Tally journalTally = new Tally();
    final Tally requestsTally = new Tally();
    final Tally grantsTally = new Tally();
    final Tally cutsTally = new Tally();

    private final TurnStateSettings s;
    private final StateCodec codec;
    private final String topic;
    private final LongSupplier clock;
    private final long recordTtlMs;
    private final Map<Integer, Owned> owned = new HashMap<>();
    /** Insertion order is expiry order (one TTL, rewritten records move to the end). */
    private final LinkedHashMap<String, Journal> journal = new LinkedHashMap<>();
    private final Map<String, Req> requests = new HashMap<>();
    private final Map<CallKey, ByCall> byCall = new HashMap<>();
    private final LinkedHashMap<String, Held> held = new LinkedHashMap<>();
    private final Map<String, ArrayDeque<Held>> heldByStream = new HashMap<>();
    private long heldBytes;
    private final LinkedHashMap<String, Grant> grants = new LinkedHashMap<>();
    /** Insertion order is expiry order (one TTL). */
    private final LinkedHashMap<String, Cut> cuts = new LinkedHashMap<>();
    private final Map<String, ArrayDeque<String>> cutsByStream = new HashMap<>();
    private int partitions;
    private boolean warnedUnknown;

    StateStore(TurnStateSettings settings, StateCodec codec, String topic, LongSupplier clock) {
        this.s = settings;
        this.codec = codec;
        this.topic = topic;
        this.clock = clock;
        this.recordTtlMs = settings.recordTtl().toMillis();
    }

    long now() {
        return clock.getAsLong();
    }

    synchronized void partitions(int n) {
        partitions = n;
    }

    synchronized int partitions() {
        return partitions;
    }

    /** The partition of a stream's records; throws when this instance does not own it. */
    synchronized int owner(String streamId) {
        if (partitions <= 0) {
            throw new IllegalStateException("the turn state on topic " + topic + " is not started");
        }
        int p = StateKeys.partition(streamId, partitions);
        if (!owned.containsKey(p)) {
            throw new IllegalStateException("the turn state of stream " + streamId + " (partition " + p + " of " + topic
                    + ") is not on this instance: its partition moved to another instance or was never assigned here");
        }
        return p;
    }

    synchronized boolean owns(int partition, String token) {
        Owned o = owned.get(partition);
        return o != null && o.token().equals(token);
    }

    synchronized void own(int partition, Owned o) {
        owned.put(partition, o);
    }

    synchronized Set<Integer> ownedPartitions() {
        return new HashSet<>(owned.keySet());
    }

    private ProducerRecord<String, byte[]> record(int partition, String key, byte[] value) {
        return new ProducerRecord<>(topic, partition, key, value);
    }

    private static long weight(String key, byte[] value) {
        return OVERHEAD + key.length() + (value == null ? 0 : value.length);
    }

    // ================================================================ journal

    /** What a wave's begin decided, and the started records to write (acks=all) before any call runs. */
    record Begun(Map<CallKey, CallJournal.Entry> entries, List<ProducerRecord<String, byte[]>> started) {
    }

    synchronized Begun begin(List<CallKey> keys) {
        long now = now();
        Map<CallKey, CallJournal.Entry> out = new LinkedHashMap<>(keys.size() * 2);
        List<CallKey> fresh = new ArrayList<>();
        byte[] value = codec.started(now + recordTtlMs);
        long each = OVERHEAD + 66 + value.length;
        long adding = 0;
        for (CallKey k : keys) {
            owner(k.streamId());
            Journal j = journal.get(StateKeys.key(StateKeys.JOURNAL, k.hash()));
            if (j != null && j.expiresAt() > now) {
                out.put(k, j.finished() ? CallJournal.Entry.finished(codec.events(codec.read(j.value()))) : CallJournal.Entry.started());
            } else if (out.putIfAbsent(k, CallJournal.Entry.fresh()) == null) {
                fresh.add(k);
                adding += each;
            }
        }
        if (!fresh.isEmpty() && (journalTally.records + fresh.size() > s.journalMaxEntries()
                || journalTally.bytes + adding > s.journalMaxBytes())) {
            throw new IllegalStateException("the call journal is full (" + journalTally.records + " records, "
                    + journalTally.bytes + " of " + s.journalMaxBytes() + " estimated bytes): no call that is not "
                    + "retry-safe may start until records expire");
        }
        List<ProducerRecord<String, byte[]>> writes = new ArrayList<>(fresh.size());
        for (CallKey k : fresh) {
            String key = StateKeys.key(StateKeys.JOURNAL, k.hash());
            putJournal(key, new Journal(StateKeys.partition(k.streamId(), partitions), now + recordTtlMs, null, false,
                    weight(key, value)));
            writes.add(record(StateKeys.partition(k.streamId(), partitions), key, value));
        }
        return new Begun(out, writes);
    }

    /** The started records of a wave could not be written: the calls do not run, and are not marked started. */
    synchronized void unbegin(List<ProducerRecord<String, byte[]>> started) {
        for (ProducerRecord<String, byte[]> r : started) {
            Journal j = journal.get(r.key());
            if (j != null && !j.finished()) {
                removeJournal(r.key());
            }
        }
    }

    /** A finished call's record, with the turn it belongs to (exactly once stages it with the turn). */
    record Finished(String streamId, String turnId, ProducerRecord<String, byte[]> record) {
    }

    synchronized List<Finished> finish(Map<CallKey, List<OutboundEvent>> finished) {
        long now = now();
        List<Finished> out = new ArrayList<>(finished.size());
        for (Map.Entry<CallKey, List<OutboundEvent>> e : finished.entrySet()) {
            CallKey k = e.getKey();
            int p = owner(k.streamId());
            String key = StateKeys.key(StateKeys.JOURNAL, k.hash());
            Journal j = journal.get(key);
            if (j != null && j.finished() && j.expiresAt() > now) {
                continue; // the first finish wins
            }
            byte[] value = codec.finished(now + recordTtlMs, e.getValue(), s.maxRecordedBytes());
            if (value.length > MAX_RECORD_BYTES) {
                value = codec.finished(now + recordTtlMs, List.of(), 0);
            }
            putJournal(key, new Journal(p, now + recordTtlMs, value, true, weight(key, value)));
            out.add(new Finished(k.streamId(), k.turnId(), record(p, key, value)));
        }
        return out;
    }

    private void putJournal(String key, Journal j) {
        removeJournal(key);
        journal.put(key, j);
        journalTally.add(1, j.bytes());
    }

    private void removeJournal(String key) {
        Journal old = journal.remove(key);
        if (old != null) {
            journalTally.add(-1, -old.bytes());
        }
    }

    // ================================================================ requests

    /** A request's state after an operation, and the records that make the operation durable. */
    record Raised(RequestState state, List<ProducerRecord<String, byte[]>> writes) {
    }

    synchronized Raised raise(ControlRequest request, int ordinal) {
        int p = owner(request.streamId());
        long now = now();
        Req r = liveRequest(request.id(), now);
        if (r != null) {
            return new Raised(state(r, r.closed ? RequestState.Status.CLOSED : RequestState.Status.PENDING), List.of());
        }
        byte[] probe = codec.request(0, request, ordinal, Map.of(), false);
        long w = weight(StateKeys.key(StateKeys.REQUEST, request.id()), probe);
        if (requests.size() + 1 > s.requestsMaxEntries() || requestsTally.bytes - heldBytes + w > s.requestsMaxBytes()) {
            throw new IllegalStateException("the approval and question store is full (" + requests.size() + " requests, "
                    + (requestsTally.bytes - heldBytes) + " of " + s.requestsMaxBytes() + " estimated bytes): "
                    + request.id() + " not raised");
        }
        r = new Req(p, request, ordinal, Math.max(now, request.expiresAtMs()) + recordTtlMs);
        List<ProducerRecord<String, byte[]>> writes = new ArrayList<>(2);
        applyHeld(r, now, writes);
        writes.add(0, putRequest(r));
        return new Raised(state(r, RequestState.Status.NEW), writes);
    }

    /** What became of an answer, the records to write, and whether owners should be told. */
    record Answered(AnswerOutcome outcome, List<ProducerRecord<String, byte[]>> writes) {
    }

    synchronized Answered answer(ControlAnswer a, Duration hold) {
        int p = owner(a.streamId());
        long now = now();
        Req r = liveRequest(a.requestId(), now);
        if (r == null) {
            return hold(p, a, hold, now);
        }
        AnswerOutcome o = apply(r, a, now);
        return new Answered(o, o == AnswerOutcome.RECORDED ? List.of(putRequest(r)) : List.of());
    }

    synchronized RequestState find(String id) {
        Req r = id == null ? null : liveRequest(id, now());
        return r == null ? null : state(r, r.closed ? RequestState.Status.CLOSED : RequestState.Status.PENDING);
    }

    synchronized Map<CallKey, ControlAnswer> findForCalls(List<CallKey> calls) {
        long now = now();
        Map<CallKey, ControlAnswer> out = new LinkedHashMap<>();
        for (CallKey k : calls) {
            ByCall b = byCall.get(k);
            if (b != null && b.keepUntil() > now) {
                out.put(k, b.answer());
            }
        }
        return out;
    }

    synchronized Raised close(String id) {
        Req r = liveRequest(id, now());
        if (r == null) {
            return new Raised(null, List.of());
        }
        List<ProducerRecord<String, byte[]>> writes = List.of();
        if (r.answers.size() < r.request.calls().size() && !r.closed) {
            r.closed = true;
            writes = List.of(putRequest(r));
        }
        return new Raised(state(r, RequestState.Status.CLOSED), writes);
    }

    private Req liveRequest(String id, long now) {
        Req r = requests.get(id);
        return r != null && r.keepUntil > now ? r : null;
    }

    private static RequestState state(Req r, RequestState.Status otherwise) {
        boolean all = r.answers.size() == r.request.calls().size();
        return RequestState.of(all ? RequestState.Status.ANSWERED : otherwise, r.request, r.answers);
    }

    /** (Re)writes a request's record and its place in the maps; returns the record. */
    private ProducerRecord<String, byte[]> putRequest(Req r) {
        Map<String, ControlAnswer> answers = new LinkedHashMap<>();
        r.answers.forEach((k, a) -> answers.put(k.toolCallId(), a));
        String key = StateKeys.key(StateKeys.REQUEST, r.request.id());
        byte[] value = codec.request(r.keepUntil, r.request, r.ordinal, answers, r.closed);
        Req old = requests.get(r.request.id());
        if (old != null) {
            requestsTally.add(-1, -old.bytes);
        }
        r.bytes = weight(key, value);
        requests.put(r.request.id(), r);
        requestsTally.add(1, r.bytes);
        r.answers.forEach((k, a) -> byCall.put(k, new ByCall(a, r.request.id(), r.keepUntil)));
        return record(r.partition, key, value);
    }

    private void removeRequest(String id) {
        Req r = requests.remove(id);
        if (r != null) {
            requestsTally.add(-1, -r.bytes);
            for (CallKey k : r.request.calls()) {
                ByCall b = byCall.get(k);
                if (b != null && b.requestId().equals(id)) {
                    byCall.remove(k);
                }
            }
        }
    }

    /** Applies an answer to a request (first answer wins, per call). */
    private static AnswerOutcome apply(Req r, ControlAnswer a, long now) {
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
                recorded = true;
            }
        }
        if (!named) {
            return AnswerOutcome.UNKNOWN;
        }
        return recorded ? AnswerOutcome.RECORDED : AnswerOutcome.ALREADY_ANSWERED;
    }

    private Answered hold(int p, ControlAnswer a, Duration hold, long now) {
        dropExpiredHeld(a.streamId(), now, null);
        String key = StateKeys.key(StateKeys.HELD, StateKeys.hash(a.requestId(), a.principal().key(), a.streamId(),
                Long.toString(now), Long.toString(System.nanoTime())));
        byte[] value = codec.held(now + Math.max(0, hold.toMillis()), a);
        long w = weight(key, value);
        ArrayDeque<Held> q = heldByStream.get(a.streamId());
        long streamBytes = 0;
        if (q != null) {
            for (Held h : q) {
                streamBytes += h.bytes();
            }
        }
        if ((q == null ? 0 : q.size()) >= s.heldPerStream() || streamBytes + w > s.heldBytesPerStream()
                || held.size() >= s.requestsMaxEntries() || heldBytes + w > s.requestsMaxBytes()) {
            return new Answered(AnswerOutcome.HOLD_FULL, List.of());
        }
        putHeld(new Held(key, p, a, now + Math.max(0, hold.toMillis()), w));
        return new Answered(AnswerOutcome.HELD, List.of(record(p, key, value)));
    }

    private void putHeld(Held h) {
        removeHeld(h.key());
        held.put(h.key(), h);
        heldByStream.computeIfAbsent(h.answer().streamId(), k -> new ArrayDeque<>(4)).add(h);
        heldBytes += h.bytes();
        requestsTally.add(1, h.bytes());
    }

    private void removeHeld(String key) {
        Held h = held.remove(key);
        if (h == null) {
            return;
        }
        ArrayDeque<Held> q = heldByStream.get(h.answer().streamId());
        if (q != null) {
            q.remove(h);
            if (q.isEmpty()) {
                heldByStream.remove(h.answer().streamId());
            }
        }
        heldBytes -= h.bytes();
        requestsTally.add(-1, -h.bytes());
    }

    /** Applies the held answers of a request being raised, in arrival order, and drops them (tombstones). */
    private void applyHeld(Req r, long now, List<ProducerRecord<String, byte[]>> writes) {
        ArrayDeque<Held> q = heldByStream.get(r.request.streamId());
        if (q == null) {
            return;
        }
        for (Held h : List.copyOf(q)) {
            boolean mine = h.answer().requestId().equals(r.request.id());
            if (mine || h.until() < now) {
                removeHeld(h.key());
                writes.add(record(h.partition(), h.key(), null));
                if (mine && h.until() >= now) {
                    apply(r, h.answer(), now);
                }
            }
        }
    }

    private void dropExpiredHeld(String stream, long now, List<ProducerRecord<String, byte[]>> tombstones) {
        ArrayDeque<Held> q = heldByStream.get(stream);
        if (q == null) {
            return;
        }
        for (Held h : List.copyOf(q)) {
            if (h.until() < now) {
                removeHeld(h.key());
                if (tombstones != null) {
                    tombstones.add(record(h.partition(), h.key(), null));
                }
            }
        }
    }

    // ================================================================ grants

    /** Grant bytes as the gauge counts them: the key, the value and the entry. */
    static final long GRANT_BYTES = OVERHEAD + 66 + 20;

    synchronized List<ProducerRecord<String, byte[]>> grant(GrantKey k, Duration ttl) {
        int p = owner(k.streamId());
        long expires = now() + Math.max(0, ttl.toMillis());
        String key = StateKeys.key(StateKeys.GRANT, k.hash());
        List<ProducerRecord<String, byte[]>> writes = new ArrayList<>(2);
        removeGrant(key);
        grants.put(key, new Grant(p, expires));
        grantsTally.add(1, GRANT_BYTES);
        writes.add(record(p, key, codec.grant(expires)));
        while (grants.size() > s.grantsMaxEntries()) {
            Map.Entry<String, Grant> oldest = grants.entrySet().iterator().next();
            removeGrant(oldest.getKey());
            writes.add(record(oldest.getValue().partition(), oldest.getKey(), null));
        }
        return writes;
    }

    synchronized boolean has(GrantKey k) {
        owner(k.streamId());
        Grant g = grants.get(StateKeys.key(StateKeys.GRANT, k.hash()));
        return g != null && g.expiresAt() > now();
    }

    private void removeGrant(String key) {
        if (grants.remove(key) != null) {
            grantsTally.add(-1, -GRANT_BYTES);
        }
    }

    // ================================================================ cut results

    /** Whether a text is kept, and the records to write. */
    record Put(boolean kept, List<ProducerRecord<String, byte[]>> writes) {
    }

    synchronized Put put(CutKey k, String text, int limit) {
        int p = owner(k.streamId());
        long now = now();
        String key = StateKeys.key(StateKeys.CUT, k.hash());
        long estimate = OVERHEAD + 2L * (k.principal().key().length() + k.streamId().length() + k.toolCallId().length()
                + text.length());
        byte[] value = estimate > s.cutResultsMaxBytes() / 4 ? null
                : codec.cut(now + s.cutResultsTtl().toMillis(), k.streamId(), text, limit);
        List<ProducerRecord<String, byte[]>> writes = new ArrayList<>(3);
        if (value == null || value.length > MAX_RECORD_BYTES) {
            if (removeCut(key)) {
                writes.add(record(p, key, null));
            }
            return new Put(false, writes);
        }
        removeCut(key);
        Cut c = new Cut(p, k.streamId(), text, limit, now + s.cutResultsTtl().toMillis(), Math.max(estimate,
                weight(key, value)));
        cuts.put(key, c);
        cutsByStream.computeIfAbsent(k.streamId(), x -> new ArrayDeque<>(4)).add(key);
        cutsTally.add(1, c.bytes());
        writes.add(record(p, key, value));
        ArrayDeque<String> q = cutsByStream.get(k.streamId());
        while (q.size() > s.cutResultsPerStream()) {
            String oldest = q.peekFirst();
            Cut o = cuts.get(oldest);
            removeCut(oldest);
            writes.add(record(o.partition(), oldest, null));
        }
        while (cutsTally.records > s.cutResultsMaxEntries() || cutsTally.bytes > s.cutResultsMaxBytes()) {
            Map.Entry<String, Cut> oldest = cuts.entrySet().iterator().next();
            removeCut(oldest.getKey());
            writes.add(record(oldest.getValue().partition(), oldest.getKey(), null));
        }
        return new Put(true, writes);
    }

    synchronized CutResults.Cut get(CutKey k) {
        owner(k.streamId());
        Cut c = cuts.get(StateKeys.key(StateKeys.CUT, k.hash()));
        return c == null || c.expiresAt() <= now() ? null : new CutResults.Cut(c.text(), c.limit());
    }

    private boolean removeCut(String key) {
        Cut c = cuts.remove(key);
        if (c == null) {
            return false;
        }
        ArrayDeque<String> q = cutsByStream.get(c.stream());
        if (q != null) {
            q.remove(key);
            if (q.isEmpty()) {
                cutsByStream.remove(c.stream());
            }
        }
        cutsTally.add(-1, -c.bytes());
        return true;
    }

    // ================================================================ restore, sweep, revoke

    /**
     * Applies a record read back from the state topic (restore), as the latest of its key: a tombstone
     * removes it, an expired record removes it and asks for a tombstone ({@code expired}), an owner
     * marker or a key of an unknown kind is skipped.
     */
    synchronized void restore(int partition, String key, byte[] value, Set<String> expired) {
        char facet = StateKeys.facet(key);
        if (facet == 0 || key.equals(StateKeys.OWNER)) {
            return;
        }
        remove(facet, key);
        expired.remove(key);
        if (value == null) {
            return;
        }
        try {
            ObjectNode v = codec.read(value);
            long x = StateCodec.expiry(v);
            if (x <= now()) {
                expired.add(key);
                return;
            }
            switch (facet) {
                case StateKeys.JOURNAL -> putJournal(key, new Journal(partition, x, StateCodec.isFinished(v) ? value : null,
                        StateCodec.isFinished(v), weight(key, value)));
                case StateKeys.REQUEST -> {
                    StateCodec.RequestRecord rr = codec.request(v);
                    Req r = new Req(partition, rr.request(), rr.ordinal(), x);
                    r.closed = rr.closed();
                    for (CallKey k : rr.request().calls()) {
                        ControlAnswer a = rr.answers().get(k.toolCallId());
                        if (a != null) {
                            r.answers.put(k, a);
                        }
                    }
                    putRequest(r);
                }
                case StateKeys.HELD -> putHeld(new Held(key, partition, codec.answer(v.path("a")), x, weight(key, value)));
                case StateKeys.GRANT -> {
                    grants.put(key, new Grant(partition, x));
                    grantsTally.add(1, GRANT_BYTES);
                }
                case StateKeys.CUT -> {
                    String stream = v.path("s").asText();
                    String text = v.path("t").asText();
                    Cut c = new Cut(partition, stream, text, v.path("l").asInt(1), x, Math.max(weight(key, value),
                            OVERHEAD + 2L * text.length()));
                    cuts.put(key, c);
                    cutsByStream.computeIfAbsent(stream, k -> new ArrayDeque<>(4)).add(key);
                    cutsTally.add(1, c.bytes());
                }
                default -> {
                    if (!warnedUnknown) {
                        warnedUnknown = true;
                        log.warn("turn state {}: records of an unknown kind ('{}:') are skipped (written by a newer version?)",
                                topic, facet);
                    }
                }
            }
        } catch (RuntimeException e) {
            log.warn("turn state {}: record {} of partition {} skipped: {}", topic, key, partition, e.toString());
        }
    }

    private void remove(char facet, String key) {
        switch (facet) {
            case StateKeys.JOURNAL -> removeJournal(key);
            case StateKeys.REQUEST -> removeRequest(key.substring(2));
            case StateKeys.HELD -> removeHeld(key);
            case StateKeys.GRANT -> removeGrant(key);
            case StateKeys.CUT -> removeCut(key);
            default -> {
            }
        }
    }

    /** Tombstones of the keys given, in their partitions (expired records found on restore). */
    synchronized List<ProducerRecord<String, byte[]>> tombstones(int partition, Collection<String> keys) {
        List<ProducerRecord<String, byte[]>> out = new ArrayList<>(keys.size());
        keys.forEach(k -> out.add(record(partition, k, null)));
        return out;
    }

    /**
     * Removes every record whose expiry passed and returns their tombstones: the journal's (written with
     * the started records, so a tombstone never overtakes a newer start of the same call) and the others.
     */
    record Swept(List<ProducerRecord<String, byte[]>> journal, List<ProducerRecord<String, byte[]>> other) {
    }

    synchronized Swept sweep() {
        long now = now();
        List<ProducerRecord<String, byte[]>> j = new ArrayList<>();
        List<ProducerRecord<String, byte[]>> o = new ArrayList<>();
        for (Iterator<Map.Entry<String, Journal>> it = journal.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Journal> e = it.next();
            if (e.getValue().expiresAt() > now) {
                break; // insertion order is expiry order
            }
            it.remove();
            journalTally.add(-1, -e.getValue().bytes());
            j.add(record(e.getValue().partition(), e.getKey(), null));
        }
        for (Req r : List.copyOf(requests.values())) {
            if (r.keepUntil <= now) {
                removeRequest(r.request.id());
                o.add(record(r.partition, StateKeys.key(StateKeys.REQUEST, r.request.id()), null));
            }
        }
        for (Held h : List.copyOf(held.values())) {
            if (h.until() < now) {
                removeHeld(h.key());
                o.add(record(h.partition(), h.key(), null));
            }
        }
        for (Map.Entry<String, Grant> e : List.copyOf(grants.entrySet())) {
            if (e.getValue().expiresAt() <= now) {
                removeGrant(e.getKey());
                o.add(record(e.getValue().partition(), e.getKey(), null));
            }
        }
        for (Iterator<Map.Entry<String, Cut>> it = cuts.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Cut> e = it.next();
            if (e.getValue().expiresAt() > now) {
                break;
            }
            it.remove();
            Cut c = e.getValue();
            ArrayDeque<String> q = cutsByStream.get(c.stream());
            if (q != null) {
                q.remove(e.getKey());
                if (q.isEmpty()) {
                    cutsByStream.remove(c.stream());
                }
            }
            cutsTally.add(-1, -c.bytes());
            o.add(record(c.partition(), e.getKey(), null));
        }
        return new Swept(j, o);
    }

    /** Forgets the partitions' records (revoked, lost or fenced); returns those that were owned. */
    synchronized Set<Integer> drop(Collection<Integer> gone) {
        Set<Integer> dropped = new HashSet<>();
        for (Integer p : gone) {
            if (owned.remove(p) != null) {
                dropped.add(p);
            }
        }
        if (!dropped.isEmpty()) {
            forget(dropped);
        }
        return dropped;
    }

    /** Forgets the records of these partitions, owned or not (a restore given up, or a partition dropped). */
    synchronized void forget(Collection<Integer> gone) {
        Set<Integer> dropped = new HashSet<>(gone);
        for (Map.Entry<String, Journal> e : List.copyOf(journal.entrySet())) {
            if (dropped.contains(e.getValue().partition())) {
                removeJournal(e.getKey());
            }
        }
        for (Req r : List.copyOf(requests.values())) {
            if (dropped.contains(r.partition)) {
                removeRequest(r.request.id());
            }
        }
        for (Held h : List.copyOf(held.values())) {
            if (dropped.contains(h.partition())) {
                removeHeld(h.key());
            }
        }
        for (Map.Entry<String, Grant> e : List.copyOf(grants.entrySet())) {
            if (dropped.contains(e.getValue().partition())) {
                removeGrant(e.getKey());
            }
        }
        for (Map.Entry<String, Cut> e : List.copyOf(cuts.entrySet())) {
            if (dropped.contains(e.getValue().partition())) {
                removeCut(e.getKey());
            }
        }
    }

    /**
     * After a restore: forgets the oldest grants and cut results past their bounds (asked again, or no
     * longer readable), and names the restored partitions to give up, largest first, while the journal or
     * the requests are past theirs. Their records cannot be forgotten one by one: a started call forgotten
     * would run again, a request forgotten would lose its answers.
     */
    synchronized List<Integer> overBounds(Collection<Integer> restored) {
        while (grants.size() > s.grantsMaxEntries()) {
            removeGrant(grants.keySet().iterator().next());
        }
        while (cutsTally.records > s.cutResultsMaxEntries() || cutsTally.bytes > s.cutResultsMaxBytes()) {
            removeCut(cuts.keySet().iterator().next());
        }
        Map<Integer, Long> weight = new HashMap<>();
        restored.forEach(p -> weight.put(p, 0L));
        journal.values().forEach(j -> weight.computeIfPresent(j.partition(), (p, w) -> w + j.bytes()));
        requests.values().forEach(r -> weight.computeIfPresent(r.partition, (p, w) -> w + r.bytes));
        held.values().forEach(h -> weight.computeIfPresent(h.partition(), (p, w) -> w + h.bytes()));
        List<Integer> order = new ArrayList<>(weight.keySet());
        order.sort((x, y) -> Long.compare(weight.get(y), weight.get(x)));
        List<Integer> out = new ArrayList<>();
        for (int p : order) {
            if (journalTally.records <= s.journalMaxEntries() && journalTally.bytes <= s.journalMaxBytes()
                    && requestsTally.records <= s.requestsMaxEntries() && requestsTally.bytes <= s.requestsMaxBytes()) {
                break;
            }
            forget(List.of(p));
            out.add(p);
        }
        return out;
    }
}
