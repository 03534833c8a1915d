package dev.toolbus.bus.redis;

import static dev.toolbus.bus.redis.RedisCallJournal.utf8;

import dev.toolbus.protocol.EventCodec;
import dev.toolbus.spi.CallJournal;
import dev.toolbus.spi.ControlRequests;
import dev.toolbus.spi.CutResults;
import dev.toolbus.spi.SessionGrants;
import dev.toolbus.spi.TurnLedger;
import dev.toolbus.spi.TurnState;
import dev.toolbus.spi.TurnStateSettings;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;
import reactor.core.publisher.Mono;

/**
 * The turn state of a Redis bus, every facet in the bus's Redis under one namespace ({@code toolbus:state:}
 * by default: the finished-turn marker prefix with {@code state:} in place of {@code done:}): the ledger
 * ({@link RedisTurnLedger}: finished-turn records and running-turn claims, beside the markers), the call
 * journal ({@code j:}), approval requests and questions ({@code r:}, answers by call {@code a:}, held
 * answers {@code h:}), session grants ({@code g:}) and cut results ({@code c:}). Every transition is one
 * Lua script; every record has a TTL and is counted in its facet's index, which bounds it and which the
 * gauges {@value #RECORDS} and {@value #BYTES} (tags {@code bus=redis}, {@code facet}) read when
 * {@link #refreshGauges()} runs (the bus's claim loop runs it). They are not the executor's
 * {@code toolbus.state.*}: those count its in-memory facets, registered in the same registry first.
 */
final class RedisTurnState implements TurnState, AutoCloseable {

    /** Records of the state in Redis, per facet. */
    static final String RECORDS = "toolbus.bus.state.records";
    /** Their estimated bytes, per facet. */
    static final String BYTES = "toolbus.bus.state.bytes";

    /** The facets the gauges report, in the order of {@link #GAUGES}' answer. */
    static final List<String> FACETS = List.of("journal", "requests", "held_answers", "grants", "cut_results");

    // ARGV[1] ns. Drops the expired index entries of every facet, then answers per facet {records, bytes}.
    static final String GAUGES = StateLua.script(RedisCutResults.DROP + """
            local now = now_ms()
            local out = {}
            for _, name in ipairs({'j', 'r', 'h', 'g', 'c'}) do
              local f = ix(ARGV[1], name)
              if name == 'c' then
                c_trim(f, ARGV[1] .. 'c:st', now)
              else
                ix_trim(f, now)
              end
              out[#out + 1] = ix_count(f)
              out[#out + 1] = ix_bytes(f)
            end
            return out
            """);

    private final TurnLedger ledger;
    private final RedisCallJournal journal;
    private final RedisControlRequests requests;
    private final RedisSessionGrants grants;
    private final RedisCutResults cutResults;
    private final RedisAsyncCommands<String, byte[]> commands;
    private final byte[] ns;
    private final String gaugesSha;
    /** Per facet of {@link #FACETS}: records, then bytes; -1 before the first refresh. */
    private final AtomicLongArray seen = new AtomicLongArray(2 * FACETS.size());

    /**
     * @param ns the key namespace, ending in a separator ({@code toolbus:state:})
     * @param epochMillis the clock request expiries are compared with (the executor's)
     */
    RedisTurnState(RedisClient client, RedisAsyncCommands<String, byte[]> commands, EventCodec codec, String ns,
                   TurnStateSettings settings, LongSupplier epochMillis, TurnLedger ledger) {
        this.ledger = ledger;
        this.commands = commands;
        this.ns = utf8(ns);
        this.journal = new RedisCallJournal(commands, codec, ns, settings);
        this.grants = new RedisSessionGrants(commands, ns, settings);
        this.cutResults = new RedisCutResults(commands, ns, settings);
        this.requests = new RedisControlRequests(client, commands, new StateCodec(codec), ns, settings, epochMillis);
        this.gaugesSha = commands.digest(GAUGES);
        for (int i = 0; i < seen.length(); i++) {
            seen.set(i, -1);
        }
    }

    @Override
    public TurnLedger ledger() {
        return ledger;
    }

    @Override
    public CallJournal journal() {
        return journal;
    }

    @Override
    public ControlRequests requests() {
        return requests;
    }

    @Override
    public SessionGrants grants() {
        return grants;
    }

    @Override
    public CutResults cutResults() {
        return cutResults;
    }

    /** Reads every facet's count and bytes from Redis (one script call) into the gauges. */
    Mono<Void> refreshGauges() {
        return Mono.defer(() -> Mono.fromCompletionStage(Scripts.many(commands, gaugesSha, GAUGES, new String[0], ns)))
                .doOnNext(out -> {
                    for (int i = 0; i < out.size() && i < seen.length(); i++) {
                        if (out.get(i) instanceof Long n) {
                            seen.set(i, n);
                        }
                    }
                })
                .then();
    }

    /** The last read record count of a facet of {@link #FACETS} (-1 before the first refresh). */
    long records(String facet) {
        return seen.get(2 * FACETS.indexOf(facet));
    }

    /** The last read estimated bytes of a facet of {@link #FACETS} (-1 before the first refresh). */
    long bytes(String facet) {
        return seen.get(2 * FACETS.indexOf(facet) + 1);
    }

    /** Registers {@value #RECORDS} and {@value #BYTES} per facet. */
    void bind(MeterRegistry meters) {
        for (String facet : FACETS) {
            Gauge.builder(RECORDS, this, s -> s.records(facet)).tags("bus", "redis", "facet", facet)
                    .description("Records the turn state keeps in Redis").register(meters);
            Gauge.builder(BYTES, this, s -> s.bytes(facet)).tags("bus", "redis", "facet", facet).baseUnit("bytes")
                    .description("Estimated bytes of the records the turn state keeps in Redis").register(meters);
        }
    }

    /** Stops listening for recorded answers. */
    @Override
    public void close() {
        requests.close();
    }
}
