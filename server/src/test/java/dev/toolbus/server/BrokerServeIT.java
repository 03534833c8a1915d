package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.bus.tck.Brokers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code toolbus serve --bus redis://… | kafka://… --sample-tools} as a real process on the real
 * brokers that scripts/test.sh starts: a turn published as a bot core would is answered on the
 * conversation's results, and SIGTERM stops the instance after draining.
 */
class BrokerServeIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private ToolbusProcess server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static String turn(String stream) {
        return "{\"type\":\"tool_calls\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"t1\",\"calls\":["
                + "{\"tool_call_id\":\"c1\",\"name\":\"add\",\"arguments\":{\"a\":2,\"b\":40}},"
                + "{\"tool_call_id\":\"c2\",\"name\":\"draw\",\"arguments\":{\"label\":\"x\"}}]}";
    }

    @Test
    void servesTurnsOnRedis() throws Exception {
        String url = Brokers.redisUrl();
        String db = url + (url.endsWith("/") ? "" : "/") + "7";
        RedisClient client = RedisClient.create(db);
        try (StatefulRedisConnection<String, String> conn = client.connect()) {
            var redis = conn.sync();
            redis.flushdb();
            String stream = "it:" + UUID.randomUUID();
            // published before any instance runs: the backlog is executed once one starts
            redis.xadd("toolbus:calls", Map.of("event", turn(stream)));
            server = ToolbusProcess.start("serve-redis", "serve", "--bus", db, "--sample-tools",
                    "--instance", "it-redis-1");
            List<JsonNode> events = new ArrayList<>();
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                events.clear();
                for (StreamMessage<String, String> m : redis.xrange("toolbus:results:" + stream,
                        io.lettuce.core.Range.create("-", "+"))) {
                    events.add(JSON.readTree(m.getBody().get("event")));
                }
                return events.stream().anyMatch(e -> e.path("type").asText().equals("turn_completed"));
            });
            assertThat(events).extracting(e -> e.path("type").asText())
                    .containsExactly("tool_result", "tool_result", "user_message", "turn_completed");
            assertThat(events.get(0).path("data").path("sum").asInt()).isEqualTo(42);
            await().atMost(Duration.ofSeconds(30)).until(() -> redis.xpending("toolbus:calls", "toolbus")
                    .getCount() == 0);
            server.terminate();
            server.awaitExit(Duration.ofSeconds(60));
            assertThat(server.stderr()).doesNotContain("Exception in thread \"main\"");
        } finally {
            client.shutdown();
        }
    }

    @Test
    void servesTurnsOnKafka() throws Exception {
        String bootstrap = Brokers.kafkaBootstrap();
        String stream = "it:" + UUID.randomUUID();
        server = ToolbusProcess.start("serve-kafka", "serve", "--bus", "kafka://" + bootstrap, "--sample-tools",
                "--instance", "it-kafka-1", "--group", "it-" + UUID.randomUUID());
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
            producer.send(new ProducerRecord<>("toolbus.calls", stream, turn(stream))).get();
        }
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        cp.put(ConsumerConfig.GROUP_ID_CONFIG, "it-reader-" + UUID.randomUUID());
        cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        List<JsonNode> events = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp)) {
            consumer.subscribe(List.of("toolbus.results"));
            await().atMost(Duration.ofSeconds(90)).until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    if (stream.equals(r.key())) {
                        events.add(JSON.readTree(r.value()));
                    }
                }
                return events.stream().anyMatch(e -> e.path("type").asText().equals("turn_completed"));
            });
        }
        assertThat(events).extracting(e -> e.path("type").asText())
                .containsExactly("tool_result", "tool_result", "user_message", "turn_completed");
        server.terminate();
        server.awaitExit(Duration.ofSeconds(60));
    }
}
