package dev.toolbus.benchmarks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.Map;

/**
 * The minimum any dispatcher does for a call: parse the argument string with Jackson 2, find the tool
 * by name, call it. No validation, no metrics, no events. Used by the floor benchmark and inside the
 * hand-written Reactor pipelines.
 */
final class HandDispatch {

    private final Map<String, Workload.JsonTool> tools = new HashMap<>();

    HandDispatch() {
        tools.put(Workload.TOOL, args -> Workload.echo(args.path("text").asText()));
    }

    String dispatch(String name, String argumentsJson) throws JsonProcessingException {
        Workload.JsonTool tool = tools.get(name);
        if (tool == null) {
            throw new IllegalArgumentException("unknown tool " + name);
        }
        JsonNode args = Workload.MAPPER.readTree(argumentsJson);
        return tool.call(args);
    }
}
