package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.toolbus.bus.testing.EchoDriver;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.Tools;
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
 * The broker stalled (SIGSTOP for 3 s, every connection hangs) in the middle of a flood of turns on an
 * exactly-once bus: afterwards every turn completed once for a read_committed reader, in order per
 * stream. (Kafka clients connect to the addresses the broker advertises, so a proxy in front of the
 * bootstrap address would not sit on the data path; stopping the broker does.)
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
            if (v.contains("\"turn_completed\"")) {
                out.computeIfAbsent(r.key(), k -> new ArrayList<>())
                        .add(Integer.parseInt(v.replaceAll(".*\"turn_id\":\"t(\\d+)\".*", "$1")));
            }
        }
        return out;
    }

    private int total() {
        return completed().values().stream().mapToInt(List::size).sum();
    }

    @Test
    void aStalledBroker_losesNoTurn_repeatsNone_andKeepsOrder() throws Exception {
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
        signal("STOP");
        await().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(() -> true);
        signal("CONT");

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
    }
}
