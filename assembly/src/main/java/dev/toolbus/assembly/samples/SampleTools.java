package dev.toolbus.assembly.samples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.mcp.McpToolHints;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.Risk;
import dev.toolbus.tool.ContentItem;
import dev.toolbus.tool.Param;
import dev.toolbus.tool.Tool;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import dev.toolbus.tool.method.Tools;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The sample tools of the demo, the {@code --sample-tools} sidecar and the tests: {@code echo},
 * {@code add}, {@code sleep}, {@code fail}, {@code draw}, and the conversation-control ones:
 * {@code progress} (reports {@code tool_progress}), {@code greet} (posts a {@code send_message}) and
 * {@code ask_city} (asks with an {@code input_request}), and {@code wipe} (side-effecting, declares risk
 * high: the approval step's example), and {@code count} (side-effecting: counts its runs, to show that a
 * repeated turn is not run again). None of them blocks a thread. A cancelled {@code sleep} logs it (at
 * info); an MCP call of {@code sleep} may become a task.
 */
public final class SampleTools {

    /** A valid 1x1 PNG (one teal pixel), the image {@code draw} returns. */
    public static final String PNG_BASE64 =
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGPQqr8CAAJUAX5aQspHAAAAAElFTkSuQmCC";

    private static final byte[] PNG = Base64.getDecoder().decode(PNG_BASE64);

    /** The most steps {@code progress} takes. */
    public static final int MAX_PROGRESS_STEPS = 10_000;

    private static final JsonNode CITY_SCHEMA = citySchema();
    private static final Logger LOG = LoggerFactory.getLogger(SampleTools.class);

    private final Scheduler timer;
    private final java.util.concurrent.atomic.AtomicLong runs = new java.util.concurrent.atomic.AtomicLong();

    /** Sample tools whose {@code sleep} waits on {@link Schedulers#parallel()}. */
    public SampleTools() {
        this(Schedulers.parallel());
    }

    /**
     * Sample tools whose {@code sleep} waits on the given scheduler (a virtual-time scheduler in tests).
     */
    public SampleTools(Scheduler timer) {
        this.timer = Objects.requireNonNull(timer, "timer");
    }

    /**
     * The tools of this object, read from their annotations; an MCP call of {@code sleep} may become a
     * task (for a client that supports tasks, when it runs long).
     */
    public List<ToolSpec> specs() {
        return Tools.fromObject(this).stream().map(t -> !t.definition().name().equals("sleep") ? t
                : new ToolSpec(McpToolHints.taskSupport(t.definition().toBuilder(), McpToolHints.TaskSupport.OPTIONAL)
                        .build(), t.handler())).toList();
    }

    /** A copy of the PNG {@code draw} returns. */
    public static byte[] png() {
        return PNG.clone();
    }

    @Tool(name = "echo", description = "Returns the text it is given.", blocking = false)
    public String echo(@Param(description = "The text to return.") String text) {
        return text;
    }

    @Tool(name = "add", description = "Adds two integers and returns their sum as {\"sum\": n}.", blocking = false)
    public Map<String, Object> add(@Param(description = "The first addend.") long a,
                                   @Param(description = "The second addend.") long b) {
        return Map.of("sum", Math.addExact(a, b));
    }

    @Tool(name = "wipe", description = "Wipes the target (a harmless stand-in for a destructive tool: it only "
            + "answers wiped <target>).", blocking = false, sideEffecting = true, risk = Risk.HIGH)
    public String wipe(@Param(description = "What to wipe.") String target) {
        return "wiped " + target;
    }

    @Tool(name = "count", description = "Counts its runs in this process and answers run <n> of <key>.",
            blocking = false, sideEffecting = true)
    public String count(@Param(description = "What is counted (runs of every key are counted together).") String key) {
        return "run " + runs.incrementAndGet() + " of " + key;
    }

    /** {@code sleep} without a call context (tests): waits, then answers. */
    public Mono<ToolResult> sleep(long ms) {
        if (ms < 0) {
            return Mono.just(ToolResult.error("ms must not be negative, got " + ms));
        }
        return Mono.delay(Duration.ofMillis(ms), timer).map(tick -> ToolResult.text("slept " + ms));
    }

    @Tool(name = "sleep", description = "Waits the given number of milliseconds, then answers.", blocking = false)
    public Mono<ToolResult> sleep(@Param(description = "How long to wait, in milliseconds.") long ms, ToolContext ctx) {
        // a cancelled sleep says so in the log: the tests of cancellation read it there
        Disposable hook = ctx.onCancel(reason -> LOG.info("sample tool sleep ({} ms) cancelled: {}", ms, reason));
        return sleep(ms).doFinally(s -> {
            if (s != reactor.core.publisher.SignalType.CANCEL) {
                hook.dispose();
            }
        });
    }

    @Tool(name = "fail", description = "Always fails with the given message (for testing error paths).",
            blocking = false)
    public String fail(@Param(description = "The message of the failure.") String message,
                       @Param(description = "exception (the default) or error: a JVM Error such as the "
                               + "OutOfMemoryError a real tool can hit, which the executor must survive too.",
                               required = false, enumValues = {"exception", "error"}) String kind) {
        if ("error".equals(kind)) {
            throw new OutOfMemoryError("simulated: " + message);
        }
        throw new IllegalStateException(message);
    }

    @Tool(name = "draw", description = "Draws a picture of the label and returns it as a PNG image.",
            blocking = false)
    public ToolResult draw(@Param(description = "What to draw.") String label) {
        return ToolResult.builder()
                .content("drew " + label)
                .item(ContentItem.image(PNG, "image/png"))
                .build();
    }

    @Tool(name = "progress", description = "Reports progress i of steps every ms milliseconds, then answers done <steps>.",
            blocking = false)
    public Mono<ToolResult> progress(@Param(description = "How many steps to take.") long steps,
                                     @Param(description = "Milliseconds between two steps.") long ms,
                                     ToolContext ctx) {
        if (steps < 0 || steps > MAX_PROGRESS_STEPS || ms < 0) {
            return Mono.just(ToolResult.error("steps must be 0.." + MAX_PROGRESS_STEPS + " and ms not negative, got "
                    + steps + " and " + ms));
        }
        double total = steps;
        return Flux.interval(Duration.ofMillis(ms), Duration.ofMillis(ms), timer).take(steps)
                // progress acts when called; a step is not held back until its event is published
                .doOnNext(i -> ctx.progress(i + 1, total, "step " + (i + 1) + " of " + steps))
                .then(Mono.fromSupplier(() -> ToolResult.text("done " + steps)));
    }

    @Tool(name = "greet", description = "Sends the text to the conversation as a message, then answers greeted.",
            blocking = false)
    public Mono<String> greet(@Param(description = "The message to send.") String text, ToolContext ctx) {
        return ctx.send(text).thenReturn("greeted");
    }

    @Tool(name = "ask_city", description = "Asks the user which city they mean and answers city <answer>.",
            blocking = false)
    public Mono<String> askCity(ToolContext ctx) {
        return ctx.ask("Which city?", CITY_SCHEMA).map(a -> {
            JsonNode city = a.accepted() && a.content() != null ? a.content().get("city") : null;
            return city != null && city.isTextual() && !city.textValue().isBlank()
                    ? "city " + city.textValue() : "no answer";
        });
    }

    private static JsonNode citySchema() {
        ObjectNode schema = Json.mapper().createObjectNode().put("type", "object");
        schema.putObject("properties").putObject("city").put("type", "string").put("description", "The city");
        schema.putArray("required").add("city");
        return schema;
    }
}
