package dev.toolbus.policy;

import static dev.toolbus.policy.Fixtures.tool;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.Visibility;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** tool_search through a real executor: search, then call; per stream; only what the session may use. */
class ToolSearchTest {

    private ToolRegistry registry;
    private ToolExecutor executor;

    @BeforeEach
    void setUp() {
        registry = ToolRegistry.create();
        registry.register(tool("get_weather", b -> b.visibility(Visibility.DEFERRED)
                .description("Current weather for a city")), ToolSource.PLUGIN);
        registry.register(tool("weather_alerts", b -> b.visibility(Visibility.DEFERRED)
                .description("Storm warnings").requiredPermission("admin")), ToolSource.PLUGIN);
        registry.register(tool("stock_quote", b -> b.visibility(Visibility.DEFERRED)
                .description("Share prices")), ToolSource.PLUGIN);
        registry.register(tool("weather_visible", b -> b.description("weather, always listed")), ToolSource.PLUGIN);
        SwitchablePolicy policy = ToolPolicies.switchable(ToolPolicies.from(PolicyConfig.defaults(), registry));
        registry.register(ToolSearch.spec(registry, policy, DescriptionLocale.EN), ToolSource.CORE);
        executor = ToolExecutor.builder().registry(registry).policy(policy).build();
    }

    @AfterEach
    void tearDown() {
        executor.close();
    }

    private List<ToolResultEvent> run(String stream, String permission, ToolCall... calls) {
        CallContext ctx = CallContext.builder().userId("u").groupId("").platform("").permission(permission).channel("")
                .provider("").model("").agentId("").build();
        List<ToolResultEvent> out = new ArrayList<>();
        executor.execute(new ToolCallsEvent(stream, "t", List.of(calls), ctx, null)).toStream()
                .forEach(e -> {
                    if (e instanceof ToolResultEvent r) {
                        out.add(r);
                    }
                });
        return out;
    }

    private static ToolCall call(String name, String args) {
        return ToolCall.ofJson("c-" + name, name, args);
    }

    @Test
    void deferredTool_isNotAvailableUntilFound_thenCallableOnThatStreamOnly() {
        assertThat(run("s1", "member", call("get_weather", "{}")).get(0).error().code())
                .isEqualTo(ErrorCode.NOT_AVAILABLE);
        ToolResultEvent found = run("s1", "member", call("tool_search", "{\"query\":\"weather\"}")).get(0);
        assertThat(found.isError()).isFalse();
        JsonNode data = (JsonNode) found.data();
        List<String> names = new ArrayList<>();
        data.get("tools").forEach(t -> names.add(t.get("name").asText()));
        // weather_alerts needs admin; weather_visible is not deferred
        assertThat(names).containsExactly("get_weather");
        assertThat(data.get("tools").get(0).get("parameters").get("type").asText()).isEqualTo("object");
        assertThat(found.content()).contains("get_weather", "can be called now");
        assertThat(run("s1", "member", call("get_weather", "{}")).get(0).content()).isEqualTo("get_weather ran");
        assertThat(run("s2", "member", call("get_weather", "{}")).get(0).error().code())
                .isEqualTo(ErrorCode.NOT_AVAILABLE);
    }

    @Test
    void search_returnsOnlyWhatTheSessionMayCall_rankedByName() {
        List<String> names = new ArrayList<>();
        ((JsonNode) run("s1", "admin", call("tool_search", "{\"query\":\"weather\"}")).get(0).data()).get("tools")
                .forEach(t -> names.add(t.get("name").asText()));
        assertThat(names).as("name and description beat name only").containsExactly("get_weather", "weather_alerts");
        assertThat(run("s1", "member", call("weather_alerts", "{}")).get(0).error().code())
                .as("found by an admin, called by a member").isEqualTo(ErrorCode.PERMISSION_DENIED);
    }

    @Test
    void search_exactName_limit_andNoMatch() {
        List<String> names = new ArrayList<>();
        ((JsonNode) run("s1", "admin", call("tool_search", "{\"query\":\"stock_quote\"}")).get(0).data()).get("tools")
                .forEach(t -> names.add(t.get("name").asText()));
        assertThat(names).containsExactly("stock_quote");
        JsonNode limited = (JsonNode) run("s1", "admin", call("tool_search", "{\"query\":\"weather\",\"limit\":1}"))
                .get(0).data();
        assertThat(limited.get("tools")).hasSize(1);
        ToolResultEvent none = run("s1", "admin", call("tool_search", "{\"query\":\"spaceship\"}")).get(0);
        assertThat(none.isError()).isFalse();
        assertThat(none.content()).isEqualTo("No tools match 'spaceship'.");
    }

    @Test
    void deferredTools_areNeverListed() {
        var listed = executor.listTools(new dev.toolbus.protocol.ListToolsEvent("s1", "r", CallContext.EMPTY, null));
        List<String> names = new ArrayList<>();
        listed.tools().forEach(t -> names.add(t.get("function").get("name").asText()));
        assertThat(names).containsExactly("weather_visible", "tool_search");
        run("s1", "member", call("tool_search", "{\"query\":\"weather\"}"));
        names.clear();
        executor.listTools(new dev.toolbus.protocol.ListToolsEvent("s1", "r", CallContext.EMPTY, null)).tools()
                .forEach(t -> names.add(t.get("function").get("name").asText()));
        assertThat(names).as("found tools come back through tool_search, not the listing")
                .containsExactly("weather_visible", "tool_search");
    }
}
