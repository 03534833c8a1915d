package dev.toolbus.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.policy.PolicyConfig;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.ListToolsEvent;
import dev.toolbus.protocol.ToolsEvent;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolHandler;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/** Dispatch against a local HTTP server that speaks the chat-completions wire. */
class ChatCompletionsDispatchTest {

    /** What the fake model answers: status and body, after an optional delay. */
    record Answer(int status, String body, Duration delay) {
    }

    private DisposableServer server;
    private final AtomicReference<Function<JsonNode, Answer>> behaviour = new AtomicReference<>();
    private final List<JsonNode> requests = new CopyOnWriteArrayList<>();
    private final List<String> authHeaders = new CopyOnWriteArrayList<>();
    private final List<String> lengths = new CopyOnWriteArrayList<>();
    private SimpleMeterRegistry meters;

    @BeforeEach
    void start() {
        meters = new SimpleMeterRegistry();
        server = HttpServer.create().host("127.0.0.1").port(0)
                .route(r -> r.post("/v1/chat/completions", (req, res) -> req.receive().aggregate().asString()
                        .flatMap(body -> {
                            JsonNode json;
                            try {
                                json = Json.mapper().readTree(body);
                            } catch (Exception e) {
                                return Mono.error(e);
                            }
                            requests.add(json);
                            authHeaders.add(String.valueOf(req.requestHeaders().get("Authorization")));
                            lengths.add(String.valueOf(req.requestHeaders().get("Content-Length")) + "/"
                                    + req.requestHeaders().get("Transfer-Encoding") + "/"
                                    + body.getBytes(StandardCharsets.UTF_8).length);
                            Answer a = behaviour.get().apply(json);
                            Mono<Void> send = res.status(a.status()).header("Content-Type", "application/json")
                                    .sendString(Mono.just(a.body())).then();
                            return a.delay().isZero() ? send : Mono.delay(a.delay()).then(send);
                        })))
                .bindNow();
    }

    @AfterEach
    void stop() {
        server.disposeNow();
    }

    private static String content(String text) {
        return "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":" + Json.mapper().valueToTree(text)
                + "}}]}";
    }

    private static String toolCall(String arguments) {
        return "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"x\","
                + "\"type\":\"function\",\"function\":{\"name\":\"choose_tool_groups\",\"arguments\":"
                + Json.mapper().valueToTree(arguments) + "}}]}}]}";
    }

    private static ToolSpec tool(String name, String description) {
        return new ToolSpec(ToolDefinition.builder(name).description(description).build(),
                ToolHandler.sync((a, c) -> ToolResult.text(name)));
    }

    private static final List<PolicyConfig.Group> GROUPS = List.of(
            new PolicyConfig.Group("search", "Web search and pages", List.of("web_search", "fetch_page"), true, null),
            new PolicyConfig.Group("image", "Drawing and image tools", List.of("draw"), true, null),
            new PolicyConfig.Group("admin", "Group administration", List.of("kick_member"), true, null));

    private ToolExecutor executor(Duration timeout, boolean useSummary) {
        ToolRegistry registry = ToolRegistry.create();
        registry.register(tool("web_search", "Searches the web."), ToolSource.PLUGIN);
        registry.register(tool("fetch_page", "Fetches a page."), ToolSource.PLUGIN);
        registry.register(tool("draw", "Draws a picture."), ToolSource.PLUGIN);
        registry.register(tool("kick_member", "Kicks a member."), ToolSource.PLUGIN);
        registry.register(tool("get_time", "The current time."), ToolSource.CORE);
        registry.register(tool("plugin_misc", "An ungrouped plugin tool."), ToolSource.PLUGIN);
        ChatCompletionsDispatch dispatch = ChatCompletionsDispatch.builder()
                .baseUrl("http://127.0.0.1:" + server.port() + "/v1").model("small-model").apiKey("sk-secret-123")
                .timeout(timeout).maxGroups(2).useSummary(useSummary).groups(GROUPS).build();
        // the policy hides kick_member: dispatch may narrow, never widen
        dev.toolbus.spi.ToolPolicy policy = (def, stream, ctx) -> def.name().equals("kick_member")
                ? dev.toolbus.spi.ToolPolicy.Decision.notAvailable("hidden")
                : dev.toolbus.spi.ToolPolicy.Decision.ALLOW;
        return ToolExecutor.builder().registry(registry).policy(policy).meterRegistry(meters)
                .dispatch(dispatch, Duration.ofSeconds(30)).build();
    }

