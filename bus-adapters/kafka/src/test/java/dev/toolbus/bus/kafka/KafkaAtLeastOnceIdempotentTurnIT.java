package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.bus.tck.EchoDriver;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * At least once the bus keeps no ledger of its own: the executor's in-memory one answers a turn sent
 * again to the same instance with its events marked replayed, without running it.
 */
class KafkaAtLeastOnceIdempotentTurnIT {

    private KafkaFixture kafka;

    @BeforeEach
    void setUp() {
        kafka = KafkaFixture.require();
    }

    @AfterEach
    void tearDown() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void aRepeatedTurnIsReplayedByTheExecutorsLedger_andTheToolRunsOnce() {
        KafkaBus bus = KafkaBus.builder().config(kafka.config().topicPartitions(1)
                .delivery(KafkaDelivery.AT_LEAST_ONCE).build()).build();
        assertThat(bus.turnState().ledger()).isNull(); // no ledger facet: the executor's applies
        bus.start().block(); // its single partition, before the first send
        AtomicInteger runs = new AtomicInteger();
        ToolSpec echo = new ToolSpec(ToolDefinition.builder("echo").description("Echoes and counts")
                .parameter(ToolParameter.of("text", ToolParamType.STRING, "text")).build(),
                (a, c) -> Mono.fromSupplier(() -> ToolResult.text(a.string("text") + " " + runs.incrementAndGet())));
        ToolExecutor executor = ToolExecutor.builder().tool(echo)
                .settings(dev.toolbus.executor.settings.ExecutionSettings.builder().cacheResults(false).build()).build();
        Disposable loop = executor.attach(bus);
        try {
            kafka.send("s", EchoDriver.turn("s", "t1", "a"));
            await().atMost(Duration.ofSeconds(30)).until(() -> kafka.results().size() == 2);
            kafka.send("s", EchoDriver.turn("s", "t1", "a")); // the client retried
            await().atMost(Duration.ofSeconds(30)).until(() -> kafka.results().size() == 4);
            List<String> events = kafka.results().stream().map(KafkaFixture::value).toList();
            assertThat(runs).hasValue(1);
            assertThat(events.get(0)).contains("\"content\":\"a 1\"").doesNotContain("replayed");
            assertThat(events.get(2)).isEqualTo("{\"replayed\":true," + events.get(0).substring(1));
            assertThat(events.get(3)).isEqualTo("{\"replayed\":true," + events.get(1).substring(1));
        } finally {
            loop.dispose();
            bus.closeGracefully().block(Duration.ofSeconds(30));
            executor.close();
        }
    }
}
