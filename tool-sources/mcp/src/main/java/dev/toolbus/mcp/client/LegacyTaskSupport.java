package dev.toolbus.mcp.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a 2025-11-25 server said about its tasks, read off the raw {@code initialize} and
 * {@code tools/list} responses (the Java SDK's records drop both fields): whether it declares
 * {@code capabilities.tasks.requests.tools.call}, and which tools say {@code execution.taskSupport}
 * {@code optional} or {@code required}. A tool is called as a task only when both hold.
 */
final class LegacyTaskSupport {

    /** At most this many task-capable tool names are kept (a server listing more gets plain calls for the rest). */
    static final int MAX_TOOLS = 10_000;

    private volatile boolean toolCalls;
    private final Set<String> tools = ConcurrentHashMap.newKeySet();

    /** Reads {@code capabilities.tasks.requests.tools.call} of an {@code initialize} result. */
    void initialized(JsonNode result) {
        toolCalls = result.path("capabilities").path("tasks").path("requests").path("tools").path("call").isObject();
    }

    /** Reads {@code execution.taskSupport} of each tool of one {@code tools/list} page. */
    void listed(JsonNode result) {
        for (JsonNode t : result.path("tools")) {
            String name = t.path("name").asText("");
            if (name.isEmpty()) {
                continue;
            }
            String support = t.path("execution").path("taskSupport").asText("forbidden");
            if (("optional".equals(support) || "required".equals(support)) && tools.size() < MAX_TOOLS) {
                tools.add(name);
            } else {
                tools.remove(name);
            }
        }
    }

    /** Whether a call of {@code tool} (its name on the server) is made as a task. */
    boolean asTask(String tool) {
        return toolCalls && tools.contains(tool);
    }
}
