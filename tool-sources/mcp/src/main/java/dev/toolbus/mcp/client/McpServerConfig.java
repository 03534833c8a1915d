package dev.toolbus.mcp.client;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * One external MCP server, as an entry of {@code mcp-servers.json} describes it.
 *
 * <p>A {@link Transport#STDIO stdio} server is a process started from {@code command} and
 * {@code args} (with {@code env} added to this process's environment and, when set, {@code cwd} as its
 * working directory); a {@link Transport#HTTP streamable HTTP} or {@link Transport#SSE legacy SSE}
 * server is reached at {@code url} with {@code headers} on every request.
 *
 * @param name the server's name (the key in the file); used as the tools' plugin id and as the prefix
 *     of a tool whose name clashes
 * @param transport how to reach it
 * @param command the program of a stdio server, else empty
 * @param args its arguments
 * @param env extra environment variables of a stdio server
 * @param cwd the working directory of a stdio server, or empty for this process's
 * @param url the endpoint of an HTTP or SSE server, else empty
 * @param headers extra HTTP headers (for example {@code Authorization})
 * @param toolTimeout the per-call timeout given to this server's tools, or {@code null} for the
 *     executor's
 * @param disabled whether the entry is switched off ({@code "disabled": true} or
 *     {@code "enabled": false})
 * @param protocol which MCP era to speak: {@link Protocol#AUTO} (the default) discovers it
 */
public record McpServerConfig(
        String name,
        Transport transport,
        String command,
        List<String> args,
        Map<String, String> env,
        String cwd,
        String url,
        Map<String, String> headers,
        Duration toolTimeout,
        boolean disabled,
        Protocol protocol) {

    public McpServerConfig {
        protocol = protocol == null ? Protocol.AUTO : protocol;
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("server name must not be blank");
        }
        Objects.requireNonNull(transport, "transport");
        command = command == null ? "" : command;
        args = args == null ? List.of() : List.copyOf(args);
        env = env == null ? Map.of() : Map.copyOf(env);
        cwd = cwd == null ? "" : cwd;
        url = url == null ? "" : url;
        headers = headers == null ? Map.of() : Map.copyOf(headers);
        if (transport == Transport.STDIO && command.isBlank()) {
            throw new IllegalArgumentException("server '" + name + "': a stdio server needs a command");
        }
        if (transport != Transport.STDIO) {
            if (url.isBlank()) {
                throw new IllegalArgumentException("server '" + name + "': an " + transport.wireName()
                        + " server needs a url");
            }
            URI u = URI.create(url);
            String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https")) {
                throw new IllegalArgumentException("server '" + name + "': url must be http or https: " + url);
            }
        }
        if (toolTimeout != null && (toolTimeout.isNegative() || toolTimeout.isZero())) {
            throw new IllegalArgumentException("server '" + name + "': timeout must be positive");
        }
    }

    /** An entry that discovers its server's era ({@link Protocol#AUTO}). */
    public McpServerConfig(String name, Transport transport, String command, List<String> args, Map<String, String> env,
                           String cwd, String url, Map<String, String> headers, Duration toolTimeout, boolean disabled) {
        this(name, transport, command, args, env, cwd, url, headers, toolTimeout, disabled, Protocol.AUTO);
    }

    /** A stdio server. */
    public static McpServerConfig stdio(String name, String command, List<String> args, Map<String, String> env) {
        return new McpServerConfig(name, Transport.STDIO, command, args, env, "", "", Map.of(), null, false);
    }

    /** A streamable HTTP server. */
    public static McpServerConfig http(String name, String url) {
        return new McpServerConfig(name, Transport.HTTP, "", List.of(), Map.of(), "", url, Map.of(), null, false);
    }

    /** This entry with a per-call timeout for its tools. */
    public McpServerConfig withToolTimeout(Duration timeout) {
        return new McpServerConfig(name, transport, command, args, env, cwd, url, headers, timeout, disabled, protocol);
    }

    /** This entry speaking {@code protocol}. */
    public McpServerConfig withProtocol(Protocol protocol) {
        return new McpServerConfig(name, transport, command, args, env, cwd, url, headers, toolTimeout, disabled, protocol);
    }

    /** Which MCP era toolbus speaks with a server. */
    public enum Protocol {
        /**
         * Discover it: a 2026-07-28 {@code server/discover} probe (over stdio on a short-lived copy of the
         * process), and the {@code initialize} handshake when the answer is not a modern one.
         */
        AUTO("auto"),
        /** 2026-07-28: stateless requests with {@code _meta}, {@code input_required} rounds, tasks. */
        MODERN("2026-07-28"),
        /** 2025-11-25 and earlier: the {@code initialize} handshake, through the MCP Java SDK. */
        LEGACY("2025-11-25");

        private final String wireName;

        Protocol(String wireName) {
            this.wireName = wireName;
        }

        /** The name used in the file. */
        public String wireName() {
            return wireName;
        }

        /**
         * Reads a {@code protocol} value: {@code auto}, {@code 2026-07-28}, {@code 2025-11-25}.
         *
         * @throws IllegalArgumentException for anything else
         */
        public static Protocol parse(String value) {
            String v = value.strip().toLowerCase(Locale.ROOT);
            for (Protocol p : values()) {
                if (p.wireName.equals(v)) {
                    return p;
                }
            }
            throw new IllegalArgumentException("unknown MCP protocol '" + value + "' (expected auto, 2026-07-28 or"
                    + " 2025-11-25)");
        }
    }

    /** How a server is reached. */
    public enum Transport {
        /** A child process speaking newline-delimited JSON-RPC on stdin and stdout. */
        STDIO,
        /** Streamable HTTP (MCP 2025-03-26 and later). */
        HTTP,
        /** The legacy HTTP+SSE transport (MCP 2024-11-05), deprecated. */
        SSE;

        /**
         * Reads a {@code type} value: {@code stdio}; {@code http}, {@code streamable-http},
         * {@code streamable_http}, {@code streamableHttp}; {@code sse}.
         *
         * @throws IllegalArgumentException for anything else
         */
        public static Transport parse(String value) {
            String v = value.strip().toLowerCase(Locale.ROOT).replace("-", "").replace("_", "");
            return switch (v) {
                case "stdio" -> STDIO;
                case "http", "streamablehttp" -> HTTP;
                case "sse" -> SSE;
                default -> throw new IllegalArgumentException("unknown MCP transport type '" + value
                        + "' (expected stdio, http, streamable-http or sse)");
            };
        }

        /** The name used in the file. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
