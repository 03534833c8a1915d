package dev.toolbus.benchmarks.scale;

import dev.toolbus.benchmarks.gateway.GatewayLoad;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Memory and scale of a real {@code toolbus serve} (issue 14's fourth target), each figure the server's
 * live set after a full collection ({@link LiveHeap}):
 * <ol>
 *   <li>a flood of one-call turns through the stdio sidecar, over a thousand streams: the live set at
 *       the end against the one after the warm-up (target: within 10 %);</li>
 *   <li>then turns on as many distinct streams, one turn each, in the same process: what they leave
 *       behind, in bytes per stream;</li>
 *   <li>a flood through the gateway's WebSocket ({@code /v1/ws}, 32 connections);</li>
 *   <li>idle WebSocket connections held open on that gateway: live set and resident memory per
 *       connection (target: at most 20 KB).</li>
 * </ol>
 *
 * <pre>
 * scripts/scale.sh                      # 1,000,000 turns per flood, 100,000 streams, 10,000 sockets
 * java -cp benchmarks/target/benchmarks.jar dev.toolbus.benchmarks.scale.ScaleHarness \
 *     --server-jar server/target/toolbus-server.jar --turns 1000000 --streams 100000 --sockets 10000
 * </pre>
 * Exits 1 when a turn failed or did not complete (not when a target is missed: the table says so).
 */
public final class ScaleHarness {

    static final String TOKEN = "scale-token";

    private ScaleHarness() {
    }

    /** One measured row. */
    record Row(String phase, long count, int errors, double seconds, long liveBefore, long liveAfter, String unit,
               String target) {
        String markdown() {
            double change = liveBefore == 0 ? 0 : 100.0 * (liveAfter - liveBefore) / liveBefore;
            return String.format(Locale.ROOT, "| %s | %,d | %d | %.0f | %.1f MiB | %.1f MiB | %+.1f %% | %s | %s |",
                    phase, count, errors, seconds <= 0 ? 0 : count / seconds, liveBefore / 1048576.0,
                    liveAfter / 1048576.0, change, unit, target);
        }
    }

    public static void main(String[] args) throws Exception {
        Path jar = Path.of("server/target/toolbus-server.jar");
        int turns = 1_000_000;
        int streams = 100_000;
        int sockets = 10_000;
        Path logs = Path.of("benchmarks/target/scale-logs");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--server-jar" -> jar = Path.of(args[++i]);
                case "--turns" -> turns = Integer.parseInt(args[++i]);
                case "--streams" -> streams = Integer.parseInt(args[++i]);
                case "--sockets" -> sockets = Integer.parseInt(args[++i]);
                case "--logs" -> logs = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (turns < 100 || streams < 1 || sockets < 1 || sockets > 15_000) {
            throw new IllegalArgumentException("--turns >= 100, --streams >= 1, --sockets within 1..15000");
        }
        Files.createDirectories(logs);
        System.out.printf(Locale.ROOT, "toolbus scale: %,d turns per flood, %,d distinct streams, %,d idle sockets, "
                + "%d cores, server -Xmx512m%n", turns, streams, sockets, Runtime.getRuntime().availableProcessors());
        List<Row> rows = new ArrayList<>();
        rows.addAll(sidecar(jar, logs, turns, streams));
        rows.addAll(gateway(jar, logs, turns, sockets));
        System.out.println("| phase | turns or sockets | errors | per second | live before | live after | change | per unit | target |");
        System.out.println("|---|---|---|---|---|---|---|---|---|");
        rows.forEach(r -> System.out.println(r.markdown()));
        boolean failed = rows.stream().anyMatch(r -> r.errors() > 0);
        System.exit(failed ? 1 : 0);
    }

    static List<Row> sidecar(Path jar, Path logs, int turns, int streams) throws Exception {
        List<Row> rows = new ArrayList<>();
        try (ServeProcess serve = ServeProcess.sidecar(jar, "512m", logs)) {
            SidecarFlood flood = new SidecarFlood(serve);
            int warmup = warmup(turns);
            flood.send(warmup, i -> "flood-" + (i % 1000));
            long before = LiveHeap.liveBytes(serve.pid());
            long t0 = System.nanoTime();
            flood.send(turns, i -> "flood-" + (i % 1000));
            double seconds = (System.nanoTime() - t0) / 1e9;
            long after = LiveHeap.liveBytes(serve.pid());
            rows.add(new Row("sidecar flood (1,000 streams)", turns, flood.errors(), seconds, before, after, "—",
                    within(before, after)));
            int errorsBefore = flood.errors();
            t0 = System.nanoTime();
            flood.send(streams, i -> "distinct-" + i);
            seconds = (System.nanoTime() - t0) / 1e9;
            long distinct = LiveHeap.liveBytes(serve.pid());
            rows.add(new Row("sidecar, one turn per distinct stream", streams, flood.errors() - errorsBefore, seconds,
                    after, distinct, String.format(Locale.ROOT, "%.1f B/stream", (distinct - after) / (double) streams),
                    within(after, distinct)));
        }
        return rows;
    }

    static List<Row> gateway(Path jar, Path logs, int turns, int sockets) throws Exception {
        List<Row> rows = new ArrayList<>();
        Path config = logs.resolve("scale.yaml");
        Files.writeString(config, "gateway:\n  maxConnections: " + (sockets + 1024) + "\n");
        try (ServeProcess serve = ServeProcess.gateway(jar, "512m", config, TOKEN, logs)) {
            Duration max = Duration.ofMinutes(20);
            GatewayLoad.Options warmup = new GatewayLoad.Options(warmup(turns), 32, true, max);
            GatewayLoad.websocket(serve.port, warmup, TOKEN);
            long before = LiveHeap.liveBytes(serve.pid());
            GatewayLoad.Samples s = GatewayLoad.websocket(serve.port, new GatewayLoad.Options(turns, 32, true, max), TOKEN);
            long after = LiveHeap.liveBytes(serve.pid());
            int missing = turns - s.latencies().length;
            rows.add(new Row("gateway WebSocket flood (32 connections)", turns, s.errors() + missing, s.nanos() / 1e9,
                    before, after, "—", within(before, after)));
            long rssBefore = LiveHeap.rss(serve.pid());
            try (IdleSockets idle = new IdleSockets()) {
                long t0 = System.nanoTime();
                int open = idle.open(serve.port, TOKEN, sockets, Duration.ofMinutes(5));
                double seconds = (System.nanoTime() - t0) / 1e9;
                long held = LiveHeap.liveBytes(serve.pid());
                long rssHeld = LiveHeap.rss(serve.pid());
                double perSocket = (held - after) / (double) Math.max(1, open);
                double rssPerSocket = (rssHeld - rssBefore) / (double) Math.max(1, open);
                rows.add(new Row("idle WebSocket connections", open, idle.failed() + (sockets - open), seconds, after,
                        held, String.format(Locale.ROOT, "%.1f KB heap, %.1f KB RSS /connection", perSocket / 1000,
                                rssPerSocket / 1000),
                        perSocket <= 20_000 ? "✓ ≤ 20 KB" : "✗ > 20 KB"));
            }
        }
        return rows;
    }

    /**
     * Turns sent before the first measurement: enough to fill every bounded structure that fills with
     * turns (the ledger of idempotent turns keeps the last 100,000 by default, the call log its ring),
     * so the run measures what stays, not what a bound lets grow. A fifth of the turns, at most 120,000.
     */
    static int warmup(int turns) {
        return Math.max(50, Math.min(120_000, turns / 5));
    }

    static String within(long before, long after) {
        return after <= before * 1.10 ? "✓ within 10 %" : "✗ over 10 %";
    }
}
