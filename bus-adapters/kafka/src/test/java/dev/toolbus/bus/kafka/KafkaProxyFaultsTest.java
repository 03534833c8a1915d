package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.toolbus.bus.testing.EchoDriver;
import dev.toolbus.bus.testing.FaultProxy;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import dev.toolbus.tool.method.Tools;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Faults on the connection between toolbus and Kafka, injected by an in-test TCP proxy while a flood of
 * turns runs on an exactly-once bus. The broker advertises the proxy's port on a second listener
 * (scripts/services/kafka.sh, {@code TOOLBUS_KAFKA_PROXIED}), so every connection of an instance
 * bootstrapped there (group and transaction coordinator, partition leader) goes through the proxy.
 * Each test asserts: no turn lost, none seen twice by a read_committed reader, order kept per stream,
 * and the consumer group healthy at the end (every calls record committed, the group stable).
 */
class KafkaProxyFaultsTest {

    static final int TURNS = 1_200;
    static final int STREAMS = 12;

    private KafkaTestSupport kafka;
    private FaultProxy proxy;
    private final List<KafkaBus> buses = new ArrayList<>();
    private final List<ToolExecutor> executors = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        kafka = KafkaTestSupport.require();
        String proxied = System.getenv("TOOLBUS_KAFKA_PROXIED");
        String proxyPort = System.getenv("TOOLBUS_KAFKA_PROXY_PORT");
        assumeTrue(proxied != null && proxyPort != null, "TOOLBUS_KAFKA_PROXIED / TOOLBUS_KAFKA_PROXY_PORT are not set");
        String[] hostPort = proxied.split(":");
        proxy = FaultProxy.start(hostPort[0], Integer.parseInt(hostPort[1]), Integer.parseInt(proxyPort));
    }

    @AfterEach
    void tearDown() {
        if (proxy != null) {
            proxy.stall(false);
        }
        for (KafkaBus bus : buses) {
            bus.closeGracefully().block(Duration.ofSeconds(30));
        }
        executors.forEach(ToolExecutor::close);
        if (proxy != null) {
            proxy.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    /** An instance with an echo tool; through the proxy or straight to the broker. */
    private KafkaBus instance(String clientId, boolean proxied) {
        return instance(clientId, proxied, Tools.function("echo", "Returns its arguments", json -> json));
    }

    /** An instance with this echo tool; through the proxy or straight to the broker. */
    private KafkaBus instance(String clientId, boolean proxied, ToolSpec echo) {
        KafkaBusConfig.Builder config = kafka.config().clientId(kafka.prefix + clientId);
        if (proxied) {
            config.bootstrapServers("127.0.0.1:" + proxy.port())
                    .consumerProperty(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "3000");
        }
        ToolExecutor executor = ToolExecutor.builder().tool(echo).build();
        KafkaBus bus = KafkaBus.builder().config(config.build()).build();
        bus.start().block(Duration.ofSeconds(30));
        executor.attach(bus);
        buses.add(bus);
        executors.add(executor);
        return bus;
    }

    private void flood(int from, int to) {
        for (int i = from; i < to; i++) {
            String stream = "s" + (i % STREAMS);
            kafka.producer.send(new ProducerRecord<>(kafka.prefix + "calls", stream,
                    EchoDriver.turn(stream, "t" + i, "v" + i).getBytes(StandardCharsets.UTF_8)));
        }
        kafka.producer.flush();
    }

    /** per stream, turn numbers of turn_completed as a read_committed reader sees them. */
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

    private void assertEveryTurnOnceInOrder(int turns) {
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).until(() -> total() >= turns);
        Map<String, List<Integer>> byStream = completed();
        assertThat(byStream).hasSize(STREAMS);
        byStream.forEach((stream, t) -> assertThat(t).as("turns of %s", stream)
                .hasSize(turns / STREAMS).doesNotHaveDuplicates().isSorted());
    }

    /** Waits until no turn completes for the given time (the stall held the instance). */
    private void awaitNoProgressFor(Duration quiet) {
        AtomicInteger last = new AtomicInteger(-1);
        await().during(quiet).atMost(quiet.multipliedBy(5)).pollInterval(Duration.ofMillis(200)).until(() -> {
            int t = total();
            return last.getAndSet(t) == t;
        });
    }

    @Test
    void cutStalledAndSlowConnections_loseNoTurn_repeatNone_keepOrder_andLeaveTheGroupHealthy() {
        KafkaBus bus = instance("p1", true);
        flood(0, TURNS);
        await().atMost(Duration.ofSeconds(60)).until(() -> total() >= TURNS / 5);
        long before = proxy.accepted();
        proxy.cut();
        await().atMost(Duration.ofSeconds(30)).until(() -> proxy.accepted() > before); // the clients reconnected
        await().atMost(Duration.ofSeconds(60)).until(() -> total() >= 2 * TURNS / 5);
        proxy.stall(true); // 2 s, shorter than the session: the instance keeps its partitions
        awaitNoProgressFor(Duration.ofSeconds(2));
        proxy.stall(false);
        await().atMost(Duration.ofSeconds(60)).until(() -> total() >= 3 * TURNS / 5);
        proxy.slow(Duration.ofMillis(2));
        await().atMost(Duration.ofSeconds(60)).until(() -> total() >= 4 * TURNS / 5);
        proxy.slow(Duration.ZERO);

        assertEveryTurnOnceInOrder(TURNS);
        kafka.awaitGroupHealthy(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> bus.inflight() == 0);
    }

    /**
     * One of two instances stalled past its session timeout mid-flood, with turns it had taken and not
     * committed: the group moves its partitions to the other, which runs those turns again. When the
     * stalled instance comes back, its transaction (events and offsets of those turns, sent with its
     * stale group metadata) is fenced and aborted, so a read_committed reader still sees each turn once;
     * the instance rejoins and takes turns again.
     */
    @Test
    void anInstanceStalledPastItsSession_isFenced_andTheOtherCompletesItsTurnsOnce() {
        // arguments of the turns each instance ran -> the idempotency key its tool saw
        Map<String, String> ranOnZombie = new ConcurrentHashMap<>();
        Map<String, String> ranOnLive = new ConcurrentHashMap<>();
        CompletableFuture<Void> open = CompletableFuture.completedFuture(null);
        AtomicReference<CompletableFuture<Void>> gate = new AtomicReference<>(open);
        KafkaBus zombie = instance("zombie", true, new ToolSpec(ToolDefinition.builder("echo").description("echo").build(),
                (args, ctx) -> Mono.fromFuture(gate.get()).then(Mono.fromSupplier(() -> {
                    ranOnZombie.put(args.json(), ctx.idempotencyKey());
                    return ToolResult.text(args.json());
                }))));
        instance("live", false, new ToolSpec(ToolDefinition.builder("echo").description("echo").build(),
                (args, ctx) -> Mono.fromSupplier(() -> {
                    ranOnLive.put(args.json(), ctx.idempotencyKey());
                    return ToolResult.text(args.json());
                })));
        await().atMost(Duration.ofSeconds(60)).until(() -> kafka.groupState().equals("STABLE/2"));
        flood(0, TURNS / 3);
        await().atMost(Duration.ofSeconds(60)).until(() -> total() >= TURNS / 3);
        CompletableFuture<Void> held = new CompletableFuture<>();
        gate.set(held); // the zombie's next turns wait in its tool
        flood(TURNS / 3, TURNS); // sent after the gate: the zombie surely holds some of them
        await().atMost(Duration.ofSeconds(30)).until(() -> zombie.inflight() > 0);
        proxy.stall(true);
        int inFlight = zombie.inflight();
        held.complete(null); // they finish while the zombie cannot reach the broker
        // the live instance takes the zombie's partitions after its 3 s session and finishes every turn
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).until(() -> total() >= TURNS);
        assertThat(kafka.groupState()).isEqualTo("STABLE/1");
        Set<String> ranTwice = new java.util.HashSet<>(ranOnZombie.keySet());
        ranTwice.retainAll(ranOnLive.keySet());
        System.out.println("stalled the zombie with " + inFlight + " turns in flight; " + ranTwice.size()
                + " turns ran on both instances");
        assertThat(ranTwice).as("turns the zombie ran and the live instance ran again").isNotEmpty();
        // a tool with side effects sees the same key on both runs of a call, so it can act once
        ranTwice.forEach(call -> assertThat(ranOnLive.get(call)).as("key of %s", call).isEqualTo(ranOnZombie.get(call)));
        // the zombie's transaction of those turns reaches the broker now and is fenced: its offsets carry
        // the group metadata of a member the coordinator no longer knows (CommitFailedException), so it aborts
        proxy.stall(false);
        kafka.awaitGroupHealthy(2); // the zombie rejoined
        flood(TURNS, TURNS + 120); // and both take turns again
        assertEveryTurnOnceInOrder(TURNS + 120);
        kafka.awaitGroupHealthy(2);
    }
}
