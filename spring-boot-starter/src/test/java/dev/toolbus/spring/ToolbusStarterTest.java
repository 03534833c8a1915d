package dev.toolbus.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.tool.Param;
import dev.toolbus.tool.Tool;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** A real Spring Boot application (WebFlux, Actuator) with the starter on its classpath. */
class ToolbusStarterTest {

    private static final String TOKEN = "spring-secret";
    private static ConfigurableApplicationContext context;
    private static final HttpClient http = HttpClient.newHttpClient();

    @SpringBootApplication
    @Import({Greeter.class, Endpoint.class})
    static class App {
    }

    /** Tools on an ordinary Spring bean. */
    @Component
    static class Greeter {
        @Tool(name = "greet", description = "Greets someone.")
        public String greet(@Param(description = "Who to greet.") String name) {
            return "hello " + name;
        }

        @Tool(name = "secret_tool", description = "Denied by the properties.")
        public String secret() {
            return "should not run";
        }
    }

    /** A WebFlux endpoint of the application that runs a tool through the executor. */
    @RestController
    static class Endpoint {
        private final ToolExecutor executor;

        Endpoint(ToolExecutor executor) {
            this.executor = executor;
        }

        @GetMapping("/greet")
        Mono<String> greet(@RequestParam String name) {
            ToolCallsEvent turn = ToolCallsEvent.of("web", "t-" + name,
                    List.of(ToolCall.of("c1", "greet", Json.mapper().createObjectNode().put("name", name))));
            return executor.execute(turn).ofType(ToolResultEvent.class).next().map(ToolResultEvent::content);
        }
    }

    @BeforeAll
    static void start() {
        context = new SpringApplication(App.class).run(
                "--server.port=0",
                "--management.endpoints.web.exposure.include=health",
                "--management.endpoint.health.show-details=always",
                "--toolbus.execution.maxParallel=7",
                "--toolbus.execution.maxResultChars=200",
                "--toolbus.tools.deny[0]=secret_tool",
                "--toolbus.limits.rules[0].name=greets-per-turn",
                "--toolbus.limits.rules[0].tools[0]=greet",
                "--toolbus.limits.rules[0].maxCallsPerTool=2",
                "--toolbus.gateway.enabled=true",
                "--toolbus.gateway.port=0",
                "--toolbus.gateway.token=" + TOKEN);
    }

    @AfterAll
    static void stop() {
        if (context != null && context.isActive()) {
            context.close();
        }
    }

    private static String base() {
        return "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
    }

    private static HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void the_properties_configure_the_executor_with_the_beans_tools() {
        ToolExecutor executor = context.getBean(ToolExecutor.class);
        assertThat(executor.settings().maxParallel()).isEqualTo(7);
        List<OutboundEvent> events = executor.execute(ToolCallsEvent.of("s", "t1", List.of(
                ToolCall.of("a", "greet", Json.mapper().createObjectNode().put("name", "Ada")),
                ToolCall.of("b", "secret_tool", Json.mapper().createObjectNode())))).collectList().block();
        ToolResultEvent greet = (ToolResultEvent) events.get(0);
        ToolResultEvent denied = (ToolResultEvent) events.get(1);
        assertThat(greet.content()).isEqualTo("hello Ada");
        assertThat(denied.isError()).isTrue();
        assertThat(denied.error().code().name()).isEqualTo("NOT_AVAILABLE");
        MeterRegistry meters = context.getBean(MeterRegistry.class);
        assertThat(meters.find("toolbus.tool.calls").tag("tool", "greet").counters()).isNotEmpty();
    }

    @Test
    void the_limits_section_applies_to_the_executor() {
        ToolExecutor executor = context.getBean(ToolExecutor.class);
        List<ToolResultEvent> r = executor.execute(ToolCallsEvent.of("s", "t-limits", List.of(
                        ToolCall.of("a", "greet", Json.mapper().createObjectNode().put("name", "A")),
                        ToolCall.of("b", "greet", Json.mapper().createObjectNode().put("name", "B")),
                        ToolCall.of("c", "greet", Json.mapper().createObjectNode().put("name", "C")))))
                .ofType(ToolResultEvent.class).collectList().block();
        assertThat(r).extracting(ToolResultEvent::isError).containsExactly(false, false, true);
        assertThat(r.get(2).error().code().name()).isEqualTo("LIMIT_EXCEEDED");
        assertThat(r.get(2).content()).contains("greets-per-turn");
    }

