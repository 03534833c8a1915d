package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.tool.Tool;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import dev.toolbus.tool.method.Tools;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** A tool's output schema: results whose data does not validate become {@code INVALID_OUTPUT}. */
class ToolExecutorOutputSchemaTest {

    private static ObjectNode schema(String json) {
        try {
            return (ObjectNode) Json.mapper().readTree(json);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static final String TOTAL = "{\"type\":\"object\",\"required\":[\"total\"],"
            + "\"properties\":{\"total\":{\"type\":\"integer\",\"minimum\":0},\"items\":{\"type\":\"array\","
            + "\"items\":{\"type\":\"object\",\"required\":[\"sku\"],\"properties\":{\"sku\":{\"type\":\"string\"}}}}}}";

    private static ToolSpec returning(String name, ToolResult result) {
        return new ToolSpec(ToolDefinition.builder(name).description("d").outputSchema(schema(TOTAL)).build(),
                (a, c) -> Mono.just(result));
    }

    private static ToolResultEvent run(ToolSpec spec) {
        List<OutboundEvent> out = ToolExecutor.builder().instanceId("o1").tool(spec).build()
                .execute(turn("s", "t", call("c1", spec.definition().name(), "{}"))).collectList()
                .block(Duration.ofSeconds(5));
        return TestTools.results(out).get(0);
    }

    @Test
    void validData_passes() {
        ToolResultEvent r = run(returning("ok", ToolResult.builder().content("fine")
                .data(Map.of("total", 3, "items", List.of(Map.of("sku", "a")))).build()));
        assertThat(r.isError()).isFalse();
        assertThat(r.content()).isEqualTo("fine");
    }

    @Test
    void invalidData_isInvalidOutput_namingThePath() {
        ToolResultEvent r = run(returning("bad", ToolResult.builder().content("x")
                .data(Map.of("total", -1, "items", List.of(Map.of("sku", 5)))).build()));
        assertThat(r.error().code()).isEqualTo(ErrorCode.INVALID_OUTPUT);
        assertThat(r.content()).startsWith("The result of tool bad does not match its output schema: ")
                .contains("data.total: must be >= 0").contains("data.items[0].sku");
    }

    @Test
    void missingRequiredProperty_namesIt() {
        ToolResultEvent r = run(returning("bad", ToolResult.builder().content("x").data(Map.of("items", List.of()))
                .build()));
        assertThat(r.error().code()).isEqualTo(ErrorCode.INVALID_OUTPUT);
        assertThat(r.content()).contains("data: ").contains("total");
    }

    @Test
    void noData_isInvalidOutput() {
        ToolResultEvent r = run(returning("none", ToolResult.text("just text")));
        assertThat(r.error().code()).isEqualTo(ErrorCode.INVALID_OUTPUT);
        assertThat(r.content()).isEqualTo("The result of tool none has no data, though the tool declares an output schema.");
    }

    @Test
    void anErrorResult_isNotValidated() {
        ToolResultEvent r = run(returning("err", ToolResult.error("upstream down")));
        assertThat(r.error().code()).isEqualTo(ErrorCode.TOOL_ERROR);
        assertThat(r.content()).contains("upstream down");
    }

    @Test
    void anInvalidOutputSchema_isRefusedAtRegistration() {
        ToolSpec bad = new ToolSpec(ToolDefinition.builder("broken").description("d")
                .outputSchema(schema("{\"type\":\"no-such-type\"}")).build(), (a, c) -> Mono.just(ToolResult.text("x")));
        ToolExecutor ex = ToolExecutor.builder().instanceId("o2").tool(bad).build();
        List<OutboundEvent> out = ex.execute(turn("s", "t", call("c1", "broken", "{}"))).collectList()
                .block(Duration.ofSeconds(5));
        assertThat(TestTools.results(out).get(0).error().code()).isEqualTo(ErrorCode.UNKNOWN_TOOL);
    }

    record Line(String sku, int qty) {
    }

    record Order(String id, long total, List<Line> lines, Boolean paid) {
    }

    /** Tools whose output schema comes from their return type. */
    public static final class Shop {
        volatile Order next;

        @Tool(name = "order", description = "An order")
        public Order order() {
            return next;
        }

        @Tool(name = "order_async", description = "An order, later")
        public Mono<Order> orderAsync() {
            return Mono.justOrEmpty(next);
        }

        @Tool(name = "count", description = "Given schema", outputSchema = "{\"type\":\"integer\",\"minimum\":1}")
        public int count() {
            return 0;
        }

        @Tool(name = "text", description = "No schema")
        public String text() {
            return "t";
        }
    }

    @Test
    void aRecordReturnType_givesTheOutputSchemaOfItsJson() {
        Map<String, ToolDefinition> defs = new java.util.HashMap<>();
        for (ToolSpec s : Tools.fromObject(new Shop())) {
            defs.put(s.definition().name(), s.definition());
        }
        assertThat(defs.get("order").outputSchema().toString()).isEqualTo("{\"type\":\"object\",\"properties\":{"
                + "\"id\":{\"type\":\"string\"},\"total\":{\"type\":\"integer\"},\"lines\":{\"type\":\"array\","
                + "\"items\":{\"type\":\"object\",\"properties\":{\"sku\":{\"type\":\"string\"},\"qty\":{\"type\":"
                + "\"integer\"}},\"required\":[\"qty\"]}},\"paid\":{\"type\":\"boolean\"}},\"required\":[\"total\"]}");
        assertThat(defs.get("order_async").outputSchema()).isEqualTo(defs.get("order").outputSchema());
        assertThat(defs.get("count").outputSchema().toString()).isEqualTo("{\"type\":\"integer\",\"minimum\":1}");
        assertThat(defs.get("text").hasOutputSchema()).isFalse();
    }

    @Test
    void aRecordTool_whoseResultValidates_runs_andAGivenSchemaIsEnforced() {
        Shop shop = new Shop();
        shop.next = new Order("o-1", 12, List.of(new Line("a", 2)), null);
        ToolExecutor ex = ToolExecutor.builder().instanceId("o3").tools(Tools.fromObject(shop)).build();
        List<OutboundEvent> out = ex.execute(turn("s", "t", call("c1", "order", "{}"), call("c2", "count", "{}"),
                call("c3", "order_async", "{}"))).collectList().block(Duration.ofSeconds(5));
        ToolResultEvent order = TestTools.results(out).stream().filter(r -> r.toolCallId().equals("c1")).findFirst()
                .orElseThrow();
        assertThat(order.isError()).isFalse();
        ToolResultEvent count = TestTools.results(out).stream().filter(r -> r.toolCallId().equals("c2")).findFirst()
                .orElseThrow();
        assertThat(count.error().code()).isEqualTo(ErrorCode.INVALID_OUTPUT);
        assertThat(count.content()).contains("data: must be >= 1");
    }
}
