package dev.toolbus.mcp;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.tool.ToolSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs an MCP server over the {@link SampleTools sample tools} ({@code echo}, {@code add},
 * {@code draw}): on stdio by default, so an MCP client can spawn it, or on streamable HTTP.
 *
 * <pre>
 * java -cp CLASSPATH dev.toolbus.mcp.McpServerMain                 # stdio
 * java -cp CLASSPATH dev.toolbus.mcp.McpServerMain --http 3001     # http://127.0.0.1:3001/mcp
 * </pre>
 * Options: {@code --http [HOST:]PORT}, {@code --timeout-ms N} (the executor's per-call timeout),
 * {@code --parallel} (calls run concurrently). Over HTTP the bearer token is {@code $TOOLBUS_TOKEN}
 * (none when unset: then only a loopback host is served). Logs go to stderr; stdout carries only MCP messages.
 */
public final class McpServerMain {

    private McpServerMain() {
    }

    public static void main(String[] args) throws Exception {
        run(args, List.of());
    }

    /**
     * Runs the server with the sample tools plus {@code extra}; returns when stdin ends (stdio) or the
     * process is stopped (HTTP).
     */
    public static void run(String[] args, List<ToolSpec> extra) throws Exception {
        System.setProperty("java.awt.headless", "true");
        String http = null;
        long timeoutMs = 30_000;
        boolean parallel = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--http" -> http = value(args, ++i, "--http");
                case "--timeout-ms" -> timeoutMs = Long.parseLong(value(args, ++i, "--timeout-ms"));
                case "--parallel" -> parallel = true;
                case "-h", "--help" -> {
                    System.err.println("usage: McpServerMain [--http [HOST:]PORT] [--timeout-ms N] [--parallel]");
                    return;
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        List<ToolSpec> tools = new ArrayList<>(SampleTools.all());
        tools.addAll(extra);
        ToolExecutor executor = ToolExecutor.builder().tools(tools)
                .settings(ExecutionSettings.builder().timeoutMs(timeoutMs).build()).build();
        String token = System.getenv("TOOLBUS_TOKEN");
        McpToolServer server = McpToolServer.builder(executor).parallelCalls(parallel)
                .token(token == null || token.isBlank() ? null : token).build();
        if (http == null) {
            server.serveStdio(System.in, System.out).block();
            executor.close();
            System.exit(0);
            return;
        }
        String host = "127.0.0.1";
        String port = http;
        int colon = http.lastIndexOf(':');
        if (colon >= 0) {
            host = http.substring(0, colon);
            port = http.substring(colon + 1);
        }
        McpHttpServer endpoint = server.startHttp(host, Integer.parseInt(port)).block();
        System.err.println("toolbus MCP server listening on " + endpoint.url());
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            endpoint.close();
            executor.close();
        }));
        Thread.currentThread().join();
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }
}