    @Test
    void a_webflux_endpoint_calls_a_tool_through_the_executor() throws Exception {
        HttpResponse<String> r = get(base() + "/greet?name=Grace");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("hello Grace");
    }

    @Test
    void the_gateway_started_from_properties_serves_the_same_tools() throws Exception {
        String url = context.getBean(ToolbusLifecycle.class).gatewayUrl();
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url + "/v1/turns"))
                .header("Authorization", "Bearer " + TOKEN)
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"type\":\"tool_call\",\"stream_id\":\"gw\",\"name\":\"greet\",\"arguments\":{\"name\":\"Linus\"}}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode events = Json.mapper().readTree(r.body());
        assertThat(events.get(0).get("content").asText()).isEqualTo("hello Linus");
        HttpResponse<String> noToken = get(url + "/v1/tools");
        assertThat(noToken.statusCode()).isEqualTo(401);
    }

    @Test
    void actuator_health_shows_toolbus() throws Exception {
        HttpResponse<String> r = get(base() + "/actuator/health/toolbus");
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode h = Json.mapper().readTree(r.body());
        assertThat(h.get("status").asText()).isEqualTo("UP");
        assertThat(h.get("details").get("tools").asInt()).isGreaterThanOrEqualTo(2);
        assertThat(h.get("details").get("gateway").asText()).startsWith("http://127.0.0.1:");
    }

    @Test
    void the_warnings_of_bad_values_are_those_of_toolbus_yaml() {
        ToolbusProperties p = context.getBean(ToolbusProperties.class);
        assertThat(p.warnings()).isEmpty();
        assertThat(p.config().tools().deny()).containsExactly("secret_tool");
    }

    @Test
    void closing_the_context_closes_the_executor_gracefully() {
        ConfigurableApplicationContext other = new SpringApplication(App.class).run("--server.port=0",
                "--spring.main.web-application-type=none", "--toolbus.execution.timeout=5000");
        ToolExecutor executor = other.getBean(ToolExecutor.class);
        other.close();
        List<OutboundEvent> events = executor.execute(ToolCallsEvent.of("s", "late", List.of(
                ToolCall.of("a", "greet", Json.mapper().createObjectNode().put("name", "x"))))).collectList().block();
        assertThat(((ToolResultEvent) events.get(0)).error().code().name()).isEqualTo("REJECTED");
        assertThat(Map.of("timeout", executor.settings().timeout().toMillis())).containsEntry("timeout", 5000L);
    }

    @Test
    void a_long_result_is_cut_and_read_back_with_read_tool_result() {
        ToolExecutor executor = context.getBean(ToolExecutor.class);
        String name = "n".repeat(500);
        ToolResultEvent cut = (ToolResultEvent) executor.execute(ToolCallsEvent.of("s-long", "t1", List.of(
                ToolCall.of("long1", "greet", Json.mapper().createObjectNode().put("name", name))))).blockFirst();
        assertThat(cut.content()).startsWith("hello " + "n".repeat(194) + "\n\n[toolbus: this result is 506 characters")
                .contains("read_tool_result with {\"tool_call_id\": \"long1\", \"offset\": 200}");
        ToolResultEvent rest = (ToolResultEvent) executor.execute(ToolCallsEvent.of("s-long", "t2", List.of(
                ToolCall.of("r1", "read_tool_result", Json.mapper().createObjectNode().put("tool_call_id", "long1")
                        .put("offset", 200))))).blockFirst();
        assertThat(rest.isError()).as(rest.content()).isFalse();
        assertThat(rest.content()).startsWith("n".repeat(200)).contains("characters 200 to 400 of 506");
    }
}