    private static List<String> names(ToolsEvent e) {
        List<String> out = new ArrayList<>();
        for (JsonNode t : e.tools()) {
            out.add(t.path("function").path("name").asText());
        }
        return out;
    }

    private ToolsEvent list(ToolExecutor ex, String stream, String text) {
        return ex.answerListTools(new ListToolsEvent(stream, "r", null, ListToolsEvent.Format.OPENAI, text))
                .block(Duration.ofSeconds(10));
    }

    private double outcome(String o) {
        var c = meters.find("toolbus.dispatch.decisions").tag("outcome", o).counter();
        return c == null ? 0 : c.count();
    }

    private static final List<String> ALL_ALLOWED = List.of("web_search", "fetch_page", "draw", "get_time", "plugin_misc");

    @Test
    void a_json_answer_narrows_to_the_chosen_groups_plus_ungrouped_core_tools() {
        behaviour.set(req -> new Answer(200, content("{\"groups\": [\"image\"]}"), Duration.ZERO));
        ToolsEvent e = list(executor(Duration.ofSeconds(5), true), "s1", "draw me a cat");
        assertThat(names(e)).containsExactly("draw", "get_time");
        JsonNode req = requests.get(0);
        assertThat(req.get("model").asText()).isEqualTo("small-model");
        String system = req.get("messages").get(0).get("content").asText();
        assertThat(system).contains("- search: Web search and pages").contains("- image: Drawing and image tools")
                .doesNotContain("admin"); // a group with no allowed tool is not offered
        assertThat(req.get("messages").get(1).get("content").asText()).isEqualTo("draw me a cat");
        assertThat(authHeaders.get(0)).isEqualTo("Bearer sk-secret-123");
        // sent with its length, not chunked (servers such as Python's http.server cannot read chunks)
        String[] length = lengths.get(0).split("/");
        assertThat(length[0]).isEqualTo(length[2]);
        assertThat(length[1]).isEqualTo("null");
        assertThat(outcome("chosen")).isEqualTo(1);
    }

    @Test
    void a_tool_call_answer_is_read_and_capped_at_max_groups_never_widening() {
        behaviour.set(req -> new Answer(200, toolCall("{\"groups\":[\"admin\",\"search\",\"image\"]}"), Duration.ZERO));
        ToolsEvent e = list(executor(Duration.ofSeconds(5), true), "s1", "search and draw");
        // admin is not offered (its only tool is hidden): search and image, capped at 2
        assertThat(names(e)).containsExactly("web_search", "fetch_page", "draw", "get_time");
        assertThat(names(e)).doesNotContain("kick_member");
    }

    @Test
    void without_summary_the_tools_descriptions_are_offered() {
        behaviour.set(req -> new Answer(200, content("[\"search\"]"), Duration.ZERO));
        ToolsEvent e = list(executor(Duration.ofSeconds(5), false), "s1", "look it up");
        assertThat(names(e)).containsExactly("web_search", "fetch_page", "get_time");
        assertThat(requests.get(0).get("messages").get(0).get("content").asText())
                .contains("- search: web_search (Searches the web.); fetch_page (Fetches a page.)");
    }

    @Test
    void json_among_other_text_is_found() {
        behaviour.set(req -> new Answer(200, content("Sure! ```json\n{\"groups\": [\"search\"]}\n```"), Duration.ZERO));
        assertThat(names(list(executor(Duration.ofSeconds(5), true), "s1", "find"))).contains("web_search");
    }

