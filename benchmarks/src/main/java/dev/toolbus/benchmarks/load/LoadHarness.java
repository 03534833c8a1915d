package dev.toolbus.benchmarks.load;

import dev.toolbus.benchmarks.HostSteal;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * End-to-end load on real brokers, toolbus side by side with a raw client loop.
 *
 * <p>For each broker given, and for one and for two consumer instances, scenarios run one after the
 * other on the same broker: the raw client loop ({@link RawRedisWorker}, {@link RawKafkaWorker}),
 * which is the ceiling, and {@code toolbus serve --sample-tools} from the server jar. On Kafka each
 * delivery mode is compared with the raw loop of the same mode: toolbus at least once against the
 * pipelined raw loop, toolbus exactly once (its default) against the transactional raw loop. Every consumer
 * is a JVM of its own. Each scenario first runs warm-up rounds (until steady, with the consumers' JIT
 * quiet, see {@code warmUp}), then the measured phase(s): {@code turns}
 * single-call {@code echo} turns over {@code streams} conversations, each conversation with one turn in
 * flight ({@link ClosedLoop}). It prints a table and writes it as Markdown.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.toolbus.benchmarks.load.LoadHarness \
 *      --redis redis://127.0.0.1:6379 --kafka 127.0.0.1:9092 --server-jar server/target/toolbus-server.jar \
 *      --turns 20000 --streams 200 --warmup 4000 --out benchmarks/results/load.md
 * </pre>
 *
 * Options: {@code --redis URI}, {@code --kafka HOST:PORT} (at least one), {@code --server-jar PATH},
 * {@code --turns N} (20000), {@code --streams M} (200), {@code --warmup N} (turns per warm-up round, 4000),
 * {@code --warmup-rounds R} (at most, 10), {@code --measures K} (measured phases per scenario, 1: each figure
 * of a row is then the median over the K phases; single phases of the same jars on 2 vCPUs moved by
 * more than the targets' margins),
 * {@code --instances 1,2}, {@code --kafka-delivery at-least-once|exactly-once} (only that mode's pair of
 * scenarios on Kafka; both by default), {@code --worker-jvm "-Xms512m -Xmx512m"} (add an async-profiler
 * {@code -agentpath:...,file=DIR/%p.collapsed} to profile every consumer process, one file per pid), {@code --redis-pid PID} and
 * {@code --kafka-pid PID} (to report the broker's CPU), {@code --logs DIR}, {@code --out FILE},
 * {@code --jfr DIR} (a JFR recording of every consumer process, {@code DIR/<scenario>-<n>.jfr}) with
 * {@code --jfr-settings NAME|FILE} ({@code profile}),
 * {@code --tool echo|count} (the sample tool of every call: {@code echo}, read-only, by default;
 * {@code count}, side-effecting, so each call also begins and finishes in the call journal),
 * {@code --serve-args "..."} (more arguments of every {@code toolbus serve}, for instance
 * {@code --config FILE}), {@code --without-ledger true} (one more toolbus row per pair, on Redis and on Kafka at
 * least once, with the turn ledger off: what that guarantee costs, compared with the same raw loop),
 * {@code --repeats R} (each scenario run R times, its consumer processes started and warmed up anew each
 * time, the scenarios of a pair in turn; a row's figures are the medians over the runs: processes of the
 * same jar differed by up to 1.45x where the phases within one agreed within 10 %),
 * {@code --kafka-counters true} (per phase, the consumers' own Kafka client counters over JMX: turns per
 * fetch and records per produce request), {@code --command TEXT} (recorded in the Markdown).
 */
public final class LoadHarness {

    /** At most this many measured phases per scenario, the last kept whatever was stolen from it. */
    static final int MEASURED_ATTEMPTS = 3;

    private final Map<String, String> opts;
    private final int turns;
    private final int streams;
    private final int warmup;
    private final Path logs;
    /** {@code --without-ledger true}: a third row per pair, toolbus with its turn ledger off (what the ledger costs). */
    private final boolean withoutLedger;
    /** {@code --repeats R}: each scenario's consumer processes started, warmed up and measured R times. */
    private final int repeats;
    private int scenarios;
    /**
     * Starts every turn id of this run, so that runs against the same broker never repeat one: a Kafka
     * bus deduplicates turns it finished within its ledger window (1 h) and would replay, not run, them.
     */
    private final String runTag = Long.toString(System.currentTimeMillis(), 36);

    private LoadHarness(Map<String, String> opts) {
        this.opts = opts;
        this.streams = Integer.parseInt(opts.getOrDefault("streams", "200"));
        int n = Integer.parseInt(opts.getOrDefault("turns", "20000"));
        this.turns = Math.max(1, n / streams) * streams;
        int w = Integer.parseInt(opts.getOrDefault("warmup", "4000"));
        this.warmup = Math.max(1, w / streams) * streams;
        this.logs = Path.of(opts.getOrDefault("logs", "benchmarks/target/load-logs"));
        this.withoutLedger = Boolean.parseBoolean(opts.getOrDefault("without-ledger", "false"));
        this.repeats = Math.max(1, Integer.parseInt(opts.getOrDefault("repeats", "1")));
        if (withoutLedger && opts.getOrDefault("serve-args", "").contains("--config")) {
            throw new IllegalArgumentException("--without-ledger gives toolbus serve a --config of its own; "
                    + "drop --config from --serve-args");
        }
        String tool = opts.getOrDefault("tool", "echo");
        if (!tool.equals("echo") && !tool.equals("count")) {
            throw new IllegalArgumentException("--tool is echo or count, got " + tool);
        }
        EchoEvents.tool = tool;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --name value, got " + args[i]);
            }
            opts.put(args[i].substring(2), args[i + 1]);
        }
        if (!opts.containsKey("redis") && !opts.containsKey("kafka")) {
            throw new IllegalArgumentException("give --redis URI and/or --kafka HOST:PORT");
        }
        new LoadHarness(opts).run();
    }

    private void run() throws Exception {
        Files.createDirectories(logs);
        String loadBefore = loadAverage();
        Instant started = Instant.now();
        List<Row> rows = new ArrayList<>();
        int[] instances = Arrays.stream(opts.getOrDefault("instances", "1,2").split(","))
                .mapToInt(s -> Integer.parseInt(s.trim())).toArray();
        if (opts.containsKey("redis")) {
            try (Broker b = new RedisBroker(opts.get("redis"), streams)) {
                runBroker(b, instances, pid("redis-pid"), rows);
            }
        }
        if (opts.containsKey("kafka")) {
            try (Broker b = new KafkaBroker(opts.get("kafka"))) {
                runBroker(b, instances, pid("kafka-pid"), rows);
            }
        }
        String loadAfter = loadAverage();
        String table = table(rows);
        System.out.println();
        System.out.println(table);
        String md = markdown(rows, started, loadBefore, loadAfter);
        if (opts.containsKey("out")) {
            Path out = Path.of(opts.get("out"));
            if (out.getParent() != null) {
                Files.createDirectories(out.getParent());
            }
            Files.writeString(out, md);
            System.out.println("written: " + out);
        }
        if (rows.stream().anyMatch(r -> r.error != null)) {
            System.exit(1);
        }
    }

    private void runBroker(Broker broker, int[] instances, long brokerPid, List<Row> rows) {
        for (int n : instances) {
            if (broker.name().equals("kafka")) {
                // each delivery mode against the raw loop of the same mode
                if (modeRuns("at-least-once")) {
                    group(broker, n, brokerPid, rows, "raw", withoutLedger
                            ? List.of("toolbus-alo", "toolbus-alo-noledger") : List.of("toolbus-alo"));
                }
                if (modeRuns("exactly-once")) {
                    group(broker, n, brokerPid, rows, "raw-eos", List.of("toolbus"));
                }
            } else {
                group(broker, n, brokerPid, rows, "raw", withoutLedger
                        ? List.of("toolbus", "toolbus-noledger") : List.of("toolbus"));
            }
        }
    }

    /**
     * A raw loop and the toolbus consumers compared with it, each run {@code --repeats} times in turn (raw,
     * toolbus, ..., raw, toolbus, ...: a drift of the machine reaches all of them), each a process of its
     * own; a row's figures are the medians over its runs.
     */
    private void group(Broker broker, int n, long brokerPid, List<Row> rows, String rawRunner, List<String> toolbus) {
        List<String> runners = new ArrayList<>();
        runners.add(rawRunner);
        runners.addAll(toolbus);
        Map<String, List<Row>> runs = new java.util.LinkedHashMap<>();
        for (int r = 0; r < repeats; r++) {
            for (String runner : runners) {
                runs.computeIfAbsent(runner, k -> new ArrayList<>()).add(scenario(broker, runner, n, brokerPid));
            }
        }
        Row raw = Row.merged(runs.get(rawRunner));
        rows.add(raw);
        for (String t : toolbus) {
            rows.add(compared(Row.merged(runs.get(t)), raw));
        }
    }

    /**
     * {@code --kafka-counters true}: the consumers' Kafka client counters per phase, over JMX (the
     * harness attaches to each consumer and starts its local management agent, which listens on a
     * port of its own; off by default, so the CI smoke run opens no such port).
     */
    private boolean kafkaCounters() {
        return Boolean.parseBoolean(opts.getOrDefault("kafka-counters", "false"));
    }

    /** {@code --kafka-delivery at-least-once|exactly-once} runs only that mode's pair on Kafka (both by default). */
    private boolean modeRuns(String mode) {
        String only = opts.get("kafka-delivery");
        return only == null || only.equals(mode);
    }

    private static Row compared(Row toolbus, Row raw) {
        if (raw.stats != null && toolbus.stats != null) {
            toolbus.ratio = toolbus.stats.callsPerSecond() / raw.stats.callsPerSecond();
            toolbus.cpuRatio = toolbus.workerCpuUs / raw.workerCpuUs;
            toolbus.cpuRatioCompiled = (toolbus.workerCpuUs - toolbus.jitCpuUs) / (raw.workerCpuUs - raw.jitCpuUs);
        }
        return toolbus;
    }

    private Row scenario(Broker broker, String runner, int instances, long brokerPid) {
        int index = ++scenarios;
        String name = broker.name() + "-" + runner + "-" + instances;
        Row row = new Row(broker.name(), runner, instances);
        System.out.printf(Locale.ROOT, "%n== %s: %d turns over %d streams after warm-up rounds of %d turns (load average %s)%n",
                name, turns, streams, warmup, loadAverage());
        Workers workers = null;
        try {
            String group = broker.prepare(name);
            List<List<String>> commands = new ArrayList<>();
            List<Path> logFiles = new ArrayList<>();
            for (int i = 1; i <= instances; i++) {
                String instance = name + "-" + i;
                commands.add(command(broker, runner, group, instance));
                logFiles.add(logs.resolve(instance + ".log"));
            }
            workers = Workers.start(commands, logFiles);
            broker.awaitConsumers(group, instances, Duration.ofSeconds(90));
            if (kafkaCounters()) {
                // attached before the warm-up: the management agent's classes load and compile in the
                // consumers there, not in a measured phase (where they once cost 20-45 µs per turn of JIT)
                workers.kafkaCounters();
            }
            warmUp(broker, index, workers);

            int measures = Math.max(1, Integer.parseInt(opts.getOrDefault("measures", "1")));
            for (int m = 1; m <= measures; m++) {
                Sample s = measure(broker, index, m, workers, brokerPid);
                row.samples.add(s);
                if (s.stats.goodResults() < turns || s.stats.badResults() > 0) {
                    row.error = "wrong results in measured phase " + m + ": " + s.stats.goodResults() + " good, "
                            + s.stats.badResults() + " bad";
                }
            }
            row.settle();
            if (measures > 1) {
                System.out.printf(Locale.ROOT, "   median of %d measured phases: %,.0f calls/s, consumer CPU %.0f µs/turn%n",
                        measures, row.stats.callsPerSecond(), row.workerCpuUs);
            }
        } catch (Exception e) {
            row.error = e.toString();
            System.out.println("   FAILED: " + e);
        } finally {
            try {
                if (workers != null) {
                    workers.close();
                }
                broker.finish();
            } catch (Exception e) {
                System.out.println("   cleanup: " + e);
            }
        }
        return row;
    }

    /**
     * One measured phase of {@code turns} turns and what it cost; measured again (at most
     * {@link #MEASURED_ATTEMPTS} times) while the hypervisor took more than {@link HostSteal#MAX_SHARE} of
     * the machine's time.
     */
    private Sample measure(Broker broker, int index, int m, Workers workers, long brokerPid) throws InterruptedException {
        Sample s = new Sample();
        long workerCpu0;
        long workerJit0;
        long workerGc0;
        Map<String, Double> kafka0;
        long brokerCpu0;
        long ownCpu0;
        Map<String, Long> commands0;
        Map<String, Long> writes0;
        ClosedLoop measured;
        for (int attempt = 1; ; attempt++) {
            workerCpu0 = workers.cpuNanos();
            workerJit0 = workers.jitNanos();
            workerGc0 = workers.gcNanos();
            kafka0 = kafkaCounters() ? workers.kafkaCounters() : Map.of();
            brokerCpu0 = cpuOf(brokerPid);
            ownCpu0 = ownCpu();
            commands0 = broker.commandCounts();
            writes0 = broker.writeCounts();
            HostSteal before = HostSteal.now();
            measured = phase(broker, runTag + "m" + index + "-" + m + (attempt == 1 ? "" : "-" + attempt), turns, workers);
            s.stolen = HostSteal.share(before, HostSteal.now());
            if (s.stolen <= HostSteal.MAX_SHARE || attempt == MEASURED_ATTEMPTS) {
                break;
            }
            // the hypervisor took the machine's time: the phase says more about the host than the code
            System.out.printf(Locale.ROOT, "   measured phase %d, attempt %d set aside: %.1f %% of the machine's time stolen%n",
                    m, attempt, s.stolen * 100);
            s.setAside++;
        }
        Map<String, Long> commands1 = broker.commandCounts();
        Map<String, Long> writes1 = broker.writeCounts();
        if (!writes1.isEmpty()) {
            StringBuilder perTurn = new StringBuilder();
            for (Map.Entry<String, Long> w : writes1.entrySet()) {
                long n = w.getValue() - writes0.getOrDefault(w.getKey(), 0L);
                if (n != 0) {
                    perTurn.append(String.format(Locale.ROOT, "; %s %.2f", w.getKey(), n / (double) turns));
                }
            }
            System.out.println("   broker writes per turn (all clients, the harness's included)" + perTurn);
        }
        if (!commands1.isEmpty()) {
            StringBuilder perTurn = new StringBuilder();
            long sum = 0;
            for (Map.Entry<String, Long> c : commands1.entrySet()) {
                long n = c.getValue() - commands0.getOrDefault(c.getKey(), 0L);
                if (n > 0 && !c.getKey().equals("info")) {
                    sum += n;
                    perTurn.append(String.format(Locale.ROOT, " %s %.2f", c.getKey(), n / (double) turns));
                }
            }
            s.commandsPerTurn = sum / (double) turns;
            System.out.println("   broker commands per turn (harness and scripts included):" + perTurn);
        }
        s.workerCpuUs = (workers.cpuNanos() - workerCpu0) / 1e3 / turns;
        double jitUs = Math.max(0, workers.jitNanos() - workerJit0) / 1e3 / turns;
        s.jitCpuUs = jitUs;
        // the JIT may still compile in the measured phase on a loaded machine: its share, and the rest
        double gcUs = Math.max(0, workers.gcNanos() - workerGc0) / 1e3 / turns;
        System.out.printf(Locale.ROOT, "   consumer CPU: %.0f µs/turn, of which the JIT compiler threads %.0f and the"
                        + " collector's threads %.1f; without the JIT %.0f%n", s.workerCpuUs, jitUs, gcUs, s.workerCpuUs - jitUs);
        Map<String, Double> kafka1 = kafkaCounters() ? workers.kafkaCounters() : Map.of();
        if (!kafka1.isEmpty()) {
            StringBuilder k = new StringBuilder();
            for (Map.Entry<String, Double> e : kafka1.entrySet()) {
                k.append(String.format(Locale.ROOT, " %s %.0f;", e.getKey(), e.getValue() - kafka0.getOrDefault(e.getKey(), 0.0)));
            }
            double fetches = kafka1.getOrDefault("fetches", 0.0) - kafka0.getOrDefault("fetches", 0.0);
            double requests = kafka1.getOrDefault("produce requests", 0.0) - kafka0.getOrDefault("produce requests", 0.0);
            System.out.printf(Locale.ROOT, "   consumer's Kafka clients:%s %.1f turns per fetch, %.1f records per produce request%n",
                    k, fetches > 0 ? turns / fetches : Double.NaN,
                    requests > 0 ? (kafka1.getOrDefault("records sent", 0.0) - kafka0.getOrDefault("records sent", 0.0)) / requests
                            : Double.NaN);
        }
        s.brokerCpuUs = brokerPid > 0 ? (cpuOf(brokerPid) - brokerCpu0) / 1e3 / turns : Double.NaN;
        s.harnessCpuUs = (ownCpu() - ownCpu0) / 1e3 / turns;
        s.stats = measured.stats();
        System.out.printf(Locale.ROOT, "   measured phase %d: %,.0f calls/s, p50 %.2f ms, p99 %.2f ms, good results %d, repeats %d%n",
                m, s.stats.callsPerSecond(), s.stats.p50Ms(), s.stats.p99Ms(), s.stats.goodResults(), s.stats.repeats());
        return s;
    }

    /**
     * Warm-up rounds of {@code warmup} turns until two in a row agree on calls/s within 5 % and the
     * consumers' JIT compiler threads used at most 2 % of their CPU in each of the two (at most
     * {@code --warmup-rounds}, default 10): while the JIT compiles it takes CPU the measured phase would
     * otherwise count, and two runs of the same jars differed by 2x with one fixed warm-up. One quiet
     * round is not enough: a round of a few thousand turns can fall between two C2 compilations.
     */
    private void warmUp(Broker broker, int index, Workers workers) throws InterruptedException {
        int maxRounds = Math.max(1, Integer.parseInt(opts.getOrDefault("warmup-rounds", "10")));
        double last = -1;
        double lastJit = 1;
        StringBuilder perRound = new StringBuilder();
        int rounds = 0;
        ClosedLoop warm;
        while (true) {
            long jit0 = workers.jitNanos();
            long cpu0 = workers.cpuNanos();
            warm = phase(broker, runTag + "w" + index + "-" + rounds, warmup, workers);
            long jit = workers.jitNanos() - jit0;
            long cpu = workers.cpuNanos() - cpu0;
            rounds++;
            double rate = warm.stats().callsPerSecond();
            double jitShare = cpu > 0 ? Math.max(0, jit) / (double) cpu : 0;
            perRound.append(String.format(Locale.ROOT, " %.0f/%.0f%%", rate, jitShare * 100));
            boolean steady = last > 0 && Math.abs(rate - last) <= 0.05 * Math.max(rate, last) && jitShare <= 0.02
                    && lastJit <= 0.02;
            last = rate;
            lastJit = jitShare;
            if (steady || rounds >= maxRounds) {
                break;
            }
        }
        System.out.printf(Locale.ROOT, "   warm-up: %d round(s) of %d turns, last %,.0f calls/s, p50 %.2f ms"
                + " (calls/s / JIT share of the consumers' CPU per round:%s)%n", rounds, warmup,
                warm.stats().callsPerSecond(), warm.stats().p50Ms(), perRound);
    }

    private ClosedLoop phase(Broker broker, String tag, int total, Workers workers) throws InterruptedException {
        ClosedLoop loop = new ClosedLoop(tag, streams, total / streams, broker::publish);
        broker.follow(loop);
        loop.start();
        long timeoutMs = Long.parseLong(opts.getOrDefault("phase-timeout-ms", "" + Math.max(120_000, total * 20L)));
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (!loop.await(1, TimeUnit.SECONDS)) {
            workers.checkAlive();
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException(tag + ": only " + loop.completed() + " of " + total
                        + " turns completed within " + timeoutMs + " ms; waiting for " + loop.stuck(5));
            }
        }
        return loop;
    }

    private List<String> command(Broker broker, String runner, String group, String instance) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Workers.java());
        cmd.addAll(Arrays.asList(opts.getOrDefault("worker-jvm", "-Xms512m -Xmx512m").trim().split("\\s+")));
        if (opts.containsKey("jfr")) {
            // one recording per consumer process, written when it exits (the JVM does not create the folder)
            try {
                java.nio.file.Files.createDirectories(Path.of(opts.get("jfr")));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException("cannot create the --jfr folder", e);
            }
            cmd.add("-XX:StartFlightRecording=filename=" + Path.of(opts.get("jfr"), instance + ".jfr").toAbsolutePath()
                    + ",settings=" + opts.getOrDefault("jfr-settings", "profile"));
        }
        if (runner.startsWith("raw")) {
            cmd.add("-cp");
            cmd.add(System.getProperty("java.class.path"));
            cmd.addAll(broker.rawWorker(group, instance));
            if (runner.equals("raw-eos")) {
                cmd.add("exactly-once");
            }
        } else {
            cmd.add("-jar");
            cmd.add(opts.getOrDefault("server-jar", "server/target/toolbus-server.jar"));
            String uri = runner.startsWith("toolbus-alo") ? broker.busUri() + "?delivery=at-least-once" : broker.busUri();
            cmd.addAll(List.of("serve", "--bus", uri, "--sample-tools", "--instance", instance,
                    "--group", group));
            if (runner.endsWith("-noledger")) {
                cmd.addAll(List.of("--config", noLedgerConfig().toString()));
            }
            String extra = opts.getOrDefault("serve-args", "").trim();
            if (!extra.isEmpty()) {
                cmd.addAll(Arrays.asList(extra.split("\\s+")));
            }
        }
        return cmd;
    }

    /**
     * A {@code toolbus.yaml} that turns the turn ledger off ({@code bus.idempotency.windowMs: 0}: no
     * finished-turn records and no running-turn claims on Redis, no in-memory ledger on Kafka at least
     * once), written once into the logs folder.
     */
    private Path noLedgerConfig() {
        Path file = logs.resolve("toolbus-noledger.yaml").toAbsolutePath();
        try {
            Files.writeString(file, "bus:\n  idempotency:\n    windowMs: 0\n");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot write " + file, e);
        }
        return file;
    }

    // ---------------------------------------------------------------- reporting

    private static String table(List<Row> rows) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%-6s %-11s %4s %8s %10s %9s %9s %9s %11s %7s %11s %12s %7s %7s %7s %7s %s%n", "broker",
                "runner", "inst", "turns", "calls/s", "p50 ms", "p99 ms", "max ms", "worker µs/t", "JIT", "broker µs/t",
                "harness µs/t", "cmd/t", "tb/raw", "cpu x", "no JIT", ""));
        for (Row r : rows) {
            if (r.stats == null) {
                sb.append(String.format(Locale.ROOT, "%-6s %-11s %4d FAILED %s%n", r.broker, r.runner, r.instances, r.error));
                continue;
            }
            sb.append(String.format(Locale.ROOT, "%-6s %-11s %4d %8d %10.0f %9.2f %9.2f %9.2f %11.0f %7.0f %11.0f %12.0f %7s %7s %7s %7s %s%n",
                    r.broker, r.runner, r.instances, r.stats.turns(), r.stats.callsPerSecond(), r.stats.p50Ms(),
                    r.stats.p99Ms(), r.stats.maxMs(), r.workerCpuUs, r.jitCpuUs, r.brokerCpuUs, r.harnessCpuUs,
                    Double.isNaN(r.commandsPerTurn) ? "" : String.format(Locale.ROOT, "%.2f", r.commandsPerTurn),
                    Double.isNaN(r.ratio) ? "" : String.format(Locale.ROOT, "%.2f", r.ratio),
                    Double.isNaN(r.cpuRatio) ? "" : String.format(Locale.ROOT, "%.2f", r.cpuRatio),
                    Double.isNaN(r.cpuRatioCompiled) ? "" : String.format(Locale.ROOT, "%.2f", r.cpuRatioCompiled),
                    r.error == null ? "" : r.error));
        }
        return sb.toString();
    }

    private String markdown(List<Row> rows, Instant started, String loadBefore, String loadAfter) {
        StringBuilder sb = new StringBuilder();
        sb.append("| broker | consumer | instances | calls/s | p50 ms | p99 ms | max ms | consumer CPU µs/turn "
                + "| of which the JIT compiler | broker CPU µs/turn | broker commands/turn | harness CPU µs/turn "
                + "| toolbus/raw calls/s | toolbus/raw consumer CPU | the same without the JIT compiler "
                + "| time stolen (phases set aside) |\n");
        sb.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Row r : rows) {
            if (r.stats == null) {
                sb.append("| ").append(r.broker).append(" | ").append(r.runner).append(" | ").append(r.instances)
                        .append(" | failed: ").append(r.error).append(" | | | | | | | | | | | | |\n");
                continue;
            }
            sb.append(String.format(Locale.ROOT, "| %s | %s | %d | %,.0f | %.2f | %.2f | %.1f | %.0f | %.0f | %s | %s | %.0f | %s | %s | %s | %.1f %% (%d) |%n",
                    r.broker, label(r), r.instances,
                    r.stats.callsPerSecond(), r.stats.p50Ms(), r.stats.p99Ms(), r.stats.maxMs(), r.workerCpuUs, r.jitCpuUs,
                    Double.isNaN(r.brokerCpuUs) ? "" : String.format(Locale.ROOT, "%.0f", r.brokerCpuUs),
                    Double.isNaN(r.commandsPerTurn) ? "" : String.format(Locale.ROOT, "%.2f", r.commandsPerTurn),
                    r.harnessCpuUs,
                    Double.isNaN(r.ratio) ? "" : String.format(Locale.ROOT, "**%.2f**", r.ratio),
                    Double.isNaN(r.cpuRatio) ? "" : String.format(Locale.ROOT, "**%.2f**", r.cpuRatio),
                    Double.isNaN(r.cpuRatioCompiled) ? "" : String.format(Locale.ROOT, "**%.2f**", r.cpuRatioCompiled),
                    r.stolen * 100, r.setAside));
        }
        sb.append("\n");
        if (rows.stream().anyMatch(r -> r.samples.size() > 1 || !r.runs.isEmpty())) {
            sb.append("Measured phases, in order (calls/s / consumer CPU µs per turn, of which the JIT compiler in"
                    + " parentheses; \" | \" between runs in processes of"
                    + " their own; each column above is their median):");
            for (Row r : rows) {
                if (r.samples.size() > 1 || !r.runs.isEmpty()) {
                    sb.append(" ").append(r.broker).append(' ').append(r.runner).append(' ').append(r.instances)
                            .append(": ").append(r.phases()).append(';');
                }
            }
            sb.setLength(sb.length() - 1);
            sb.append(".\n");
        }
        int measures = Math.max(1, Integer.parseInt(opts.getOrDefault("measures", "1")));
        sb.append("Run of ").append(started).append(": ").append(repeats > 1 ? repeats + " runs per scenario, in turn, each of " : "")
                .append(measures > 1 ? measures + " measured phases of " : "")
                .append(turns).append(measures > 1 ? " turns" : " measured turns").append(" over ")
                .append(streams).append(" streams after warm-up rounds of ").append(warmup)
                .append(" turns per scenario (until two agree within 5 % with the consumers' JIT under 2 % of their CPU in both,"
                        + " at most ").append(opts.getOrDefault("warmup-rounds", "10")).append("); a measured phase during"
                        + " which the hypervisor took more than ").append(Math.round(HostSteal.MAX_SHARE * 100))
                .append(" % of the machine's time is measured again, at most ")
                .append(MEASURED_ATTEMPTS).append(" times; ")
                .append("load average before ").append(loadBefore).append(", after ").append(loadAfter).append(".\n");
        sb.append("Machine: ").append(Runtime.getRuntime().availableProcessors()).append(" CPUs (")
                .append(cpuModel()).append("), ").append(System.getProperty("java.vm.name")).append(' ')
                .append(System.getProperty("java.runtime.version")).append(".\n");
        if (opts.containsKey("command")) {
            sb.append("Command: `").append(opts.get("command")).append("`\n");
        }
        return sb.toString();
    }

    /** The consumer column: which loop, and on Kafka which delivery mode. */
    private static String label(Row r) {
        boolean kafka = r.broker.equals("kafka");
        return switch (r.runner) {
            case "raw" -> kafka ? "raw client loop, at least once (pipelined)" : "raw client loop (pipelined)";
            case "raw-eos" -> "raw client loop, exactly once (transaction per poll)";
            case "toolbus-alo" -> "toolbus serve, at least once";
            case "toolbus-alo-noledger" -> "toolbus serve, at least once, turn ledger off";
            case "toolbus-noledger" -> "toolbus serve, turn ledger off";
            default -> kafka ? "toolbus serve, exactly once (default)" : "toolbus serve";
        };
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException e) {
            // not Linux
        }
        return "unknown CPU";
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " / " + f[1] + " / " + f[2];
        } catch (IOException e) {
            return "unknown";
        }
    }

    private long pid(String key) {
        return Long.parseLong(opts.getOrDefault(key, "0"));
    }

    private static long cpuOf(long pid) {
        if (pid <= 0) {
            return 0;
        }
        return ProcessHandle.of(pid).flatMap(h -> h.info().totalCpuDuration()).map(Duration::toNanos).orElse(0L);
    }

    private static long ownCpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** One line of the result table. */
    private static final class Row {
        final String broker;
        final String runner;
        final int instances;
        ClosedLoop.Stats stats;
        double workerCpuUs = Double.NaN;
        double brokerCpuUs = Double.NaN;
        double harnessCpuUs = Double.NaN;
        double ratio = Double.NaN;
        double cpuRatio = Double.NaN;
        /** {@link #cpuRatio} without the consumers' JIT compiler threads on either side. */
        double cpuRatioCompiled = Double.NaN;
        double jitCpuUs = Double.NaN;
        double commandsPerTurn = Double.NaN;
        /** The largest share of the machine's time the hypervisor took during a measured phase kept. */
        double stolen;
        /** Measured phases measured again because the hypervisor took more than {@link HostSteal#MAX_SHARE}. */
        int setAside;
        String error;
        final List<Sample> samples = new ArrayList<>();

        Row(String broker, String runner, int instances) {
            this.broker = broker;
            this.runner = runner;
            this.instances = instances;
        }

        /**
         * The row's figures from its measured phases: each cost column is the median of that column over
         * the phases; calls/s and the latencies are the phase whose calls/s is the median.
         */
        void settle() {
            workerCpuUs = median(samples, s -> s.workerCpuUs);
            jitCpuUs = median(samples, s -> s.jitCpuUs);
            brokerCpuUs = median(samples, s -> s.brokerCpuUs);
            harnessCpuUs = median(samples, s -> s.harnessCpuUs);
            commandsPerTurn = median(samples, s -> s.commandsPerTurn);
            stats = medianBy(samples, s -> s.stats.callsPerSecond()).stats;
            stolen = samples.stream().mapToDouble(s -> s.stolen).max().orElse(0);
            setAside = samples.stream().mapToInt(s -> s.setAside).sum();
        }

        /** Runs of this scenario in their own processes, when there were several ({@link #merged}). */
        List<Row> runs = List.of();

        /** The phases' calls/s and consumer CPU per turn, in the order measured, per run (" | " between runs). */
        String phases() {
            if (!runs.isEmpty()) {
                StringBuilder sb = new StringBuilder();
                for (Row r : runs) {
                    sb.append(sb.length() == 0 ? "" : " | ").append(r.phases());
                }
                return sb.toString();
            }
            StringBuilder sb = new StringBuilder();
            for (Sample s : samples) {
                sb.append(sb.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%,.0f/%.0f (%.0f)",
                        s.stats.callsPerSecond(), s.workerCpuUs, s.jitCpuUs));
            }
            return sb.toString();
        }

        /**
         * One row of several runs of a scenario: each figure the median of the runs' figures (each itself
         * the median of its phases); calls/s and the latencies those of the run whose calls/s is the median.
         */
        static Row merged(List<Row> runs) {
            if (runs.size() == 1) {
                return runs.get(0);
            }
            Row first = runs.get(0);
            Row m = new Row(first.broker, first.runner, first.instances);
            m.runs = List.copyOf(runs);
            List<Row> done = runs.stream().filter(r -> r.stats != null).toList();
            m.error = runs.stream().map(r -> r.error).filter(java.util.Objects::nonNull).findFirst().orElse(null);
            if (done.isEmpty()) {
                return m;
            }
            m.workerCpuUs = median(done, r -> r.workerCpuUs);
            m.jitCpuUs = median(done, r -> r.jitCpuUs);
            m.brokerCpuUs = median(done, r -> r.brokerCpuUs);
            m.harnessCpuUs = median(done, r -> r.harnessCpuUs);
            m.commandsPerTurn = median(done, r -> r.commandsPerTurn);
            m.stats = medianBy(done, r -> r.stats.callsPerSecond()).stats;
            m.stolen = done.stream().mapToDouble(r -> r.stolen).max().orElse(0);
            m.setAside = done.stream().mapToInt(r -> r.setAside).sum();
            return m;
        }
    }

    /** The median of a figure over the items, as {@link #median(double[])}. */
    static <T> double median(List<T> items, java.util.function.ToDoubleFunction<T> figure) {
        return median(items.stream().mapToDouble(figure).toArray());
    }

    /** The item whose figure is the median (the lower of the middle two for an even count). */
    static <T> T medianBy(List<T> items, java.util.function.ToDoubleFunction<T> figure) {
        List<T> sorted = new ArrayList<>(items);
        sorted.sort(java.util.Comparator.comparingDouble(figure));
        return sorted.get((sorted.size() - 1) / 2);
    }

    /** The median of the values that are not NaN (an even count: the mean of the middle two); NaN if none. */
    static double median(double[] values) {
        double[] v = Arrays.stream(values).filter(d -> !Double.isNaN(d)).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** One measured phase of a scenario. */
    private static final class Sample {
        ClosedLoop.Stats stats;
        double workerCpuUs = Double.NaN;
        /** Of {@link #workerCpuUs}, the consumers' JIT compiler threads. */
        double jitCpuUs = Double.NaN;
        double brokerCpuUs = Double.NaN;
        double harnessCpuUs = Double.NaN;
        double commandsPerTurn = Double.NaN;
        double stolen;
        int setAside;
    }
}
