package example;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.assembly.Toolbus;
import dev.toolbus.assembly.ToolbusAssembly;
import dev.toolbus.bus.InMemoryBus;
import dev.toolbus.config.Config;
import dev.toolbus.config.ConfigLoader;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import dev.toolbus.tool.Param;
import dev.toolbus.tool.Tool;
import dev.toolbus.tool.method.Tools;
import java.util.List;

/**
 * toolbus embedded in a Java program, assembled from a toolbus.yaml exactly as {@code toolbus serve}
 * assembles it: run a turn, answer any inbound event, serve a bus, close.
 */
public final class Main {

    /** The same keys as a toolbus.yaml file (docs/configuration.md); ConfigLoader.load(path) reads a file. */
    static final String TOOLBUS_YAML = """
            execution: {maxParallel: 4, timeout: 5000}
            tools: {deny: [delete_city]}
            bus: {type: in-memory}
            gateway: {enabled: false}
            """;

    /** A structured result: the model reads its JSON, the bot core gets it as {@code data}. */
    public record Weather(String city, int tempC, String sky) {
    }

    /** Tools are methods of a plain object. */
    public static final class WeatherTools {
        @Tool(name = "weather_now", description = "Current weather for a city.")
        public Weather weatherNow(@Param(description = "The city.") String city) {
            return new Weather(city, 21, "sunny");
        }

        @Tool(name = "delete_city", description = "Denied by the config's tools.deny.")
        public String deleteCity(@Param(description = "The city.") String city) {
            return "deleted " + city;
        }
    }

    public static void main(String[] args) {
        EventCodec codec = EventCodec.defaults();
        Config config = ConfigLoader.parse(TOOLBUS_YAML, System::getenv).config();
        // every section of the config: tool sources, policy, approval, limits, bus, gateway
        try (Toolbus toolbus = ToolbusAssembly.from(config).tools(Tools.fromObject(new WeatherTools())).build().start()) {
            ToolExecutor executor = toolbus.executor();

            // 1. Run one turn: its events come as a Flux (results in call order, then turn_completed).
            ObjectNode arguments = Json.mapper().createObjectNode().put("city", "Oslo");
            ToolCallsEvent turn = new ToolCallsEvent("chat-1", "t1", List.of(ToolCall.of("c1", "weather_now", arguments),
                    ToolCall.of("c2", "delete_city", arguments)),
                    CallContext.builder().userId("42").channel("web").build(), null);
            executor.execute(turn).doOnNext(e -> System.out.println(codec.encode(e))).blockLast();

            // 2. Answer any inbound event, decoded from the wire (here: which tools may this session see?).
            executor.handle(codec.decode("{\"type\":\"list_tools\",\"stream_id\":\"chat-1\",\"request_id\":\"r1\"}"))
                    .doOnNext(e -> System.out.println(codec.encode(e))).blockLast();

            // 3. The bus of the config (bus.type: in-memory) is served: a turn sent to it runs and its events come back.
            InMemoryBus bus = (InMemoryBus) toolbus.bus();
            bus.send("{\"type\":\"tool_call\",\"stream_id\":\"chat-2\",\"turn_id\":\"t2\",\"tool_call_id\":\"c2\","
                    + "\"name\":\"weather_now\",\"arguments\":{\"city\":\"Paris\"}}");
            TurnCompletedEvent done = bus.events("chat-2").doOnNext(e -> System.out.println(codec.encode(e)))
                    .ofType(TurnCompletedEvent.class).blockFirst();
            System.out.println("turn " + done.turnId() + " completed with " + done.errorCount() + " errors");
        } // 4. close(): the bus stops taking turns, running ones finish, the executor and the tool sources close
    }
}
