package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.bus.testing.NodeExamples;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.method.Tools;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** docs/examples/node/kafka-turn.js (kafkajs) against a real broker and an executor on this bus. */
class NodeExampleClientTest {

    @Test
    void kafkaExampleClient_publishesATurnAndPrintsItsResults() throws Exception {
        try (KafkaTestSupport kafka = KafkaTestSupport.require()) {
            NodeExamples.require();
            KafkaBus bus = KafkaBus.builder().config(kafka.config().build()).build();
            ToolExecutor executor = ToolExecutor.builder()
                    .tool(Tools.function("echo", "Returns its arguments", json -> json)).build();
            try {
                bus.start().block(Duration.ofSeconds(30));
                executor.attach(bus);
                NodeExamples.Result r = NodeExamples.run(List.of("node", "kafka-turn.js", "node:chat:1", "hi there"),
                        Map.of("TOOLBUS_KAFKA_BOOTSTRAP", kafka.bootstrap,
                                "TOOLBUS_CALLS_TOPIC", kafka.prefix + "calls",
                                "TOOLBUS_RESULTS_TOPIC", kafka.prefix + "results"), 90);
                assertThat(r.exitCode()).as(r.stderr()).isZero();
                List<String> lines = r.stdout().lines().toList();
                assertThat(lines).hasSize(3);
                assertThat(lines.get(0)).contains("\"type\":\"tool_result\"", "\"stream_id\":\"node:chat:1\"",
                        "-1\"", "hi there", "\"is_error\":false");
                assertThat(lines.get(1)).contains("\"type\":\"tool_result\"", "-2\"", "HI THERE");
                assertThat(lines.get(2)).contains("\"type\":\"turn_completed\"", "\"error_count\":0");
            } finally {
                bus.closeGracefully().block(Duration.ofSeconds(30));
                executor.close();
            }
        }
    }
}
