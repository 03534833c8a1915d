package example;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.bus.InMemoryBus;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
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
import reactor.core.Disposable;

/** toolbus embedded in a Java program: run a turn, answer any inbound event, serve a bus, close. */
public final class Main {

    /** A structured result: the model reads its JSON, the bot core gets it as {@code data}. */
    public record Weather(String city, int tempC, String sky) {
    }

    /** Tools are methods of a plain object. */
    public static final class WeatherTools {
        @Tool(name = "weather_now", description = "Current weather for a city.")
        public Weather weatherNow(@Param(description = "The city.") String city) {
            return new Weather(city, 21, "sunny");
        }
    }

    public static void main(String[] args) {
        EventCodec codec = EventCodec.defaults();
        try (ToolExecutor executor = ToolExecutor.builder()
                .tools(Tools.fromObject(new WeatherTools()))
                .settings(ExecutionSettings.builder().maxParallel(4).timeoutMs(5000).build())
                .build()) {

            // 1. Run one turn: its events come as a Flux (results in call order, then turn_completed).
            ObjectNode arguments = Json.mapper().createObjectNode().put("city", "Oslo");
            ToolCallsEvent turn = new ToolCallsEvent("chat-1", "t1", List.of(ToolCall.of("c1", "weather_now", arguments)),
                    CallContext.builder().userId("42").channel("web").build(), null);
            executor.execute(turn).doOnNext(e -> System.out.println(codec.encode(e))).blockLast();

            // 2. Answer any inbound event, decoded from the wire (here: which tools may this session see?).
            executor.handle(codec.decode("{\"type\":\"list_tools\",\"stream_id\":\"chat-1\",\"request_id\":\"r1\"}"))
                    .doOnNext(e -> System.out.println(codec.encode(e))).blockLast();

            // 3. Serve a bus: every turn sent to it is run and its events published back.
            InMemoryBus bus = InMemoryBus.create();
            Disposable serving = executor.attach(bus);
            bus.send("{\"type\":\"tool_call\",\"stream_id\":\"chat-2\",\"turn_id\":\"t2\",\"tool_call_id\":\"c2\","
                    + "\"name\":\"weather_now\",\"arguments\":{\"city\":\"Paris\"}}");
            TurnCompletedEvent done = bus.events("chat-2").doOnNext(e -> System.out.println(codec.encode(e)))
                    .ofType(TurnCompletedEvent.class).blockFirst();
            System.out.println("turn " + done.turnId() + " completed with " + done.errorCount() + " errors");
            serving.dispose();
        } // 4. close(): stop taking turns, let running ones finish, release the executor's threads
    }
}
