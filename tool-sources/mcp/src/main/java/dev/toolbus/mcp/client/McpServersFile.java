package dev.toolbus.mcp.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Reads {@code mcp-servers.json} in either of its two common shapes.
 *
 * <p>Claude Desktop's shape keys the servers under {@code mcpServers}; ChatAI's keys them under
 * {@code servers}. Both map a server name to an entry:
 * <pre>{@code
 * {"mcpServers": {
 *    "everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"],
 *                   "env": {"DEBUG": "1"}},
 *    "remote":     {"url": "http://127.0.0.1:3001/mcp", "headers": {"Authorization": "Bearer t"}}}}
 *
 * {"servers": {
 *    "files": {"type": "stdio", "command": "node", "args": ["server.js"], "disabled": true},
 *    "web":   {"type": "http", "url": "http://127.0.0.1:8080/mcp", "timeout": 15000}}}
 * }</pre>
 * Entry keys: {@code type} (or {@code transport}): {@code stdio}, {@code http} /
 * {@code streamable-http}, {@code sse}; when absent, a {@code url} means streamable HTTP and a
 * {@code command} means stdio. {@code command}, {@code args}, {@code env}, {@code cwd} for stdio;
 * {@code url}, {@code headers} for HTTP; {@code timeout} (milliseconds) for the tools' per-call
 * timeout; {@code protocol}: {@code auto} (the default: discovered), {@code 2026-07-28} or
 * {@code 2025-11-25}; {@code disabled: true} or {@code enabled: false} switches an entry off. Unknown keys are
 * ignored. An entry that cannot be used is skipped and reported in {@link Parsed#problems()}; a file
 * that is not JSON, or has neither key, is an error.
 */
public final class McpServersFile {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private McpServersFile() {
    }

    /**
     * Reads a file.
     *
     * @throws UncheckedIOException when the file cannot be read
     * @throws IllegalArgumentException when it is not a servers file
     */
    public static Parsed read(Path file) {
        Objects.requireNonNull(file, "file");
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read MCP servers file " + file + ": " + e.getMessage(), e);
        }
        return parse(text, file.toString());
    }

    /**
     * Parses the text of a servers file.
     *
     * @param json the file's text
     * @param origin where it came from, for messages
     * @throws IllegalArgumentException when it is not a servers file
     */
    public static Parsed parse(String json, String origin) {
        JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("MCP servers file " + origin + " is not valid JSON: "
                    + e.getOriginalMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("MCP servers file " + origin + " must hold a JSON object");
        }
        JsonNode claude = root.get("mcpServers");
        JsonNode chatai = root.get("servers");
        if (claude == null && chatai == null) {
            throw new IllegalArgumentException("MCP servers file " + origin
                    + " has neither \"mcpServers\" (Claude Desktop) nor \"servers\" (ChatAI)");
        }
        Map<String, McpServerConfig> servers = new LinkedHashMap<>();
        List<McpServerConfig> disabled = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        readSection(claude, "mcpServers", servers, disabled, problems);
        readSection(chatai, "servers", servers, disabled, problems);
        return new Parsed(List.copyOf(servers.values()), List.copyOf(disabled), List.copyOf(problems));
    }

    private static void readSection(JsonNode section, String key, Map<String, McpServerConfig> out,
                                    List<McpServerConfig> disabled, List<String> problems) {
        if (section == null || section.isNull()) {
            return;
        }
        if (!section.isObject()) {
            problems.add("\"" + key + "\" must be an object of name -> server; ignored");
            return;
        }
        Iterator<Map.Entry<String, JsonNode>> it = section.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            String name = e.getKey();
            if (out.containsKey(name)) {
                problems.add("server '" + name + "' appears twice; the first entry is kept");
                continue;
            }
            try {
                McpServerConfig config = entry(name, e.getValue());
                if (config.disabled()) {
                    disabled.add(config);
                } else {
                    out.put(name, config);
                }
            } catch (IllegalArgumentException ex) {
                problems.add(ex.getMessage() + "; server skipped");
            }
        }
    }

    private static McpServerConfig entry(String name, JsonNode node) {
        if (!node.isObject()) {
            throw new IllegalArgumentException("server '" + name + "' must be an object");
        }
        String command = text(node, "command");
        String url = text(node, "url");
        if (url.isEmpty()) {
            url = text(node, "serverUrl");
        }
        String type = text(node, "type");
        if (type.isEmpty()) {
            type = text(node, "transport");
        }
        McpServerConfig.Transport transport;
        if (!type.isEmpty()) {
            transport = McpServerConfig.Transport.parse(type);
        } else if (!url.isEmpty()) {
            transport = McpServerConfig.Transport.HTTP;
        } else if (!command.isEmpty()) {
            transport = McpServerConfig.Transport.STDIO;
        } else {
            throw new IllegalArgumentException("server '" + name + "' has neither a command nor a url");
        }
        boolean off = node.path("disabled").asBoolean(false) || node.has("enabled") && !node.get("enabled").asBoolean(true);
        Duration timeout = null;
        JsonNode t = node.get("timeout");
        if (t != null && !t.isNull()) {
            if (!t.canConvertToLong() || t.asLong() <= 0) {
                throw new IllegalArgumentException("server '" + name + "': timeout must be a positive number of milliseconds");
            }
            timeout = Duration.ofMillis(t.asLong());
        }
        String protocol = text(node, "protocol");
        McpServerConfig.Protocol era;
        try {
            era = protocol.isEmpty() ? McpServerConfig.Protocol.AUTO : McpServerConfig.Protocol.parse(protocol);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("server '" + name + "': " + e.getMessage());
        }
        return new McpServerConfig(name, transport, command, strings(node.get("args"), name, "args"),
                stringMap(node.get("env"), name, "env"), text(node, "cwd"), url,
                stringMap(node.get("headers"), name, "headers"), timeout, off, era);
    }

    private static String text(JsonNode node, String key) {
        JsonNode v = node.get(key);
        return v == null || v.isNull() ? "" : v.asText().strip();
    }

    private static List<String> strings(JsonNode node, String server, String key) {
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            throw new IllegalArgumentException("server '" + server + "': " + key + " must be an array of strings");
        }
        List<String> out = new ArrayList<>(node.size());
        node.forEach(v -> out.add(v.isValueNode() ? v.asText() : v.toString()));
        return out;
    }

    private static Map<String, String> stringMap(JsonNode node, String server, String key) {
        if (node == null || node.isNull()) {
            return Map.of();
        }
        if (!node.isObject()) {
            throw new IllegalArgumentException("server '" + server + "': " + key + " must be an object of strings");
        }
        Map<String, String> out = new LinkedHashMap<>();
        node.fields().forEachRemaining(e -> out.put(e.getKey(),
                e.getValue().isValueNode() ? e.getValue().asText() : e.getValue().toString()));
        return out;
    }

    /**
     * What a servers file holds.
     *
     * @param servers the enabled servers, in file order ({@code mcpServers} first)
     * @param disabled the entries switched off
     * @param problems entries that were skipped, with the reason
     */
    public record Parsed(List<McpServerConfig> servers, List<McpServerConfig> disabled, List<String> problems) {
    }
}
