package dev.toolbus.bus.kafka;

import dev.toolbus.bus.tck.EchoDriver;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.spi.BusMessage;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.BaseSubscriber;

/**
 * Kafka-specific behaviour of the bus, against the broker the test command started (the shared
 * delivery contract: {@link KafkaDeliveryIT}).
 */
class KafkaBusIT {

    private KafkaFixture kafka;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @BeforeEach
    void setUp() {
        kafka = KafkaFixture.require();
    }

    @AfterEach
    void tearDown() throws Exception {
        Collections.reverse(closeables);
        for (AutoCloseable c : closeables) {
            c.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    private KafkaBus bus(KafkaBusConfig config) {
        KafkaBus bus = KafkaBus.builder().config(config).build();
        closeables.add(() -> bus.closeGracefully().block(Duration.ofSeconds(30)));
        return bus;
    }

    private EchoDriver attach(KafkaBus bus) {
        EchoDriver driver = new EchoDriver();
        Disposable d = driver.attach(bus);
        closeables.add(d::dispose);
        return driver;
    }

    /** turn ids of turn_completed events per stream, in the order they were written. */
    private Map<String, List<String>> completedByStream() {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (ConsumerRecord<String, byte[]> r : kafka.results()) {
            String v = KafkaFixture.value(r);
            if (v.contains("\"turn_completed\"")) {
                out.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(v.replaceAll(".*\"turn_id\":\"([^\"]+)\".*", "$1"));
            }
        }
        return out;
    }


    @Test
    void commits_onlyTheHighestContiguousCompletedOffset() {
        KafkaBus bus = bus(kafka.config().topicPartitions(1).commitInterval(Duration.ofMillis(50)).build());
        bus.start().block();
        for (int i = 0; i < 3; i++) {
            kafka.send("s", EchoDriver.turn("s", "t" + i, "x"));
        }
        List<BusMessage> got = new CopyOnWriteArrayList<>();
        bus.receive().subscribe(got::add);
        await().atMost(Duration.ofSeconds(20)).until(() -> got.size() == 3);
        TopicPartition p0 = new TopicPartition(kafka.prefix + "calls", 0);

        got.get(1).ack().block();
        got.get(2).ack().block();
        // the position stays at the running record 0; the completed 1 and 2 are listed in the metadata
        await().atMost(Duration.ofSeconds(5)).until(() -> kafka.committed().containsKey(p0));
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() ->
                kafka.committed().get(p0).offset() == 0 && kafka.committed().get(p0).metadata().startsWith("tb1:1-2;"));
        got.get(0).ack().block();
        await().atMost(Duration.ofSeconds(5)).until(() -> kafka.committed().containsKey(p0)
                && kafka.committed().get(p0).offset() == 3);
        assertThat(bus.inflight()).isZero();
    }

    @Test
    void receive_honoursDemand_andPausesInsteadOfBuffering() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        KafkaBus bus = KafkaBus.builder().config(kafka.config().maxBufferedRecords(50).maxPollRecords(20).build())
                .meterRegistry(registry).build();
        closeables.add(() -> bus.closeGracefully().block(Duration.ofSeconds(30)));
        bus.start().block();
        for (int i = 0; i < 500; i++) {
            kafka.producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(kafka.prefix + "calls", "s" + (i % 7),
                    EchoDriver.turn("s" + (i % 7), "t" + i, "x").getBytes(StandardCharsets.UTF_8)));
        }
        kafka.producer.flush();
        List<BusMessage> got = new CopyOnWriteArrayList<>();
        BaseSubscriber<BusMessage> sub = new BaseSubscriber<>() {
            @Override
            protected void hookOnSubscribe(org.reactivestreams.Subscription s) {
                s.request(5);
            }

            @Override
            protected void hookOnNext(BusMessage m) {
                got.add(m);
            }
        };
        bus.receive().subscribe(sub);
        await().atMost(Duration.ofSeconds(20)).until(() -> got.size() == 5 && registry.get("toolbus.bus.buffered").gauge().value() >= 50);
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() ->
                got.size() == 5 && registry.get("toolbus.bus.buffered").gauge().value() <= 50 + 20);
        assertThat(registry.get("toolbus.bus.inflight").gauge().value()).isEqualTo(5);
        await().atMost(Duration.ofSeconds(5)).until(() -> registry.get("toolbus.bus.lag").gauge().value() > 0
                && registry.get("toolbus.bus.pending").gauge().value() >= 5); // polled, not complete
        sub.request(495);
        await().atMost(Duration.ofSeconds(20)).until(() -> got.size() == 500);
        // everything polled (lag 0), nothing completed yet (pending 500); then completed (pending 0)
        await().atMost(Duration.ofSeconds(5)).until(() -> registry.get("toolbus.bus.lag").gauge().value() == 0
                && registry.get("toolbus.bus.pending").gauge().value() == 500);
        Flux.fromIterable(got).concatMap(BusMessage::ack).blockLast(Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(10)).until(() -> registry.get("toolbus.bus.pending").gauge().value() == 0
                && registry.get("toolbus.bus.inflight").gauge().value() == 0);
        sub.dispose();
    }


    @Test
    void aSecondInstanceJoiningMidRun_takesPartitionsWithoutLosingOrReorderingTurns() {
        KafkaBus first = bus(kafka.config().topicPartitions(6).build());
        first.start().block(); // six partitions, before the first send
        EchoDriver d1 = attach(first);
        for (int i = 0; i < 300; i++) {
            String stream = "s" + (i % 12);
            kafka.send(stream, EchoDriver.turn(stream, "t" + i, "x"));
            if (i == 100) {
                attach(bus(kafka.config().build()));
            }
        }
        await().atMost(Duration.ofSeconds(60)).until(() ->
                completedByStream().values().stream().mapToLong(l -> new LinkedHashSet<>(l).size()).sum() == 300);
        completedByStream().forEach((stream, turns) -> {
            List<String> firstSeen = new ArrayList<>(new LinkedHashSet<>(turns));
            List<Integer> numbers = firstSeen.stream().map(t -> Integer.parseInt(t.substring(1))).toList();
            assertThat(numbers).as("order of %s", stream).isSorted();
        });
        assertThat(d1.turns.get()).isLessThan(300); // the second instance did part of the work
    }

}
