package dev.toolbus.tool.method;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.result.ForeignValues;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * Factories for {@link ToolSpec}s: from annotated plugin objects and from plain functions (like the
 * Go seed's {@code ToolFromFunc} and {@code ToolFromJSONFunc}).
 *
 * <pre>{@code
 * public class Weather {
 *     @Tool(name = "get_weather", description = "Current weather of a city")
 *     public String weather(@Param(description = "City name") String city) {
 *         return city + ": 21 °C, sunny";
 *     }
 * }
 *
 * ToolExecutor executor = ToolExecutor.builder()
 *         .tools(Tools.fromObject(new Weather()))
 *         .tool(Tools.function("echo", "Echo the arguments", json -> json))
 *         .build();
 * }</pre>
 */
public final class Tools {

    private Tools() {
    }

    /**
     * Reads the {@link Tool @Tool} and {@link Action @Action} methods of a plugin object.
     *
     * @throws IllegalArgumentException when a method cannot be a tool (unsupported parameter, bad name)
     */
    public static List<ToolSpec> fromObject(Object plugin) {
        return AnnotatedTools.read(Objects.requireNonNull(plugin, "plugin"), null);
    }

    /**
     * Reads the {@link Tool @Tool} and {@link Action @Action} methods of a plugin object, marking every
     * definition with the plugin's id (used in clash diagnostics and policies).
     *
     * <p>Rules: public methods (also static and inherited ones) are read; tools come out sorted by name.
     * Method parameters with {@link Param @Param} are arguments, bound from the call's JSON arguments
     * with Jackson (a value that does not fit fails the call with an {@code IllegalArgumentException}
     * naming the argument); parameters of type {@link ToolContext}, {@link ToolArguments} and
     * {@code JsonNode} are injected. A method returning {@code Mono} or {@code CompletionStage} is
     * non-blocking; any other method runs as {@link ToolHandler#blocking} unless
     * {@link Tool#blocking()} is false. A {@link ToolResult} is returned as is; other values go through
     * {@link dev.toolbus.result.ForeignValues#toResult(Object)}; {@code void} gives {@link ToolResult#empty()}. An exception
     * thrown by the method fails the call with that exception.
     *
     * @param plugin the object whose methods are tools
     * @param pluginId the plugin's id, or {@code null}
     * @return the tools, sorted by name; empty when the object has none
     * @throws IllegalArgumentException when a method cannot be a tool (a parameter without
     *     {@code @Param} that cannot be injected, a type that cannot be inferred, invalid JSON in
     *     {@code defaultValue}/{@code items}, an array without items, a duplicate tool or parameter name,
     *     both {@code @Tool} and {@code @Action}, a {@code Flux} return)
     */
    public static List<ToolSpec> fromObject(Object plugin, String pluginId) {
        return AnnotatedTools.read(Objects.requireNonNull(plugin, "plugin"), pluginId);
    }

    /**
     * A text-in, text-out tool: the function receives the raw JSON arguments and returns the text the
     * model reads. It runs inline; use {@link ToolHandler#blocking} for blocking code.
     */
    public static ToolSpec function(String name, String description, Function<String, String> fn) {
        Objects.requireNonNull(fn, "fn");
        ToolDefinition def = ToolDefinition.builder(name).description(description).build();
        return new ToolSpec(def, (args, ctx) -> Mono.fromSupplier(() -> ToolResult.text(fn.apply(args.json()))));
    }

    /**
     * A JSON-in, object-out tool: the function receives the arguments as JSON and returns any value,
     * mapped with {@link dev.toolbus.result.ForeignValues#toResult(Object)}.
     */
    public static ToolSpec jsonFunction(String name, String description, List<ToolParameter> parameters,
                                        Function<JsonNode, Object> fn) {
        Objects.requireNonNull(fn, "fn");
        ToolDefinition def = ToolDefinition.builder(name).description(description).parameters(parameters).build();
        return new ToolSpec(def, (args, ctx) -> Mono.fromSupplier(() -> ForeignValues.toResult(fn.apply(args.node()))));
    }
}