    @Test
    void every_failure_falls_back_to_the_full_allowed_list() {
        ToolExecutor ex = executor(Duration.ofMillis(300), true);
        behaviour.set(req -> new Answer(200, "this is not json", Duration.ZERO));
        assertThat(names(list(ex, "a", "t1"))).containsExactlyElementsOf(ALL_ALLOWED);
        behaviour.set(req -> new Answer(200, content("I would use the search group."), Duration.ZERO));
        assertThat(names(list(ex, "b", "t2"))).containsExactlyElementsOf(ALL_ALLOWED);
        behaviour.set(req -> new Answer(500, "{\"error\":\"overloaded\"}", Duration.ZERO));
        assertThat(names(list(ex, "c", "t3"))).containsExactlyElementsOf(ALL_ALLOWED);
        behaviour.set(req -> new Answer(200, content("{\"groups\": []}"), Duration.ZERO));
        assertThat(names(list(ex, "d", "t4"))).containsExactlyElementsOf(ALL_ALLOWED); // ChatAI gives no tools here
        behaviour.set(req -> new Answer(200, content("{\"groups\": [\"nonexistent\"]}"), Duration.ZERO));
        assertThat(names(list(ex, "e", "t5"))).containsExactlyElementsOf(ALL_ALLOWED);
        behaviour.set(req -> new Answer(200, content("{\"groups\": [\"search\"]}"), Duration.ofSeconds(3)));
        assertThat(names(list(ex, "f", "t6"))).containsExactlyElementsOf(ALL_ALLOWED);
        assertThat(outcome("fallback_unparsable")).isEqualTo(2);
        assertThat(outcome("fallback_error")).isEqualTo(1);
        assertThat(outcome("fallback_empty")).isEqualTo(2);
        assertThat(outcome("fallback_timeout")).isEqualTo(1);
    }

    @Test
    void an_unreachable_endpoint_falls_back() {
        ToolExecutor ex = executor(Duration.ofSeconds(2), true);
        server.disposeNow();
        assertThat(names(list(ex, "s", "anything"))).containsExactlyElementsOf(ALL_ALLOWED);
        assertThat(outcome("fallback_error")).isEqualTo(1);
    }

    @Test
    void choices_are_cached_per_stream_and_text() {
        behaviour.set(req -> new Answer(200, content("{\"groups\": [\"image\"]}"), Duration.ZERO));
        ToolExecutor ex = executor(Duration.ofSeconds(5), true);
        list(ex, "s1", "draw");
        list(ex, "s1", "draw");
        assertThat(requests).hasSize(1);
        list(ex, "s2", "draw");
        list(ex, "s1", "draw again");
        assertThat(requests).hasSize(3);
        assertThat(outcome("cached")).isEqualTo(1);
    }

    @Test
    void without_text_or_on_the_policy_only_path_nothing_is_asked() {
        behaviour.set(req -> new Answer(200, content("{\"groups\": [\"image\"]}"), Duration.ZERO));
        ToolExecutor ex = executor(Duration.ofSeconds(5), true);
        assertThat(names(list(ex, "s", null))).containsExactlyElementsOf(ALL_ALLOWED);
        assertThat(names(ex.listTools(new ListToolsEvent("s", "r", null, ListToolsEvent.Format.OPENAI, "draw"))))
                .containsExactlyElementsOf(ALL_ALLOWED);
        assertThat(requests).isEmpty();
    }

    @Test
    void the_api_key_never_shows_in_descriptions_or_errors() {
        ChatCompletionsDispatch d = ChatCompletionsDispatch.builder().baseUrl("http://127.0.0.1:" + server.port() + "/v1")
                .model("m").apiKey("sk-secret-123").groups(GROUPS).build();
        assertThat(d.toString()).doesNotContain("sk-secret-123").contains("apiKey=***");
        // a server that echoes the key in its error: the message toolbus logs has it masked
        behaviour.set(req -> new Answer(401, "{\"error\":\"bad key sk-secret-123\"}", Duration.ZERO));
        Throwable err = catchDispatch(d);
        assertThat(err).isInstanceOf(dev.toolbus.spi.ToolDispatch.DispatchException.class)
                .hasMessageContaining("HTTP 401").hasMessageNotContaining("sk-secret-123");
    }

