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
 * Options: {@code --http [HOST:]PORT} (with {@code --port-file PATH}: the bound port written there;
 * port 0 picks a free one), {@code --timeout-ms N} (the executor's per-call timeout),
 * {@code --parallel} (calls run concurrently), {@code --max-parallel N} (handlers at once, default 5),
 * {@code --task-after-ms N} and {@code --task-poll-ms N}
 * (when a call that may become a task becomes one, and the poll interval tasks suggest). Over HTTP the bearer token is {@code $TOOLBUS_TOKEN}
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
        run(args, extra, executor -> { });
    }

    /**
     * {@link #run(String[], Function)}, telling {@code started} the executor before serving (a fixture
     * that changes the registry keeps it).
     */
    public static void run(String[] args, Function<McpSampling, List<ToolSpec>> extra,
                           java.util.function.Consumer<ToolExecutor> started) throws Exception {
        System.setProperty("java.awt.headless", "true");
        String http = null;
        long timeoutMs = 30_000;
        boolean parallel = false;
        int maxParallel = 5;
        String portFile = null;
        java.time.Duration taskAfter = null;
        java.time.Duration taskPoll = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--http" -> http = value(args, ++i, "--http");
                case "--timeout-ms" -> timeoutMs = Long.parseLong(value(args, ++i, "--timeout-ms"));
                case "--parallel" -> parallel = true;
                case "--max-parallel" -> maxParallel = Integer.parseInt(value(args, ++i, "--max-parallel"));
                case "--port-file" -> portFile = value(args, ++i, "--port-file");
                case "--task-after-ms" -> taskAfter = java.time.Duration.ofMillis(Long.parseLong(value(args, ++i,
                        "--task-after-ms")));
                case "--task-poll-ms" -> taskPoll = java.time.Duration.ofMillis(Long.parseLong(value(args, ++i,
                        "--task-poll-ms")));
                case "-h", "--help" -> {
                    System.err.println("usage: McpServerMain [--http [HOST:]PORT [--port-file PATH]] [--timeout-ms N]"
                            + " [--parallel] [--max-parallel N] [--task-after-ms N] [--task-poll-ms N]");
                    return;
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        McpSampling sampling = McpSampling.create();
        List<ToolSpec> tools = new ArrayList<>(McpDemoTools.all());
        tools.addAll(extra.apply(sampling));
        ToolExecutor executor = ToolExecutor.builder().tools(tools)
                .settings(ExecutionSettings.builder().timeoutMs(timeoutMs).maxParallel(maxParallel).build()).build();
        started.accept(executor);
        String token = System.getenv("TOOLBUS_TOKEN");
        McpToolServer.Builder builder = McpToolServer.builder(executor).parallelCalls(parallel).sampling(sampling)
                .token(token == null || token.isBlank() ? null : token);
        if (taskAfter != null) {
            builder.taskAfter(taskAfter);
        }
        if (taskPoll != null) {
            builder.taskPollInterval(taskPoll);
        }
        McpToolServer server = builder.build();
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
        if (portFile != null) {
            java.nio.file.Path pf = java.nio.file.Path.of(portFile).toAbsolutePath();
            java.nio.file.Path tmp = pf.resolveSibling(pf.getFileName() + ".tmp");
            java.nio.file.Files.writeString(tmp, endpoint.port() + "\n");
            java.nio.file.Files.move(tmp, pf, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        }
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
