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
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import dev.toolbus.tool.method.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

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

    /**
     * The only instance cut off past its session while turns run in it: the group lets it go, and when it
     * is back its partitions are given to it again and it runs their uncommitted records once more, while
     * the runs it had before finish. Those earlier runs' events are refused, whether the record's new run
     * is already there or not, so each turn is written once (a run of a turn used to put its events in
     * with the new run's, and both were written).
     */
    @Test
    void theOnlyInstanceLosingItsPartitionsWhileTurnsRun_writesEachTurnOnce() throws Exception {
        FaultProxy proxy = closeLater(startProxy());
        ToolDefinition echo = ToolDefinition.builder("echo").description("Returns its arguments, 100 ms later").build();
        ToolExecutor executor = closeLater(ToolExecutor.builder().tool(new ToolSpec(echo, (args, ctx) ->
                Mono.delay(Duration.ofMillis(100)).thenReturn(ToolResult.text(args.json())))).build());
        ToolBus bus = kafka.bus(BusOptions.named("lone").through(proxy).takeOverAfter(Duration.ofSeconds(3)).build());
        closeLater(() -> bus.closeGracefully().block(Duration.ofSeconds(30)));
        closeLater(() -> proxy.stall(false)); // first after the test: the bus can close
        executor.attach(bus);
        flood(0, TURNS);
        await().atMost(Duration.ofSeconds(60)).until(() -> total() >= TURNS / 4 && kafka.inflight(bus) > 0);
        proxy.stall(true);
        await().atMost(Duration.ofSeconds(30)).until(() -> kafka.groupState().startsWith("EMPTY/")); // its session expired
        proxy.stall(false);
        assertEveryTurnOnce(TURNS, true, 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> kafka.inflight(bus) == 0);
    }

    /**
     * The broker commits a transaction but its answer is held past the producer's {@code max.block.ms}
     * (the proxy holds every reply from the moment the commit is asked, {@code EndTxn}), three times in a
     * flood. The bus asks for the same commit again, as Kafka requires after a timed-out commit, and hears
     * that it was made; it does not abort and send the transaction's records again in a new one, which
     * wrote each of those turns twice.
     */
    @Test
    void aCommitAnsweredPastItsTimeout_isAskedAgain_andNoTurnIsWrittenTwice() throws Exception {
        FaultProxy proxy = closeLater(startProxy());
        KafkaRequestWatch commits = new KafkaRequestWatch(KafkaRequestWatch.END_TXN, () -> proxy.stallReplies(true));
        proxy.tap(commits);
        closeLater(() -> proxy.stallReplies(false)); // first after the test: the bus can close
        ToolExecutor executor = closeLater(ToolExecutor.builder()
                .tool(Tools.function("echo", "Returns its arguments", json -> json)).build());
        ToolBus bus = kafka.bus(BusOptions.named("late").through(proxy).build(),
                c -> c.producerProperty(ProducerConfig.MAX_BLOCK_MS_CONFIG, "1000"));
        closeLater(() -> bus.closeGracefully().block(Duration.ofSeconds(30)));
        executor.attach(bus);
        for (int round = 1; round <= 3; round++) { // a quarter of the turns each, the first commit of it held
            int fired = round;
            commits.arm();
            flood((round - 1) * TURNS / 4, round * TURNS / 4);
            await().atMost(Duration.ofSeconds(30)).until(() -> commits.fired() == fired);
            AtomicInteger last = new AtomicInteger(-1);
            // the held commit shows; then nothing for 2 s, twice the bus's 1 s wait: it timed out
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200))
                    .until(() -> last.getAndSet(total()) == last.get());
            proxy.stallReplies(false);
        }
        flood(3 * TURNS / 4, TURNS);
        assertEveryTurnOnce(TURNS, true, 1);
        assertThat(Events.total(Events.completedTurns(kafka.events(Events.streams(STREAMS)), true)))
                .as("turn_completed events, replays included").isEqualTo(TURNS);
    }

    private int total() {
        return (int) Events.total(Events.completedTurns(kafka.events(Events.streams(STREAMS)), false));
    }
}
