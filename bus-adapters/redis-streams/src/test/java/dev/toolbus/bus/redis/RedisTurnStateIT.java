package dev.toolbus.bus.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.bus.tck.AbstractTurnStateTests;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.spi.CallKey;
import dev.toolbus.spi.TurnLedger;
import dev.toolbus.spi.TurnState;
import dev.toolbus.spi.TurnStateSettings;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The turn-state contract on a real Redis: every facet of {@link RedisTurnState}, a peer being another
 * connection (another instance's view) of the same keys. Records expire on Redis's clock, so the expiry
 * tests wait for the suite's short TTLs.
 */
class RedisTurnStateIT extends AbstractTurnStateTests {

    private final RedisFixture redis = RedisFixture.require();
    private final List<AutoCloseable> opened = new ArrayList<>();
    private final Map<TurnState, TurnStateSettings> settingsOf = new IdentityHashMap<>();
    private final Map<TurnState, SimpleMeterRegistry> metersOf = new IdentityHashMap<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : opened) {
            c.close();
        }
        redis.close();
    }

    private String ns() {
        return redis.prefix + "state:";
    }

    private RedisTurnState open(TurnStateSettings settings) {
        StatefulRedisConnection<String, byte[]> connection = redis.client.connect(RedisStreamsBus.CODEC);
        RedisTurnState state = new RedisTurnState(redis.client, connection.async(), EventCodec.defaults(), ns(), settings,
                System::currentTimeMillis, TurnLedger.none());
        opened.add(state);
        opened.add(connection);
        settingsOf.put(state, settings);
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        state.bind(meters);
        metersOf.put(state, meters);
        return state;
    }

    @Override
    protected TurnState newState(TurnStateSettings settings) {
        return open(settings);
    }

    @Override
    protected TurnState peer(TurnState state) {
        return open(settingsOf.get(state));
    }

    @Override
    protected Double gauge(TurnState state, String name, String facet) {
        ((RedisTurnState) state).refreshGauges().block(WAIT);
        // the Redis state's gauges are toolbus.bus.state.* (the executor's in-memory ones are toolbus.state.*)
        Gauge g = metersOf.get(state).find(name.replace("toolbus.state.", "toolbus.bus.state."))
                .tag("facet", facet).tag("bus", "redis").gauge();
        return g == null ? null : g.value();
    }

    @Test
    void everyKeyOfTheState_carriesItsNamespace_andAnExpiry() {
        TurnState state = newState(small());
        CallKey a = call(MASTER, "t1", "a");
        state.journal().begin(List.of(a)).block(WAIT);
        state.requests().raise(approval(MASTER, "t1", 60_000, "a")).block(WAIT);
        state.grants().grant(dev.toolbus.spi.GrantKey.of(MASTER, stream, "u", "tool"), Duration.ofMinutes(1)).block(WAIT);
        state.cutResults().put(dev.toolbus.spi.CutKey.of(MASTER, stream, "c1"), "text", 5).block(WAIT);
        List<String> keys = redis.redis.keys(ns() + "*");
        assertThat(keys).isNotEmpty();
        for (String k : keys) {
            if (k.endsWith(":idx") || k.endsWith(":w") || k.endsWith(":bytes") || k.endsWith("h:seq")
                    || k.endsWith("c:st")) {
                continue; // the facets' indexes: bounded by them, trimmed as records expire
            }
            assertThat(redis.redis.pttl(k)).as("the TTL of " + k).isPositive();
        }
        assertThat(keys).anyMatch(k -> k.equals(ns() + "j:" + a.hash()));
    }
}