    private Throwable catchDispatch(ChatCompletionsDispatch d) {
        try {
            d.choose(new dev.toolbus.spi.ToolDispatch.Query("s", "t", null,
                    java.util.Map.of("web_search", "x"))).block(Duration.ofSeconds(5));
            return null;
        } catch (RuntimeException e) {
            return e;
        }
    }

    @Test
    void a_huge_answer_is_refused_without_buffering_it_all() {
        String big = content("x".repeat(2 * 1024 * 1024));
        behaviour.set(req -> new Answer(200, big, Duration.ZERO));
        assertThat(names(list(executor(Duration.ofSeconds(5), true), "s", "t"))).containsExactlyElementsOf(ALL_ALLOWED);
        assertThat(outcome("fallback_unparsable")).isEqualTo(1);
        assertThat(big.getBytes(StandardCharsets.UTF_8).length).isGreaterThan(1024 * 1024);
    }

    /**
     * Issue 21 M7: an answer of 900,000 {@code [} cost a parse per bracket (55 s of CPU) on the event
     * loop. The text is now tried at a bounded number of places, each parse gives up at
     * {@value ChatCompletionsDispatch#MAX_NESTING} levels: the answer is unparsable and falls back.
     */
    @Test
    void a_text_of_brackets_is_tried_a_bounded_number_of_times_and_falls_back() {
        String brackets = "[".repeat(900_000);
        assertThat(brackets.length() + 64).isLessThan(1024 * 1024);
        assertThat(ChatCompletionsDispatch.names(brackets)).isNull();
        assertThatThrownBy(() -> ChatCompletionsDispatch.parse(brackets.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(dev.toolbus.spi.ToolDispatch.DispatchException.class)
                .hasMessage("the dispatch answer is not JSON (or nests deeper than 32)");
        behaviour.set(req -> new Answer(200, content(brackets), Duration.ZERO));
        assertThat(names(list(executor(Duration.ofSeconds(10), true), "s", "t"))).containsExactlyElementsOf(ALL_ALLOWED);
        assertThat(outcome("fallback_unparsable")).isEqualTo(1);
        // a group list after 16 other brackets is not looked for
        assertThat(ChatCompletionsDispatch.names("[x] ".repeat(3) + "{\"groups\":[\"search\"]}")).containsExactly("search");
        assertThat(ChatCompletionsDispatch.names("[x] ".repeat(16) + "{\"groups\":[\"search\"]}")).isNull();
    }

    /** Issue 21: concurrent dispatch requests were not capped. One past {@code maxConcurrent} fails at once. */
    @Test
    void requests_in_flight_are_capped_and_one_more_fails_at_once() {
        behaviour.set(req -> new Answer(200, content("{\"groups\": [\"search\"]}"), Duration.ofSeconds(2)));
        ChatCompletionsDispatch d = ChatCompletionsDispatch.builder().baseUrl("http://127.0.0.1:" + server.port() + "/v1")
                .model("m").groups(GROUPS).timeout(Duration.ofSeconds(20)).maxConcurrent(2).build();
        var query = new dev.toolbus.spi.ToolDispatch.Query("s", "t", null, java.util.Map.of("web_search", "x"));
        var first = d.choose(query).toFuture();
        var second = d.choose(query).toFuture();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> requests.size() == 2);
        assertThat(d.inFlight()).isEqualTo(2);
        assertThatThrownBy(() -> d.choose(query).block(Duration.ofSeconds(1)))
                .isInstanceOf(dev.toolbus.spi.ToolDispatch.DispatchException.class)
                .hasMessage("too many dispatch requests in flight (at most 2); this one was not sent");
        assertThat(first.join().groups()).containsExactly("search");
        assertThat(second.join().groups()).containsExactly("search");
        assertThat(requests).as("the refused one never reached the model").hasSize(2);
        // a request leaves the count when its exchange ends, which may come just after its answer was handed on
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> d.inFlight() == 0);
        assertThat(d.choose(query).block(Duration.ofSeconds(10)).groups()).containsExactly("search");
        assertThatThrownBy(() -> ChatCompletionsDispatch.builder().maxConcurrent(0))
                .hasMessage("maxConcurrent must be 1..1024, got 0");
    }
}
