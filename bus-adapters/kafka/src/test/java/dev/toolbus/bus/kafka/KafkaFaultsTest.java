package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.toolbus.bus.testing.EchoDriver;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.method.Tools;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The broker itself failing in the middle of a flood of turns on an exactly-once bus: stalled (SIGSTOP
 * for 3 s, every connection hangs) or restarted (SIGTERM, started again on the same data). Afterwards
 * every turn completed once for a read_committed reader, in order per stream, and the consumer group is
 * healthy. Faults of the connection (cut, stall, slow): {@link KafkaProxyFaultsTest}.
 */
class KafkaFaultsTest {

    static final int TURNS = 1_200;
    static final int STREAMS = 12;

    private KafkaTestSupport kafka;
    private KafkaBus bus;
    private ToolExecutor executor;
    private long brokerPid = -1;
    private boolean stopped;

    @BeforeEach
    void setUp() throws Exception {
        kafka = KafkaTestSupport.require();
        String pidFile = System.getenv("TOOLBUS_KAFKA_PID_FILE");
        assumeTrue(pidFile != null && Files.exists(Path.of(pidFile)), "TOOLBUS_KAFKA_PID_FILE is not set");
        brokerPid = Long.parseLong(Files.readString(Path.of(pidFile)).trim());
    }

    @AfterEach
    void tearDown() throws Exception {
        if (stopped) {
            signal("CONT");
        }
        if (bus != null) {
            bus.closeGracefully().block(Duration.ofSeconds(30));
        }
        if (executor != null) {
            executor.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    private void signal(String sig) throws Exception {
        Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(brokerPid)).inheritIO().start();
        assertThat(p.waitFor()).isZero();
        stopped = sig.equals("STOP");
    }

    private Map<String, List<Integer>> completed() {
        Map<String, List<Integer>> out = new HashMap<>();
        for (ConsumerRecord<String, byte[]> r : kafka.results()) {
            String v = KafkaTestSupport.value(r);
            // a replay (marked) answers a calls record that the test's plain producer wrote twice when
            // its retry crossed the fault; a consumer drops those, and so does this count
            if (v.contains("\"turn_completed\"") && !v.startsWith("{\"replayed\":true")) {
                out.computeIfAbsent(r.key(), k -> new ArrayList<>())
                        .add(Integer.parseInt(v.replaceAll(".*\"turn_id\":\"t(\\d+)\".*", "$1")));
            }
        }
        return out;
    }

    private int total() {
        return completed().values().stream().mapToInt(List::size).sum();
    }

    private void send(int from, int to) {
        for (int i = from; i < to; i++) {
            String stream = "s" + (i % STREAMS);
            kafka.producer.send(new ProducerRecord<>(kafka.prefix + "calls", stream,
                    EchoDriver.turn(stream, "t" + i, "v" + i).getBytes(StandardCharsets.UTF_8)));
        }
    }

    private void startAndFlood() {
        executor = ToolExecutor.builder().tool(Tools.function("echo", "Returns its arguments", json -> json)).build();
        bus = KafkaBus.builder().config(kafka.config().build()).build();
        bus.start().block(Duration.ofSeconds(30));
        executor.attach(bus);
        for (int i = 0; i < TURNS; i++) {
            String stream = "s" + (i % STREAMS);
            kafka.producer.send(new ProducerRecord<>(kafka.prefix + "calls", stream,
                    EchoDriver.turn(stream, "t" + i, "v" + i).getBytes(StandardCharsets.UTF_8)));
        }
        kafka.producer.flush();
        await().atMost(Duration.ofSeconds(60)).until(() -> total() >= TURNS / 3);
    }

    @Test
    void aStalledBroker_losesNoTurn_repeatsNone_andKeepsOrder() throws Exception {
        startAndFlood();
        signal("STOP");
        java.util.concurrent.atomic.AtomicInteger last = new java.util.concurrent.atomic.AtomicInteger(-1);
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200))
                .until(() -> last.getAndSet(total()) == last.get()); // stopped for 3 s: no turn completes meanwhile
        signal("CONT");
        assertEveryTurnOnceInOrder();
    }

    @Test
    void aBrokerRestartMidFlood_losesNoTurn_repeatsNone_andKeepsOrder() throws Exception {
        String restart = System.getenv("TOOLBUS_KAFKA_RESTART");
        assumeTrue(restart != null, "TOOLBUS_KAFKA_RESTART is not set");
        executor = ToolExecutor.builder().tool(Tools.function("echo", "Returns its arguments", json -> json)).build();
        bus = KafkaBus.builder().config(kafka.config().build()).build();
        bus.start().block(Duration.ofSeconds(30));
        executor.attach(bus);
        send(0, TURNS / 2);
        await().atMost(Duration.ofSeconds(60)).until(() -> total() >= TURNS / 4);
        int atStop = total(); // the second half of the flood is not sent yet
        Process p = new ProcessBuilder("bash", restart).inheritIO().start();
        send(TURNS / 2, TURNS); // while the broker stops and starts: the producer holds them and retries
        assertThat(p.waitFor()).isZero();
        System.out.println("broker restarted: %d of %d turns completed when it was stopped, %d when it was back"
                .formatted(atStop, TURNS, total()));
        assertEveryTurnOnceInOrder();
    }

    private void assertEveryTurnOnceInOrder() {
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).until(() -> {
            int t = total();
            System.out.println("completed " + t + ", inflight " + bus.inflight() + ", lag " + bus.lag());
            return t >= TURNS;
        });
        Map<String, List<Integer>> byStream = completed();
        assertThat(byStream).hasSize(STREAMS);
        byStream.forEach((stream, turns) -> assertThat(turns).as("turns of %s", stream)
                .hasSize(TURNS / STREAMS).doesNotHaveDuplicates().isSorted());
        await().atMost(Duration.ofSeconds(10)).until(() -> bus.inflight() == 0);
        kafka.awaitGroupHealthy(1);
    }
}
