package dev.toolbus.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.assembly.Toolbus;
import dev.toolbus.bus.redis.RedisStreamsBus;
import dev.toolbus.bus.tck.Brokers;
import dev.toolbus.protocol.Json;
import dev.toolbus.tool.Param;
import dev.toolbus.tool.Tool;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;

/**
 * A real Spring Boot application attached to a real Redis from {@code toolbus.bus.*} alone: a turn
 * written to the calls stream runs the {@code @Tool} of a bean, its events land in the results stream
 * with the bot core's trace context, the meters reach the application's registry and Actuator, and
 * the health shows the bus. An integration test: it fails without the Redis of the test command
 * ({@code start_services}), and is skipped with {@code -Dtoolbus.brokers=off}.
 */
class ToolbusBusStarterIT {

    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    private static final HttpClient http = HttpClient.newHttpClient();
    private static final String prefix = "spring" + UUID.randomUUID().toString().substring(0, 8) + ":";
    private static ConfigurableApplicationContext context;
    private static RedisClient redisClient;
    private static StatefulRedisConnection<String, String> redis;

    @SpringBootApplication
    @Import(Greeter.class)
    static class App {
    }

    @Component
    static class Greeter {
        @Tool(name = "greet", description = "Greets someone.")
        public String greet(@Param(description = "Who to greet.") String name) {
            return "hello " + name;
        }
    }

    @BeforeAll
    static void start() {
        String url = Brokers.redisUrl();
        redisClient = RedisClient.create(url);
        redis = redisClient.connect();
        context = new SpringApplication(App.class).run(
                "--server.port=0",
                "--management.endpoints.web.exposure.include=health,metrics",
                "--management.endpoint.health.show-details=always",
                "--toolbus.bus.type=redis",
                "--toolbus.bus.url=" + url,
                "--toolbus.bus.calls=" + prefix + "calls",
                "--toolbus.bus.results=" + prefix + "results:{stream_id}",
                "--toolbus.bus.group=" + prefix + "group",
                "--toolbus.bus.redis.claim-min-idle-ms=4000",
                "--toolbus.bus.redis.claim-interval-ms=1000");
    }

    @AfterAll
    static void stop() {
        if (context != null && context.isActive()) {
            context.close();
        }
        if (redis != null) {
            redis.close();
            redisClient.shutdown();
        }
    }

    private static String base() {
        return "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
    }

    private static JsonNode get(String path) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
        return Json.mapper().readTree(r.body());
    }

    private static List<JsonNode> results(String stream) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (StreamMessage<String, String> m : redis.sync().xrange(prefix + "results:" + stream, Range.create("-", "+"))) {
            out.add(Json.mapper().readTree(m.getBody().get("event")));
        }
        return out;
    }

    @Test
    void aTurnOnTheConfiguredRedisRunsTheBeansToolAndIsAnsweredThere() throws Exception {
        // a stream of this run only: toolbus's turn ledger on this Redis outlives the run, and would
        // answer an earlier run's turn from its record
        String stream = prefix + "bus-1";
        redis.sync().xadd(prefix + "calls", Map.of("event", "{\"type\":\"tool_calls\",\"stream_id\":\"" + stream
                + "\",\"turn_id\":\"t1\",\"calls\":[{\"tool_call_id\":\"c1\",\"name\":\"greet\",\"arguments\":"
                + "{\"name\":\"Ada\"}}],\"traceparent\":\"" + TRACEPARENT + "\"}"));
        List<JsonNode> events = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            events.clear();
            events.addAll(results(stream));
            return events.stream().anyMatch(e -> e.path("type").asText().equals("turn_completed"));
        });
        assertThat(events).extracting(e -> e.path("type").asText()).containsExactly("tool_result", "turn_completed");
        assertThat(events.get(0).path("content").asText()).isEqualTo("hello Ada");
        assertThat(events).allSatisfy(e -> assertThat(e.has("replayed")).as("run, not replayed").isFalse());
        assertThat(events).allSatisfy(e -> assertThat(e.path("traceparent").asText())
                .startsWith("00-4bf92f3577b34da6a3ce929d0e0e4736-"));

        // the call is counted in the application's registry (once the call has ended, which may be just
        // after its events were written), and Actuator shows it
        MeterRegistry meters = context.getBean(MeterRegistry.class);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> !meters.find("toolbus.tool.calls").tag("tool", "greet").counters().isEmpty());
        JsonNode metric = get("/actuator/metrics/toolbus.tool.calls?tag=tool:greet");
        assertThat(metric.path("measurements").get(0).path("value").asDouble()).isGreaterThanOrEqualTo(1.0);

        // bus.redis reaches the bus, and its turn state's gauges reach the application's registry
        RedisStreamsBus bus = (RedisStreamsBus) context.getBean(Toolbus.class).bus();
        assertThat(bus.config().claimMinIdle()).isEqualTo(Duration.ofSeconds(4));
        assertThat(bus.config().claimInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(meters.find("toolbus.bus.state.records").tag("facet", "journal").tag("bus", "redis").gauge())
                .as("the Redis state's journal").isNotNull();

        JsonNode health = get("/actuator/health/toolbus");
        assertThat(health.path("status").asText()).isEqualTo("UP");
        assertThat(health.path("details").path("bus").asText()).isEqualTo("redis");
    }
}
