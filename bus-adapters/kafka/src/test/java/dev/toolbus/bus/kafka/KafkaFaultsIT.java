package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.spi.ToolBus;
import dev.toolbus.bus.tck.AbstractBusFaultsTests;
import dev.toolbus.bus.tck.BrokerFixture;
import dev.toolbus.bus.tck.Brokers;
import dev.toolbus.bus.tck.BusOptions;
import dev.toolbus.bus.tck.Events;
import dev.toolbus.bus.tck.FaultProxy;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.method.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Faults on an exactly-once Kafka bus (the shared suite). The broker advertises the proxy's port on a
 * second listener (scripts/services/kafka.sh, {@code TOOLBUS_KAFKA_PROXIED}), so every connection of an
 * instance bootstrapped there (group and transaction coordinator, partition leader) goes through the
 * proxy. Also: the broker itself stalled (SIGSTOP for 3 s, every connection hangs).
 */
class KafkaFaultsIT extends AbstractBusFaultsTests {

    private KafkaFixture kafka;
    private long brokerPid = -1;
    private boolean stopped;

    @Override
    protected BrokerFixture openBroker() {
        return kafka = KafkaFixture.require();
    }

    @Override
    protected FaultProxy startProxy() throws Exception {
        String[] hostPort = Brokers.require("TOOLBUS_KAFKA_PROXIED").split(":");
        int advertised = Integer.parseInt(Brokers.require("TOOLBUS_KAFKA_PROXY_PORT"));
        return FaultProxy.start(hostPort[0], Integer.parseInt(hostPort[1]), advertised);
    }

    @Override
    protected int reconnectsAfterACut() {
        return 1;
    }

    /** A transaction on its way when the stall began may still commit. */
    @Override
    protected boolean stallStopsCompletionsAtOnce() {
        return false;
    }

    @Override
    protected boolean mayReplayAfterAConnectionFault() {
        return false;
    }

    @Override
    protected boolean keepsOrderAcrossInstances() {
        return true;
    }

    /** The session timeout expired: the live instance holds every partition. */
    @Override
    protected void assertTakenOver() {
        assertThat(kafka.groupState()).isEqualTo("STABLE/1");
    }

    /** Its default 6 s session: a 3 s one would also expire while the broker restarts. */
    @Override
    protected BusOptions restartOptions() {
        return BusOptions.named("r1").build();
    }

    private void signal(String sig) throws Exception {
        Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(brokerPid)).inheritIO().start();
        assertThat(p.waitFor()).isZero();
        stopped = sig.equals("STOP");
    }

    @Test
    void aStalledBroker_losesNoTurn_repeatsNone_andKeepsOrder() throws Exception {
        brokerPid = Long.parseLong(Files.readString(Path.of(Brokers.require("TOOLBUS_KAFKA_PID_FILE"))).trim());
        ToolExecutor executor = closeLater(ToolExecutor.builder()
                .tool(Tools.function("echo", "Returns its arguments", json -> json)).build());
        ToolBus bus = kafka.bus(BusOptions.named("b1").build());
        closeLater(() -> bus.closeGracefully().block(Duration.ofSeconds(30)));
        closeLater(() -> { // first after the test: the broker runs again
            if (stopped) {
                signal("CONT");
            }
        });
        executor.attach(bus);
        flood(0, TURNS);
        await().atMost(Duration.ofSeconds(60)).until(() -> total() >= TURNS / 3);
        signal("STOP");
        AtomicInteger last = new AtomicInteger(-1);
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200))
                .until(() -> last.getAndSet(total()) == last.get()); // stopped for 3 s: no turn completes meanwhile
        signal("CONT");
        assertEveryTurnOnce(TURNS, true, 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> kafka.inflight(bus) == 0);
    }

    private int total() {
        return (int) Events.total(Events.completedTurns(kafka.events(Events.streams(STREAMS)), false));
    }
}
