package dev.toolbus.assembly;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.config.BusConfig;
import dev.toolbus.config.ConfigLoader;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.spi.ToolBus;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A Kafka bus opened by the assembly registers its gauges (and exactly once the counter of aborted hanging
 * transactions) in the server's registry. No broker: the bus is built and closed, never started.
 */
class KafkaBusMetersTest {

    private static final String AT_LEAST_ONCE = "kafka://127.0.0.1:1?delivery=at-least-once";
    private static final Tags GROUP = Tags.of("bus", "kafka", "topic", "toolbus.calls", "group", "g1");
    private static final Tags MINE = GROUP.and("client", "i1");

    private static Buses.Names names(String yaml) {
        BusConfig b = ConfigLoader.parse(yaml, n -> null).config().bus();
        return new Buses.Names(b, b.idempotency(), "g1", "i1", "x1", 1 << 20, b.redis());
    }

    private static void withBus(String uri, String yaml, MeterRegistry meters, Consumer<ToolBus> check) {
        ToolBus bus = meters != null
                ? Buses.open(BusAddress.parse(uri), names(yaml), EventCodec.defaults(), meters)
                : Buses.open(BusAddress.parse(uri), names(yaml), EventCodec.defaults());
        try {
            check.accept(bus);
        } finally {
            bus.closeGracefully().block(Duration.ofSeconds(30));
        }
    }

    private static List<String> busMeters(MeterRegistry meters) {
        return meters.getMeters().stream().map(m -> m.getId().getName()).filter(n -> n.startsWith("toolbus.bus."))
                .sorted().toList();
    }

    @Test
    void theBussGauges_goToTheRegistryGiven() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        withBus(AT_LEAST_ONCE, "bus: {type: kafka}", meters, bus -> {
            assertThat(meters.find("toolbus.bus.lag").tags(GROUP).gauge()).isNotNull();
            for (String name : List.of("toolbus.bus.pending", "toolbus.bus.inflight", "toolbus.bus.buffered")) {
                assertThat(meters.find(name).tags(MINE).gauge()).as(name).isNotNull()
                        .satisfies(g -> assertThat(g.value()).isZero());
            }
            assertThat(busMeters(meters)).as("at least once: no transactions to sweep").containsExactly(
                    "toolbus.bus.buffered", "toolbus.bus.inflight", "toolbus.bus.lag", "toolbus.bus.pending");
        });
    }

    @Test
    void exactlyOnce_alsoCountsAbortedHangingTransactionsAndRewrittenRecords_unlessTheSweepIsOff() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        withBus("kafka://127.0.0.1:1", "bus: {type: kafka}", meters, bus -> {
            for (String name : List.of("toolbus.bus.hanging_transactions_aborted", "toolbus.bus.hanging_records_rewritten")) {
                assertThat(meters.find(name).tags(MINE).functionCounter()).as(name).isNotNull()
                        .satisfies(c -> assertThat(c.count()).isZero());
            }
        });
        SimpleMeterRegistry off = new SimpleMeterRegistry();
        withBus("kafka://127.0.0.1:1", "bus: {type: kafka, kafka: {hangingTransactionSweepMs: 0}}", off,
                bus -> assertThat(busMeters(off)).isNotEmpty().doesNotContain("toolbus.bus.hanging_transactions_aborted",
                        "toolbus.bus.hanging_records_rewritten"));
    }

    @Test
    void withoutARegistry_nothingIsRegistered_notEvenGlobally() {
        SimpleMeterRegistry global = new SimpleMeterRegistry();
        Metrics.addRegistry(global);
        try {
            withBus(AT_LEAST_ONCE, "bus: {type: kafka}", null, bus -> { });
            assertThat(global.getMeters()).extracting(Meter::getId).noneMatch(id -> id.getName().startsWith("toolbus.bus.")
                    || id.getName().startsWith("toolbus.state."));
        } finally {
            Metrics.removeRegistry(global);
        }
    }
}
