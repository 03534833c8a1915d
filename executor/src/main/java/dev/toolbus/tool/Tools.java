package dev.toolbus.tool;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * Factories for {@link ToolSpec}s: from annotated plugin objects and from plain functions (like the
 * Go seed's {@code ToolFromFunc} and {@code ToolFromJSONFunc}).
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
        return AnnotatedTools.read(Objects.requireNonNull(plugin, "plugin"));
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
     * mapped with {@link ToolResult#fromValue(Object)}.
     */
    public static ToolSpec jsonFunction(String name, String description, List<ToolParameter> parameters,
                                        Function<JsonNode, Object> fn) {
        Objects.requireNonNull(fn, "fn");
        ToolDefinition def = ToolDefinition.builder(name).description(description).parameters(parameters).build();
        return new ToolSpec(def, (args, ctx) -> Mono.fromSupplier(() -> ToolResult.fromValue(fn.apply(args.node()))));
    }
}
