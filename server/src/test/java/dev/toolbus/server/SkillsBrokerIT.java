package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.bus.tck.Brokers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Supplier;
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
import org.junit.jupiter.api.io.TempDir;

/**
 * list_skills on the Redis and Kafka buses of a real {@code toolbus serve --skills}: answered on the
 * conversation's results like list_tools, and after a load_skill call the answer names the loaded skill.
 */
class SkillsBrokerIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration PROMPTLY = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    private ToolbusProcess server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private Path skills() throws Exception {
        Path root = Files.createDirectories(dir.resolve("skills/ops"));
        Files.writeString(root.resolve("deploy.skill.yaml"), "name: deploy\ndescription: Deploy the bot\n"
                + "content: |\n  1. build\n  2. ship\n");
        return root.getParent();
    }

    private static String listSkills(String stream, String id) {
        return "{\"type\":\"list_skills\",\"stream_id\":\"" + stream + "\",\"request_id\":\"" + id + "\"}";
    }

    private static String loadSkill(String stream) {
        return "{\"type\":\"tool_call\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"t1\",\"tool_call_id\":\"c1\","
                + "\"name\":\"load_skill\",\"arguments\":{\"name\":\"deploy\"}}";
    }

    /** list_skills → load_skill → list_skills, each waited for, over send/receive of one bus. */
    private static void exercise(String stream, Consumer<String> send, Supplier<List<JsonNode>> events) {
        send.accept(listSkills(stream, "r1"));
        JsonNode first = awaitOne(events, "skills", "r1");
        assertThat(first.path("mode").asText()).isEqualTo("auto");
        assertThat(first.path("skills").get(0).path("name").asText()).isEqualTo("deploy");
        assertThat(first.path("loaded")).isEmpty();
        send.accept(loadSkill(stream));
        assertThat(awaitOne(events, "tool_result", "c1").path("is_error").asBoolean()).isFalse();
        send.accept(listSkills(stream, "r2"));
        JsonNode again = awaitOne(events, "skills", "r2");
        assertThat(again.path("loaded").get(0).asText()).isEqualTo("deploy");
        assertThat(again.path("documents").get(0).path("reason").asText()).isEqualTo("loaded");
    }

    private static JsonNode awaitOne(Supplier<List<JsonNode>> events, String type, String id) {
        JsonNode[] found = new JsonNode[1];
        await().atMost(PROMPTLY).until(() -> {
            for (JsonNode e : events.get()) {
                if (e.path("type").asText().equals(type) && (id.equals(e.path("request_id").asText())
                        || id.equals(e.path("tool_call_id").asText()))) {
                    found[0] = e;
                    return true;
                }
            }
            return false;
        });
        return found[0];
    }

    @Test
    void listSkillsOnRedis() throws Exception {
        String url = Brokers.redisUrl();
        String db = url + (url.endsWith("/") ? "" : "/") + "8";
        RedisClient client = RedisClient.create(db);
        try (StatefulRedisConnection<String, String> conn = client.connect()) {
            var redis = conn.sync();
            redis.flushdb();
            String stream = "it:" + UUID.randomUUID();
            server = ToolbusProcess.start("skills-redis", "serve", "--bus", db, "--skills", skills().toString(),
                    "--instance", "it-skills-redis");
            exercise(stream, e -> redis.xadd("toolbus:calls", Map.of("event", e)), () -> {
                List<JsonNode> out = new ArrayList<>();
                for (StreamMessage<String, String> m : redis.xrange("toolbus:results:" + stream,
                        io.lettuce.core.Range.create("-", "+"))) {
                    out.add(read(m.getBody().get("event")));
                }
                return out;
            });
            server.terminate();
            server.awaitExit(Duration.ofSeconds(60));
        } finally {
            client.shutdown();
        }
    }

    @Test
    void listSkillsOnKafka() throws Exception {
        String bootstrap = Brokers.kafkaBootstrap();
        String stream = "it:" + UUID.randomUUID();
        server = ToolbusProcess.start("skills-kafka", "serve", "--bus", "kafka://" + bootstrap, "--skills",
                skills().toString(), "--instance", "it-skills-kafka", "--group", "it-" + UUID.randomUUID());
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        cp.put(ConsumerConfig.GROUP_ID_CONFIG, "it-reader-" + UUID.randomUUID());
        cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        List<JsonNode> events = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp);
             KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp)) {
            consumer.subscribe(List.of("toolbus.results"));
            exercise(stream, e -> {
                try {
                    producer.send(new ProducerRecord<>("toolbus.calls", stream, e)).get();
                } catch (Exception ex) {
                    throw new IllegalStateException(ex);
                }
            }, () -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    if (stream.equals(r.key())) {
                        events.add(read(r.value()));
                    }
                }
                return events;
            });
        }
        server.terminate();
        server.awaitExit(Duration.ofSeconds(60));
    }

    private static JsonNode read(String s) {
        try {
            return JSON.readTree(s);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
