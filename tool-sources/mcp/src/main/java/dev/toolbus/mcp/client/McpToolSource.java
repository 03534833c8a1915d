package dev.toolbus.mcp.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.mcp.McpCallException;
import dev.toolbus.mcp.McpToolHints;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolHandler;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * External MCP servers as a tool source: every tool of every configured server becomes a toolbus tool
 * ({@link ToolSource#MCP}), run by the executor like any other, under its timeouts, parallelism,
 * cache, policy and media split.
 *
 * <pre>{@code
 * McpToolSource mcp = McpToolSource.builder()
 *     .serversFile(Path.of("mcp-servers.json"))      // Claude Desktop or ChatAI shape
 *     .build()
 *     .connect(executor.registry())                  // start, initialize, list, register
 *     .block();
 * ...
 * mcp.closeGracefully().block();                     // stops every server process it started
 * }</pre>
 *
 * <p><b>Names.</b> A tool keeps its MCP name when it is free. When the name is taken (by a core or
 * plugin tool, or by an earlier server) it is registered as {@code <server>__<tool>} and a
 * {@link Diagnostic} of kind {@link Diagnostic.Kind#RENAMED} says so; when that is taken too, the tool
 * is skipped. Characters a toolbus name cannot hold become {@code _}.
 *
 * <p><b>Calls.</b> Each call is one {@code tools/call} with the call's arguments. Text content becomes
 * the tool text; image and audio content, resource links and embedded resources become media items
 * ({@code image}, {@code audio}, {@code resource_link}, {@code resource}), which the executor splits
 * into follow-up messages; {@code isError} becomes an error result ({@code TOOL_ERROR});
 * {@code structuredContent} becomes {@code data}. A JSON-RPC error fails the call ({@code TOOL_FAILED},
 * with the server's message). When the executor's timeout cancels a call, a
 * {@code notifications/cancelled} for its request is sent to the server.
 *
 * <p><b>Failures.</b> A server that cannot be started at {@link #connect} is reported and its tools
 * are absent. A server that dies later fails its in-flight calls at once; the next call starts it
 * again, after a backoff that doubles per consecutive failure ({@link Builder#backoff}).
 *
 * <p><b>Side effects.</b> MCP tools are registered as side-effecting (never cached or retried) unless
 * the server annotates them {@code readOnlyHint: true}. The annotations the server declared are kept
 * in the definition's metadata as Booleans under {@link McpToolHints#READ_ONLY_HINT} and
 * {@link McpToolHints#DESTRUCTIVE_HINT}, where approval's risk rules read them.
 */
public final class McpToolSource implements AutoCloseable {

    /** The client version sent in {@code initialize}. */
    public static final String VERSION = "0.1.0";

    private static final Logger log = LoggerFactory.getLogger(McpToolSource.class);
    private static final Pattern VALID_NAME = Pattern.compile("[A-Za-z0-9_.:-]{1,128}");
    private static final Pattern INVALID_CHARS = Pattern.compile("[^A-Za-z0-9_.:-]");

    private final List<McpConnection> connections;
    private final Settings settings;
    private final ObjectMapper mapper;
    /** Diagnostics kept, the oldest dropped first. */
    static final int MAX_DIAGNOSTICS = 10_000;
    /** Diagnostics of one server's list logged one by one; the rest are counted in one line. */
    static final int MAX_LOGGED = 50;

    private final java.util.ArrayDeque<Diagnostic> diagnostics = new java.util.ArrayDeque<>();
    private final List<ToolSpec> tools = new CopyOnWriteArrayList<>();
    /** The MCP tool each registered tool was made of, to tell what a new list changed. */
    private final Map<ToolSpec, McpSchema.Tool> listedAs = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile ToolRegistry registry;

    private McpToolSource(Builder b) {
        this.settings = new Settings(b.requestTimeout, b.initTimeout, b.connectTimeout, b.minBackoff, b.maxBackoff,
                b.maxLineBytes, b.closeGrace, b.stderr, b.probeTimeout);
        this.mapper = b.objectMapper;
        McpJsonMapper json = new JacksonMcpJsonMapper(mapper);
        List<McpConnection> list = new ArrayList<>();
        for (McpServerConfig c : b.servers.values()) {
            list.add(new McpConnection(c, settings, json, mapper));
        }
        this.connections = List.copyOf(list);
        diagnostics.addAll(b.early);
    }

    /** Starts a builder. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts every server, lists its tools and registers them. Servers start in parallel; their tools
     * are registered in configuration order. A server that fails is reported in
     * {@link #diagnostics()} and does not fail the others.
     *
     * @param registry where the tools go (usually {@code executor.registry()})
     * @return this source, once every server has answered or failed
     */
    public Mono<McpToolSource> connect(ToolRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        this.registry = registry;
        connections.forEach(c -> c.onToolsChanged(list -> toolsChanged(c, list)));
        return Flux.fromIterable(connections)
                .flatMapSequential(c -> c.listTools()
                        .timeout(settings.connectTimeout())
                        .map(list -> Map.entry(c, list))
                        .onErrorResume(e -> {
                            String msg = e instanceof java.util.concurrent.TimeoutException
                                    ? "MCP server '" + c.config().name() + "' is unavailable: no answer within "
                                            + settings.connectTimeout().toMillis() + " ms"
                                    : e instanceof McpCallException ? e.getMessage()
                                    : "MCP server '" + c.config().name() + "' is unavailable: " + McpConnection.message(e);
                            report(new Diagnostic(Diagnostic.Kind.SERVER_FAILED, c.config().name(), null, null, msg));
                            return Mono.empty();
                        }))
                .doOnNext(e -> register(registry, e.getKey(), e.getValue()))
                .then(Mono.just(this));
    }

    /**
     * A server's new tool list (after its {@code notifications/tools/list_changed}): new tools are
     * registered as at {@link #connect}, changed ones replaced in place under the name they got, and
     * the ones it no longer lists removed.
     */
    private synchronized void toolsChanged(McpConnection c, List<McpSchema.Tool> listed) {
        ToolRegistry reg = registry;
        if (reg == null || listed == null) {
            return;
        }
        String server = c.config().name();
        Map<String, ToolSpec> mine = new LinkedHashMap<>();
        for (ToolSpec spec : tools) {
            if (server.equals(spec.definition().metadata().get("mcp_server"))) {
                mine.put(String.valueOf(spec.definition().metadata().get("mcp_tool")), spec);
            }
        }
        int added = 0;
        int replaced = 0;
        int removed = 0;
        java.util.Set<String> seen = new java.util.HashSet<>();
        List<McpSchema.Tool> fresh = new ArrayList<>();
        for (McpSchema.Tool t : listed) {
            if (t == null || t.name() == null || !seen.add(t.name())) {
                continue;
            }
            ToolSpec old = mine.get(t.name());
            if (old == null) {
                fresh.add(t);
            } else if (!t.equals(listedAs.get(old))) {
                ToolSpec spec;
                try {
                    spec = new ToolSpec(definition(old.definition().name(), c.config(), t), old.handler());
                } catch (IllegalArgumentException e) {
                    report(new Diagnostic(Diagnostic.Kind.SKIPPED, server, t.name(), null, "MCP tool '" + t.name()
                            + "' of server '" + server + "' is removed: its new definition is invalid: " + e.getMessage()));
                    seen.remove(t.name());
                    continue;
                }
                if (reg.replace(spec, ToolSource.MCP)) {
                    tools.set(tools.indexOf(old), spec);
                    listedAs.remove(old);
                    listedAs.put(spec, t);
                    replaced++;
                }
            }
        }
        added = register(reg, c, fresh);
        for (Map.Entry<String, ToolSpec> e : mine.entrySet()) {
            if (!seen.contains(e.getKey())) {
                ToolSpec gone = e.getValue();
                reg.removeIf(x -> x.tool() == gone);
                tools.remove(gone);
                listedAs.remove(gone);
                removed++;
            }
        }
        log.info("MCP server '{}' changed its tools: {} added, {} changed, {} removed", server, added, replaced, removed);
    }

    /**
     * Names and registers one server's tools in one step: each name is checked against the registry
     * and the names given earlier in the list by one look-up each, so the cost grows with the number
     * of tools, not its square.
     *
     * @return how many were registered
     */
    private int register(ToolRegistry registry, McpConnection c, List<McpSchema.Tool> list) {
        String server = c.config().name();
        List<Diagnostic> found = new ArrayList<>();
        Map<String, McpSchema.Tool> byName = new LinkedHashMap<>();
        List<ToolSpec> specs = new ArrayList<>(list.size());
        java.util.Set<String> taken = new java.util.HashSet<>();
        for (McpSchema.Tool tool : list) {
            String original = tool.name();
            String name = sanitize(original);
            if (!name.equals(original)) {
                found.add(new Diagnostic(Diagnostic.Kind.RENAMED, server, original, name,
                        "MCP tool '" + original + "' of server '" + server + "' is registered as '" + name
                                + "' (toolbus names are letters, digits and _ . : -)"));
            }
            if (isTaken(registry, taken, name)) {
                String prefixed = sanitize(server + "__" + name);
                if (isTaken(registry, taken, prefixed)) {
                    found.add(new Diagnostic(Diagnostic.Kind.SKIPPED, server, original, null, "MCP tool '" + original
                            + "' of server '" + server + "' is skipped: both '" + name + "' and '" + prefixed
                            + "' are taken"));
                    continue;
                }
                found.add(new Diagnostic(Diagnostic.Kind.RENAMED, server, original, prefixed, "MCP tool '" + original
                        + "' of server '" + server + "' is registered as '" + prefixed + "': '" + name
                        + (ToolRegistry.isReserved(name) ? "' is reserved for toolbus's own tool"
                                : "' is already provided by another tool")));
                name = prefixed;
            }
            ToolDefinition def;
            try {
                def = definition(name, c.config(), tool);
            } catch (IllegalArgumentException e) {
                found.add(new Diagnostic(Diagnostic.Kind.SKIPPED, server, original, null, "MCP tool '" + original
                        + "' of server '" + server + "' is skipped: " + e.getMessage()));
                continue;
            }
            taken.add(name.toLowerCase(java.util.Locale.ROOT));
            ToolHandler handler = (args, ctx) -> c.call(original, toMap(args.node()), ctx);
            specs.add(new ToolSpec(def, handler));
            byName.put(name, tool);
        }
        registry.registerAll(specs, ToolSource.MCP);
        List<ToolSpec> registered = new ArrayList<>(specs.size());
        for (ToolSpec spec : specs) {
            ToolRegistry.Entry e = registry.find(spec.name());
            if (e != null && e.tool() == spec) {
                registered.add(spec);
                listedAs.put(spec, byName.get(spec.name()));
            } else {
                found.add(new Diagnostic(Diagnostic.Kind.SKIPPED, server, byName.get(spec.name()).name(), null,
                        "MCP tool '" + byName.get(spec.name()).name() + "' of server '" + server
                                + "' lost a name clash on '" + spec.name() + "'"));
            }
        }
        tools.addAll(registered);
        report(found);
        return registered.size();
    }

    /** Whether a name is reserved, or taken (ignoring case) by a registered tool or one named earlier in the list. */
    private static boolean isTaken(ToolRegistry registry, java.util.Set<String> taken, String name) {
        return ToolRegistry.isReserved(name) || registry.clash(name) != null
                || taken.contains(name.toLowerCase(java.util.Locale.ROOT));
    }

    private ToolDefinition definition(String name, McpServerConfig config, McpSchema.Tool tool) {
        JsonNode schema = tool.inputSchema() == null ? null : mapper.valueToTree(tool.inputSchema());
        ObjectNode input = schema instanceof ObjectNode o ? o : mapper.createObjectNode().put("type", "object");
        if (!input.has("type")) {
            input.put("type", "object");
        }
        String description = tool.description() != null && !tool.description().isBlank() ? tool.description()
                : tool.title() != null ? tool.title() : "";
        ToolDefinition.Builder b = ToolDefinition.builder(name)
                .description(description)
                .inputSchema(input)
                .pluginId(config.name())
                .originalName(tool.name())
                .timeout(config.toolTimeout())
                .sideEffecting(!McpToolHints.readOnly(tool.annotations()))
                .metadata("mcp_server", config.name())
                .metadata("mcp_tool", tool.name());
        if (tool.outputSchema() != null && !tool.outputSchema().isEmpty()) {
            // the server's declared outputSchema: results whose structuredContent does not match are INVALID_OUTPUT
            b.outputSchema(mapper.valueToTree(tool.outputSchema()));
        }
        // the hints the server declared, as Booleans: approval's risk rules read them
        return McpToolHints.record(b, tool.annotations()).build();
    }

    private Map<String, Object> toMap(ObjectNode node) {
        @SuppressWarnings("unchecked")
        Map<String, Object> m = node == null ? new LinkedHashMap<>() : mapper.convertValue(node, LinkedHashMap.class);
        return m;
    }

    private static String sanitize(String name) {
        if (name != null && VALID_NAME.matcher(name).matches()) {
            return name;
        }
        String s = INVALID_CHARS.matcher(name == null || name.isEmpty() ? "tool" : name).replaceAll("_");
        return s.length() > 128 ? s.substring(0, 128) : s;
    }

    private void report(Diagnostic d) {
        report(List.of(d));
    }

    /** Keeps the diagnostics (the newest {@value #MAX_DIAGNOSTICS}) and logs the first few of them. */
    private void report(List<Diagnostic> found) {
        if (found.isEmpty()) {
            return;
        }
        for (int i = 0; i < found.size() && i < MAX_LOGGED; i++) {
            log.warn(found.get(i).message());
        }
        if (found.size() > MAX_LOGGED) {
            log.warn("… and {} more MCP tool diagnostics like these (McpToolSource.diagnostics() keeps the newest {})",
                    found.size() - MAX_LOGGED, MAX_DIAGNOSTICS);
        }
        synchronized (diagnostics) {
            diagnostics.addAll(found.size() > MAX_DIAGNOSTICS ? found.subList(found.size() - MAX_DIAGNOSTICS,
                    found.size()) : found);
            while (diagnostics.size() > MAX_DIAGNOSTICS) {
                diagnostics.removeFirst();
            }
        }
    }

    /** The tools registered so far. */
    public List<ToolSpec> tools() {
        return List.copyOf(tools);
    }

    /** Problems and renames so far, oldest first: bad or disabled entries, failed servers, clashes. */
    public List<Diagnostic> diagnostics() {
        synchronized (diagnostics) {
            return List.copyOf(diagnostics);
        }
    }

    /** The configured (enabled) servers' names, in order. */
    public List<String> serverNames() {
        List<String> out = new ArrayList<>();
        connections.forEach(c -> out.add(c.config().name()));
        return Collections.unmodifiableList(out);
    }

    /**
     * The MCP era toolbus speaks with a server: as configured, or as discovered at its first connect;
     * {@code null} before that or for an unknown server.
     */
    public McpServerConfig.Protocol protocol(String server) {
        return connections.stream().filter(c -> c.config().name().equals(server)).findFirst()
                .map(McpConnection::protocol).orElse(null);
    }

    /** The process id of a stdio server's running child, or -1 (for tests and diagnostics). */
    public long pid(String server) {
        return connections.stream().filter(c -> c.config().name().equals(server)).findFirst().map(McpConnection::pid)
                .orElse(-1L);
    }

    /**
     * Ends every session and stops every server process this source started (closing stdin, then
     * terminating the process tree after a grace period). Tools stay registered; their calls fail.
     */
    public Mono<Void> closeGracefully() {
        return Flux.fromIterable(connections).flatMap(McpConnection::closeGracefully).then();
    }

    @Override
    public void close() {
        closeGracefully().block(settings.closeGrace().multipliedBy(3).plusSeconds(5));
    }

    /**
     * Something worth telling the operator.
     *
     * @param kind what happened
     * @param server the server
     * @param tool the MCP tool name, or {@code null}
     * @param registeredAs the name it got, or {@code null}
     * @param message a readable explanation
     */
    public record Diagnostic(Kind kind, String server, String tool, String registeredAs, String message) {

        /** Kinds of diagnostics. */
        public enum Kind {
            /** An entry of the servers file was skipped. */
            BAD_ENTRY,
            /** An entry is switched off. */
            DISABLED,
            /** The server could not be started, initialized or listed. */
            SERVER_FAILED,
            /** A tool got another name (a clash, or characters toolbus names cannot hold). */
            RENAMED,
            /** A tool could not be registered. */
            SKIPPED
        }
    }

    /** Connection settings shared by the servers of one source. */
    record Settings(Duration requestTimeout, Duration initTimeout, Duration connectTimeout, Duration minBackoff,
                    Duration maxBackoff, int maxLineBytes, Duration closeGrace, BiConsumer<String, String> stderr,
                    Duration probeTimeout) {
    }

    /** Builder of {@link McpToolSource}. Setters validate eagerly. */
    public static final class Builder {
        private final Map<String, McpServerConfig> servers = new LinkedHashMap<>();
        private final List<Diagnostic> early = new ArrayList<>();
        private ObjectMapper objectMapper = new ObjectMapper();
        private Duration requestTimeout = Duration.ofMinutes(10);
        private Duration initTimeout = Duration.ofSeconds(60);
        private Duration connectTimeout = Duration.ofSeconds(90);
        private Duration minBackoff = Duration.ofMillis(250);
        private Duration maxBackoff = Duration.ofSeconds(30);
        private int maxLineBytes = 16 * 1024 * 1024;
        private Duration closeGrace = Duration.ofSeconds(2);
        private BiConsumer<String, String> stderr = McpConnection.logStderr();
        private Duration probeTimeout = Duration.ofSeconds(5);

        private Builder() {
        }

        /** Adds a server. */
        public Builder server(McpServerConfig server) {
            Objects.requireNonNull(server, "server");
            if (servers.containsKey(server.name())) {
                throw new IllegalStateException("server '" + server.name() + "' was already added");
            }
            if (server.disabled()) {
                early.add(new Diagnostic(Diagnostic.Kind.DISABLED, server.name(), null, null,
                        "MCP server '" + server.name() + "' is disabled"));
            } else {
                servers.put(server.name(), server);
            }
            return this;
        }

        /** Adds servers. */
        public Builder servers(List<McpServerConfig> list) {
            list.forEach(this::server);
            return this;
        }

        /**
         * Adds the servers of an {@code mcp-servers.json} file (either shape); its skipped and disabled
         * entries become diagnostics.
         *
         * @throws java.io.UncheckedIOException when the file cannot be read
         * @throws IllegalArgumentException when it is not a servers file
         */
        public Builder serversFile(Path file) {
            McpServersFile.Parsed parsed = McpServersFile.read(file);
            parsed.problems().forEach(p -> early.add(new Diagnostic(Diagnostic.Kind.BAD_ENTRY, "", null, null, p)));
            parsed.disabled().forEach(this::server);
            return servers(parsed.servers());
        }

        /** The Jackson 2 mapper for MCP messages (default: a plain {@code new ObjectMapper()}). */
        public Builder objectMapper(ObjectMapper mapper) {
            this.objectMapper = Objects.requireNonNull(mapper, "mapper");
            return this;
        }

        /**
         * The MCP SDK's own timeout for one request (default 10 minutes). The executor's per-call
         * timeout is the one that normally applies; this only bounds requests outside the executor.
         */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = positive(timeout, "requestTimeout");
            return this;
        }

        /** How long {@code initialize} may take, process start included (default 60 s). */
        public Builder initTimeout(Duration timeout) {
            this.initTimeout = positive(timeout, "initTimeout");
            return this;
        }

        /** How long {@link #connect} waits for one server to start and list its tools (default 90 s). */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positive(timeout, "connectTimeout");
            return this;
        }

        /** The reconnect backoff: {@code min} after the first failure, doubling up to {@code max} (default 250 ms, 30 s). */
        public Builder backoff(Duration min, Duration max) {
            positive(min, "min");
            positive(max, "max");
            if (max.compareTo(min) < 0) {
                throw new IllegalArgumentException("backoff max must be >= min");
            }
            this.minBackoff = min;
            this.maxBackoff = max;
            return this;
        }

        /** The longest line a stdio server may send, in bytes (default 16 MiB); longer lines are dropped. */
        public Builder maxLineBytes(int bytes) {
            if (bytes < 1024) {
                throw new IllegalArgumentException("maxLineBytes must be at least 1024");
            }
            this.maxLineBytes = bytes;
            return this;
        }

        /** How long a stdio server gets to exit after its stdin closes, and again after SIGTERM (default 2 s). */
        public Builder closeGrace(Duration grace) {
            this.closeGrace = positive(grace, "closeGrace");
            return this;
        }

        /**
         * How long the era probe ({@code server/discover}) of a server whose {@code protocol} is
         * {@code auto} waits for an answer before taking the server for a 2025 one (default 5 s).
         */
        public Builder probeTimeout(Duration timeout) {
            this.probeTimeout = positive(timeout, "probeTimeout");
            return this;
        }

        /** Receives (server, line) for each stderr line of a stdio server (default: logged at info). */
        public Builder stderr(BiConsumer<String, String> listener) {
            this.stderr = Objects.requireNonNull(listener, "listener");
            return this;
        }

        private static Duration positive(Duration d, String name) {
            Objects.requireNonNull(d, name);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive");
            }
            return d;
        }

        public McpToolSource build() {
            return new McpToolSource(this);
        }
    }
}
