package dev.toolbus.mcp.server;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.tool.ToolSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Runs an MCP server over the {@link McpDemoTools demo tools} ({@code echo}, {@code add},
 * {@code draw}): on stdio by default, so an MCP client can spawn it, or on streamable HTTP.
 *
 * <pre>
 * java -cp CLASSPATH dev.toolbus.mcp.server.McpServerMain                 # stdio
 * java -cp CLASSPATH dev.toolbus.mcp.server.McpServerMain --http 3001     # http://127.0.0.1:3001/mcp
 * </pre>
 * Options: {@code --http [HOST:]PORT}, {@code --timeout-ms N} (the executor's per-call timeout),
 * {@code --parallel} (calls run concurrently). Over HTTP the bearer token is {@code $TOOLBUS_TOKEN}
 * (none when unset: then only a loopback host is served). Logs go to stderr; stdout carries only MCP messages.
 */
public final class McpServerMain {

    private McpServerMain() {
    }

    /** Runs the server over the demo tools; see the class comment for the options. */
    public static void main(String[] args) throws Exception {
        run(args, sampling -> List.of());
    }

    /**
     * Runs the server with the demo tools plus {@code extra}; returns when stdin ends (stdio) or the
     * process is stopped (HTTP).
     *
     * @param extra the extra tools, given the server's {@link McpSampling} for those that ask the
     *     client's model
     */
    public static void run(String[] args, Function<McpSampling, List<ToolSpec>> extra) throws Exception {
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
        McpSampling sampling = McpSampling.create();
        List<ToolSpec> tools = new ArrayList<>(McpDemoTools.all());
        tools.addAll(extra.apply(sampling));
        ToolExecutor executor = ToolExecutor.builder().tools(tools)
                .settings(ExecutionSettings.builder().timeoutMs(timeoutMs).build()).build();
        String token = System.getenv("TOOLBUS_TOKEN");
        McpToolServer server = McpToolServer.builder(executor).parallelCalls(parallel).sampling(sampling)
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
