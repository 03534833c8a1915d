package dev.toolbus.bus.kafka;

import dev.toolbus.bus.testing.EchoDriver;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two executor JVMs in one consumer group; one is killed with SIGKILL in the middle of a flood of turns
 * ({@code -Dtoolbus.killTurns}, 4,000 by default, 10,000 for docs/benchmarks.md). Every turn must
 * still get its turn_completed, and per stream the results stay in turn order. Exactly once, a
 * read_committed consumer sees no turn twice; at least once, re-run turns repeat but never jump ahead.
 * In every case the group is healthy at the end: every calls record committed, one stable member.
 */
class KafkaKillRecoveryTest {

    static final int TURNS = Integer.getInteger("toolbus.killTurns", 4_000);
    static final int STREAMS = 50;

    private KafkaTestSupport kafka;
    private final List<Process> workers = new ArrayList<>();

    @BeforeEach
    void setUp() {
        kafka = KafkaTestSupport.require();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (Process p : workers) {
            p.destroy();
        }
        for (Process p : workers) {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    private Process worker(String clientId, KafkaDelivery delivery) throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        Process p = new ProcessBuilder(java, "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), KafkaWorkerMain.class.getName(),
                kafka.bootstrap, kafka.prefix, clientId, delivery.name())
                .redirectErrorStream(true).start();
        workers.add(p);
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null && !line.startsWith("READY")) {
            System.out.println("[" + clientId + "] " + line);
        }
        Thread drain = new Thread(() -> {
            try {
                String l;
                while ((l = out.readLine()) != null) {
                    if (l.contains("dev.toolbus") || l.contains("ERROR")) {
                        System.out.println("[" + clientId + "] " + l);
                    }
                }
            } catch (Exception ignored) {
                // process ended
            }
        }, "out-" + clientId);
        drain.setDaemon(true);
        drain.start();
        return p;
    }

    /** per stream, the turn numbers of turn_completed events in the order written. */
    private Map<String, List<Integer>> completed() {
        Map<String, List<Integer>> out = new HashMap<>();
        for (ConsumerRecord<String, byte[]> r : kafka.results()) {
            String v = KafkaTestSupport.value(r);
            if (v.contains("\"turn_completed\"")) {
                int n = Integer.parseInt(v.replaceAll(".*\"turn_id\":\"t(\\d+)\".*", "$1"));
                out.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(n);
            }
        }
        return out;
    }

    private static long distinct(Map<String, List<Integer>> byStream) {
        return byStream.values().stream().mapToLong(l -> new LinkedHashSet<>(l).size()).sum();
    }

    @Test
    void exactlyOnce_killMinus9OfOneOfTwoInstances_losesNoTurn_keepsOrder_andWritesNoTurnTwice() throws Exception {
        long twice = killOneOfTwo(KafkaDelivery.EXACTLY_ONCE);
        assertThat(twice).as("turns a read_committed consumer saw twice").isZero();
    }

    @Test
    void atLeastOnce_killMinus9OfOneOfTwoInstances_losesNoTurnAndKeepsOrder() throws Exception {
        long twice = killOneOfTwo(KafkaDelivery.AT_LEAST_ONCE);
        // re-run turns are those the killed instance had taken but not committed
        assertThat(twice).isLessThan(TURNS / 2);
    }

    @Test
    void exactlyOnce_sigtermOfOneOfTwoInstancesMidFlood_letsItsTurnsFinish_andWritesNoTurnTwice() throws Exception {
        long twice = stopOneOfTwo(KafkaDelivery.EXACTLY_ONCE, false);
        assertThat(twice).isZero();
    }

    private long killOneOfTwo(KafkaDelivery delivery) throws Exception {
        return stopOneOfTwo(delivery, true);
    }

    private long stopOneOfTwo(KafkaDelivery delivery, boolean kill) throws Exception {
        Process w1 = worker("w1", delivery);
        worker("w2", delivery);
        long start = System.nanoTime();
        for (int i = 0; i < TURNS; i++) {
            String stream = "s" + (i % STREAMS);
            kafka.producer.send(new ProducerRecord<>(kafka.prefix + "calls", stream,
                    EchoDriver.turn(stream, "t" + i, "v" + i).getBytes(StandardCharsets.UTF_8)));
        }
        kafka.producer.flush();
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                .until(() -> distinct(completed()) >= TURNS / 3);
        long before = distinct(completed());
        if (kill) {
            w1.destroyForcibly(); // SIGKILL
        } else {
            w1.destroy(); // SIGTERM: its running turns finish and are committed, the rest move to w2
        }
        w1.waitFor();
        System.out.println((kill ? "killed" : "stopped") + " w1 after " + before + " completed turns");

        await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofSeconds(1))
                .until(() -> distinct(completed()) == TURNS);
        double seconds = (System.nanoTime() - start) / 1e9;
        Map<String, List<Integer>> byStream = completed();
        long total = byStream.values().stream().mapToLong(List::size).sum();
        assertThat(byStream).hasSize(STREAMS);
        byStream.forEach((stream, turns) -> {
            List<Integer> firstSeen = new ArrayList<>(new LinkedHashSet<>(turns));
            assertThat(firstSeen).as("turn order of %s", stream).isSorted().hasSize(TURNS / STREAMS);
        });
        kafka.awaitGroupHealthy(1); // every calls record committed, the surviving instance alone and stable
        System.out.printf("kafka " + (kill ? "kill -9" : "SIGTERM") + " (%s): %d turns in %.1f s with one kill, %d turn_completed events written twice%n",
                delivery, TURNS, seconds, total - TURNS);
        return total - TURNS;
    }
}
