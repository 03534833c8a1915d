package dev.toolbus.benchmarks.gateway;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.gateway.GatewayServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import reactor.netty.DisposableServer;
import reactor.netty.http.client.HttpClient;

/**
 * One server under load: the toolbus gateway ({@link LoadServer}) or the raw reactor-netty server
 * ({@link RawLoadServer}), forked into a child JVM ({@code -Xmx512m}, optionally under {@code taskset}) or
 * started in this one, with what the harness reads off it: heap, heap after a full collection, resident
 * set, CPU time and JIT time.
 */
final class LoadTarget implements AutoCloseable {

    /** {@code ""} for the gateway, {@code "raw reactor-netty "} for the raw server: the prefix of its phase names. */
    final String prefix;
    final int port;
    final LongSupplier heap;
    final LongSupplier heapAfterGc;
    final LongSupplier rss;
    final LongSupplier cpu;
    final LongSupplier jit;
    private final AutoCloseable stop;
    /** The load clients' connections, opened by the first run and kept for the next ones. */
    private reactor.netty.resources.ConnectionProvider httpPool;
    private WsConnections websockets;

    private LoadTarget(String prefix, int port, LongSupplier heap, LongSupplier heapAfterGc, LongSupplier rss,
                       LongSupplier cpu, LongSupplier jit, AutoCloseable stop) {
        this.prefix = prefix;
        this.port = port;
        this.heap = heap;
        this.heapAfterGc = heapAfterGc;
        this.rss = rss;
        this.cpu = cpu;
        this.jit = jit;
        this.stop = stop;
    }

    String base() {
        return "http://127.0.0.1:" + port;
    }

    /** Starts the gateway, or with {@code raw} the raw server, as {@code o} says (forked or here). */
    static LoadTarget start(GatewayLoad.Options o, boolean raw) throws Exception {
        String prefix = raw ? "raw reactor-netty " : "";
        if (o.forkServer()) {
            Process child = fork(raw ? RawLoadServer.class : LoadServer.class, o.serverCpus());
            try {
                BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
                int port = Integer.parseInt(readLine(out, "PORT "));
                // the raw server has no /metrics: its heap peak is not sampled
                LongSupplier heap = raw ? () -> 0 : scraper(port);
                long pid = child.pid();
                return new LoadTarget(prefix, port, heap, () -> ask(child, out, "gc", "HEAP "), () -> rssOf(pid),
                        () -> child.toHandle().info().totalCpuDuration().map(Duration::toNanos).orElse(0L),
                        () -> ask(child, out, "jit", "JIT "), () -> {
                            child.getOutputStream().close();
                            if (!child.waitFor(15, TimeUnit.SECONDS)) {
                                child.destroyForcibly();
                            }
                        });
            } catch (Exception | Error e) {
                child.destroyForcibly();
                throw e;
            }
        }
        LongSupplier heap = () -> ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        LongSupplier rss = () -> rssOf(ProcessHandle.current().pid());
        if (raw) {
            DisposableServer server = RawLoadServer.start(GatewayLoad.TOKEN);
            return new LoadTarget(prefix, server.port(), heap, () -> 0, rss, () -> 0, LoadServer::jitMillis,
                    () -> server.disposeNow(Duration.ofSeconds(10)));
        }
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        ToolExecutor executor = LoadServer.executor(meters);
        GatewayServer server;
        try {
            server = LoadServer.start(executor, meters, GatewayLoad.TOKEN);
        } catch (RuntimeException | Error e) {
            executor.close();
            throw e;
        }
        return new LoadTarget(prefix, server.port(), heap, () -> 0, rss, () -> 0, LoadServer::jitMillis, () -> {
            try {
                server.close();
            } finally {
                executor.close();
            }
        });
    }

    /** The kept-alive HTTP connections of the load clients (opened as the first run needs them). */
    synchronized reactor.netty.resources.ConnectionProvider httpPool(GatewayLoad.Options o) {
        if (httpPool == null) {
            httpPool = GatewayLoad.httpPool(o.clients());
        }
        return httpPool;
    }

    /** The load clients' open WebSocket connections, {@code o.clients()} of them, opened on the first call. */
    synchronized WsConnections websockets(GatewayLoad.Options o) {
        if (websockets == null) {
            websockets = WsConnections.open(port, o.clients(), o.clientThreads(), GatewayLoad.TOKEN, Duration.ofSeconds(30));
        }
        return websockets;
    }

    @Override
    public void close() throws Exception {
        try {
            if (websockets != null) {
                websockets.close();
            }
            if (httpPool != null) {
                httpPool.disposeLater().block(Duration.ofSeconds(10));
            }
        } finally {
            stop.close();
        }
    }

    static Process fork(Class<?> main, String cpus) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>();
        if (cpus != null) {
            command.addAll(List.of("taskset", "-c", cpus));
        }
        command.addAll(List.of(java, "-Xmx512m"));
        // GATEWAY_LOAD_SERVER_OPTS: extra JVM options for both server children (e.g. a JFR recording)
        String extra = System.getenv("GATEWAY_LOAD_SERVER_OPTS");
        if (extra != null && !extra.isBlank()) {
            command.addAll(Arrays.asList(extra.replace("{server}", main.getSimpleName()).strip().split("\\s+")));
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", main.getName(), GatewayLoad.TOKEN));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    static String readLine(BufferedReader r, String prefix) throws java.io.IOException {
        for (String line = r.readLine(); line != null; line = r.readLine()) {
            if (line.startsWith(prefix)) {
                return line.substring(prefix.length()).strip();
            }
        }
        throw new IllegalStateException("the load server ended before printing " + prefix.strip());
    }

    /** Sends one command of {@link LoadServer#serveCommands} and reads its number; 0 when the child cannot say. */
    static long ask(Process child, BufferedReader out, String command, String answer) {
        try {
            child.getOutputStream().write((command + "\n").getBytes(StandardCharsets.UTF_8));
            child.getOutputStream().flush();
            return Long.parseLong(readLine(out, answer));
        } catch (java.io.IOException | RuntimeException e) {
            return 0;
        }
    }

    /** The gateway's heap in use, summed from {@code jvm_memory_used_bytes{area="heap"}} of its /metrics. */
    static LongSupplier scraper(int port) {
        HttpClient metrics = HttpClient.create().baseUrl("http://127.0.0.1:" + port)
                .headers(h -> h.set(HttpHeaderNames.AUTHORIZATION, "Bearer " + GatewayLoad.TOKEN));
        return () -> {
            String text = metrics.get().uri("/metrics").responseSingle((res, body) -> body.asString())
                    .onErrorReturn("").block(Duration.ofSeconds(5));
            long sum = 0;
            if (text == null) {
                return 0;
            }
            for (String line : text.split("\n")) {
                if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) {
                    sum += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
            return sum;
        };
    }

    static long rssOf(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (Exception e) {
            return 0;
        }
        return 0;
    }
}
