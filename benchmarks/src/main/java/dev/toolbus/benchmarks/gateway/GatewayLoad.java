package dev.toolbus.benchmarks.gateway;

import dev.toolbus.benchmarks.HostSteal;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * A bounded, loopback-only load run of the gateway: a fixed number of one-call turns ({@code echo})
 * over HTTP ({@code POST /v1/turns}, JSON answer) and over WebSocket ({@code /v1/ws}, each connection
 * sending its next turn when the previous one completed), from {@code --clients} concurrent clients;
 * the same turns run in process as the baseline. Prints calls/s, p50/p99 latency and the server's
 * memory.
 *
 * <p>By default the server runs in a child JVM ({@link LoadServer}, same classpath, {@code -Xmx512m})
 * so its memory is measured apart from the clients': the peak of
 * {@code jvm_memory_used_bytes{area="heap"}} from its {@code /metrics} (sampled every second; it
 * includes garbage not yet collected), the heap used after a full collection at the end of the
 * phase (what the server retains), and its peak resident set size from /proc. Each transport gets an
 * unmeasured warm-up of a fifth of the turns (at most 2000) first.
 *
 * <pre>
 * scripts/gateway-load.sh                       # builds the benchmarks jar, runs, writes benchmarks/results/gateway-load.md
 * java -cp benchmarks/target/benchmarks.jar dev.toolbus.benchmarks.gateway.GatewayLoad --requests 20000 --clients 32
 * </pre>
 *
 * Options: {@code --requests N} turns per transport (default 10000, at most 1000000), {@code --clients C}
 * concurrent clients (default 32, at most 512), {@code --in-process-server} to serve from this JVM,
 * {@code --max-seconds S} bound of each phase (default 120), {@code --warmup N} unmeasured turns per warm-up
 * round (default a fifth of the turns, at most 2000), {@code --repeats R} measured runs of each phase whose
 * median is reported (default 3, at most 9), {@code --client-threads T} event-loop threads of the clients
 * (default 1), {@code --server-cpus LIST} runs the forked servers under {@code taskset -c LIST}.
 *
 * <p>Reproducibility: the clients run on their own fixed event loops (not the shared default, whose size
 * follows the machine); each transport is warmed up in rounds until two rounds in a row agree on calls/s
 * within 5 % and the server's JIT compilers spent at most 2 % of the last three rounds compiling (at most
 * {@value #MAX_WARMUP_ROUNDS} rounds: the gateway's larger code keeps the JIT compiling longer than the raw
 * server's, and on the server's one core the compiler takes time from the event loop). Both servers run
 * from the start, and each transport's {@code --repeats} measured runs alternate between the gateway and
 * the raw server, so a change in the machine over the minutes of a run lands on both sides of the ratio
 * (measured one after the other, the raw server's WebSocket rate moved between 33,330 and 53,778 calls/s
 * from run to run); the median run of each is reported with the spread of all runs, and the ratio of
 * each back-to-back pair beside the ratio of the medians. A pair during which the hypervisor took more
 * than {@link HostSteal#MAX_SHARE} of the machine's time ({@code steal} in {@code /proc/stat}) is set
 * aside and measured again, so that a record says how fast the servers are rather than how busy the host
 * was (docs/benchmarks.md, "Performance, eighth pass"). With {@code --server-cpus} (the script pins
 * the harness to the first core and the servers to the others) client and server stop taking each other's
 * core, and the client's CPU use shows whether it, not the server, was the limit.
 */
public final class GatewayLoad {

    static final String TOKEN = "load-token";

    /** At most this many warm-up rounds per transport, steady or not. */
    static final int MAX_WARMUP_ROUNDS = 40;

    /**
     * A warm-up round counts as steady only when the server's JIT compilers spent at most this share of the
     * round's time: while they compile, they take the server's core from the event loop, so an early
     * measured run was slower than a late one (a spread of up to 69 % between the three runs of one phase).
     */
    static final double JIT_QUIET = 0.02;

    /**
     * The JIT must be quiet over this many warm-up rounds in a row, taken together: it compiles in bursts
     * (rounds of 400 ms of compiling between rounds of 3 ms), so one quiet round could end the warm-up in
     * the middle of them. (The measured runs of a phase still speed up from the first to the last with
     * three; docs/benchmarks.md, "Performance, fourth pass".)
     */
    static final int QUIET_ROUNDS = 3;

    /** Two warm-up rounds in a row within this share of each other count as steady. */
    static final double STEADY = 0.05;

    /** What to run. */
    public record Options(int requests, int clients, boolean forkServer, Duration maxPhase, int warmup, int repeats,
                          int clientThreads, String serverCpus) {
        /** With the default warm-up: a fifth of the turns, at most 2000; one run, one client thread. */
        public Options(int requests, int clients, boolean forkServer, Duration maxPhase) {
            this(requests, clients, forkServer, maxPhase, Math.max(1, Math.min(2000, requests / 5)));
        }

        /** One run, one client thread, servers unpinned. */
        public Options(int requests, int clients, boolean forkServer, Duration maxPhase, int warmup) {
            this(requests, clients, forkServer, maxPhase, warmup, 1, 1, null);
        }

        public Options {
            if (repeats < 1 || repeats > 9) {
                throw new IllegalArgumentException("repeats must be within 1..9");
            }
            if (clientThreads < 1 || clientThreads > 64) {
                throw new IllegalArgumentException("client threads must be within 1..64");
            }
            if (serverCpus != null && !serverCpus.matches("[0-9]+([,-][0-9]+)*")) {
                throw new IllegalArgumentException("server cpus must be a taskset list such as 1 or 1-3: " + serverCpus);
            }
            if (requests < 1 || requests > 1_000_000) {
                throw new IllegalArgumentException("requests must be within 1..1000000");
            }
            if (clients < 1 || clients > 512) {
                throw new IllegalArgumentException("clients must be within 1..512");
            }
            if (warmup < 1 || warmup > 1_000_000) {
                throw new IllegalArgumentException("warmup must be within 1..1000000");
            }
        }
    }

    /**
     * One phase's figures: the median run's, with {@code spread} the (highest - lowest) calls/s of all
     * runs over the median ({@code 0} for one run), {@code clientCpuShare} the harness's CPU time over
     * the phase's wall time (1.0 = one core busy) and {@code rates} every run's calls/s in run order.
     */
    record Phase(String name, int requests, int errors, double seconds, double callsPerSecond, double p50Ms,
                 double p99Ms, long peakHeapBytes, long heapAfterGcBytes, long peakRssBytes, long serverCpuNanos,
                 int runs, double spread, double clientCpuShare, double[] rates, int setAside, int disturbed) {

        Phase(String name, int requests, int errors, double seconds, double callsPerSecond, double p50Ms,
              double p99Ms, long peakHeapBytes, long heapAfterGcBytes, long peakRssBytes, long serverCpuNanos,
              int runs, double spread, double clientCpuShare, double[] rates) {
            this(name, requests, errors, seconds, callsPerSecond, p50Ms, p99Ms, peakHeapBytes, heapAfterGcBytes,
                    peakRssBytes, serverCpuNanos, runs, spread, clientCpuShare, rates, 0, 0);
        }

        /**
         * This phase, saying that {@code setAside} more runs were measured and left out because the
         * hypervisor took the machine's time during them, and that {@code disturbed} of its own runs were
         * such runs, kept for want of quiet ones.
         */
        Phase setAside(int setAside, int disturbed) {
            return new Phase(name, requests, errors, seconds, callsPerSecond, p50Ms, p99Ms, peakHeapBytes,
                    heapAfterGcBytes, peakRssBytes, serverCpuNanos, runs, spread, clientCpuShare, rates, setAside,
                    disturbed);
        }

        String row() {
            return String.format(Locale.ROOT, "| %s | %d | %d | %.0f | %s | %.2f | %.2f | %s | %s | %s | %s | %s |", name,
                    requests, errors, callsPerSecond, runsText(), p50Ms, p99Ms, cpuPerCall(), clientCpuShare > 0
                            ? String.format(Locale.ROOT, "%.2f", clientCpuShare) : "n/a",
                    mib(peakHeapBytes), mib(heapAfterGcBytes), mib(peakRssBytes));
        }

        /** The spread of the runs and how many there were; runs set aside or kept though disturbed, if any. */
        String runsText() {
            String text = runs > 1 ? String.format(Locale.ROOT, "%.1f %% of %d", spread * 100, runs) : "1 run";
            if (setAside > 0) {
                text += String.format(Locale.ROOT, " (%d set aside: time stolen)", setAside);
            }
            if (disturbed > 0) {
                text += String.format(Locale.ROOT, " (%d with time stolen)", disturbed);
            }
            return text;
        }

        /** The server process's CPU time (user + system) per turn, in µs; n/a without a forked server. */
        String cpuPerCall() {
            return serverCpuNanos <= 0 || requests == 0 ? "n/a"
                    : String.format(Locale.ROOT, "%.0f", serverCpuNanos / 1e3 / requests);
        }
    }

    private GatewayLoad() {
    }

    static String mib(long bytes) {
        return bytes <= 0 ? "n/a" : String.format(Locale.ROOT, "%.0f MiB", bytes / 1048576.0);
    }

    public static void main(String[] args) throws Exception {
        int requests = 10_000;
        int clients = 32;
        boolean fork = true;
        int maxSeconds = 120;
        int warmupTurns = -1;
        int repeats = 3;
        int clientThreads = 1;
        String serverCpus = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--requests" -> requests = Integer.parseInt(args[++i]);
                case "--clients" -> clients = Integer.parseInt(args[++i]);
                case "--in-process-server" -> fork = false;
                case "--max-seconds" -> maxSeconds = Integer.parseInt(args[++i]);
                case "--warmup" -> warmupTurns = Integer.parseInt(args[++i]);
                case "--repeats" -> repeats = Integer.parseInt(args[++i]);
                case "--client-threads" -> clientThreads = Integer.parseInt(args[++i]);
                case "--server-cpus" -> serverCpus = args[++i];
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        int warmup = warmupTurns < 1 ? Math.max(1, Math.min(2000, requests / 5)) : warmupTurns;
        Options options = new Options(requests, clients, fork, Duration.ofSeconds(maxSeconds), warmup, repeats,
                clientThreads, serverCpus);
        System.out.printf(Locale.ROOT, "toolbus gateway load: %d turns of one echo call per transport, %d clients on %d"
                        + " client thread(s), %d cores, %s server%s, warm-up rounds of %d turns until steady within"
                        + " %.0f %% with the server's JIT quiet (at most %d), median of %d run(s)%n", requests, clients, clientThreads,
                Runtime.getRuntime().availableProcessors(), fork ? "forked (-Xmx512m)" : "in-process",
                serverCpus == null ? "" : " on cpus " + serverCpus, options.warmup(), STEADY * 100, MAX_WARMUP_ROUNDS,
                repeats);
        List<Phase> phases;
        try {
            phases = run(options);
        } finally {
            ClientLoops.dispose();
        }
        System.out.println("| transport | turns | errors | calls/s | spread | p50 ms | p99 ms | server CPU µs/turn"
                + " | client CPU (cores) | server heap peak | server heap after GC | server RSS peak |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|");
        phases.forEach(p -> System.out.println(p.row()));
        System.out.println();
        System.out.println("| transport | gateway calls/s | raw reactor-netty calls/s | ratio | target ≥ 0.6×"
                + " | run by run | raw/gateway server CPU per turn |");
        System.out.println("|---|---|---|---|---|---|---|");
        ratios(phases).forEach(System.out::println);
        boolean failed = phases.stream().anyMatch(p -> p.errors() > 0 || p.requests() < options.requests());
        System.exit(failed ? 1 : 0);
    }

    /**
     * Runs the in-process baseline, then HTTP and WebSocket against the gateway, then the same two
     * against {@link RawLoadServer} (reactor-netty without toolbus), the ceiling of the transport.
     */
    static List<Phase> run(Options o) throws Exception {
        List<Phase> out = new ArrayList<>();
        Options warmup = warmupOf(o);
        warmUp("in-process executor", () -> inProcess(warmup).callsPerSecond(), LoadServer::jitMillis);
        List<Phase> runs = new ArrayList<>();
        for (int r = 0; r < o.repeats(); r++) {
            runs.add(inProcess(o));
        }
        out.add(median(runs));
        out.addAll(serverPhases(o, warmup));
        return out;
    }

    static Options warmupOf(Options o) {
        return new Options(o.warmup(), o.clients(), o.forkServer(), o.maxPhase(), o.warmup(), 1, o.clientThreads(),
                o.serverCpus());
    }

    interface Round {
        double callsPerSecond() throws Exception;
    }

    /**
     * Warm-up rounds until two in a row agree on calls/s within {@link #STEADY} and the server's JIT spent
     * at most {@link #JIT_QUIET} of the last {@link #QUIET_ROUNDS} rounds compiling (at most {@link #MAX_WARMUP_ROUNDS}); returns
     * the rounds run. Printed on standard error.
     */
    static int warmUp(String name, Round round, LongSupplier jitMillis) throws Exception {
        double last = round.callsPerSecond();
        int rounds = 1;
        long jitAtStart = jitMillis.getAsLong();
        long jitMs = 0;
        StringBuilder perRound = new StringBuilder();
        long[] recentJit = new long[QUIET_ROUNDS];
        double[] recentMs = new double[QUIET_ROUNDS];
        while (rounds < MAX_WARMUP_ROUNDS) {
            long jitBefore = jitMillis.getAsLong();
            long started = System.nanoTime();
            double now = round.callsPerSecond();
            double roundMs = (System.nanoTime() - started) / 1e6;
            jitMs = jitMillis.getAsLong() - jitBefore;
            perRound.append(' ').append(jitMs).append('/').append(Math.round(roundMs));
            recentJit[rounds % QUIET_ROUNDS] = jitMs;
            recentMs[rounds % QUIET_ROUNDS] = roundMs;
            rounds++;
            boolean steady = rounds > QUIET_ROUNDS && Math.abs(now - last) <= STEADY * Math.max(now, last)
                    && Arrays.stream(recentJit).sum() <= JIT_QUIET * Arrays.stream(recentMs).sum();
            last = now;
            if (steady) {
                break;
            }
        }
        System.err.printf(Locale.ROOT, "warm-up %s: %d round(s), last %.0f calls/s, JIT %d ms in the last round,"
                + " %d ms in all (JIT ms/round ms:%s)%n", name, rounds, last, jitMs, jitMillis.getAsLong() - jitAtStart,
                perRound);
        return rounds;
    }

    /** The run with the median calls/s, carrying the spread of all runs. */
    static Phase median(List<Phase> runs) {
        List<Phase> sorted = new ArrayList<>(runs);
        sorted.sort(java.util.Comparator.comparingDouble(Phase::callsPerSecond));
        Phase mid = sorted.get(sorted.size() / 2);
        double spread = mid.callsPerSecond() <= 0 ? 0
                : (sorted.get(sorted.size() - 1).callsPerSecond() - sorted.get(0).callsPerSecond()) / mid.callsPerSecond();
        int errors = runs.stream().mapToInt(Phase::errors).sum();
        return new Phase(mid.name(), mid.requests(), errors, mid.seconds(), mid.callsPerSecond(), mid.p50Ms(),
                mid.p99Ms(), runs.stream().mapToLong(Phase::peakHeapBytes).max().orElse(0), mid.heapAfterGcBytes(),
                runs.stream().mapToLong(Phase::peakRssBytes).max().orElse(0), mid.serverCpuNanos(), runs.size(), spread,
                mid.clientCpuShare(), runs.stream().mapToDouble(Phase::callsPerSecond).toArray());
    }

    /**
     * HTTP, then WebSocket, against the toolbus gateway and the raw server, both started before the first
     * phase. Each transport is warmed up on both; then its measured runs alternate between the two (gateway
     * first in even runs, raw first in odd ones), so that whatever the machine does meanwhile (another
     * tenant, the other JVM's leftovers, a drift of the clock rate) falls on both alike and run {@code i}
     * of the one pairs with run {@code i} of the other. Returned in the order gateway HTTP, gateway
     * WebSocket, raw HTTP, raw WebSocket.
     */
    static List<Phase> serverPhases(Options o, Options warmup) throws Exception {
        try (LoadTarget gateway = LoadTarget.start(o, false); LoadTarget raw = LoadTarget.start(o, true)) {
            List<Phase> http = interleaved(o, "HTTP POST /v1/turns", "HTTP", gateway, raw,
                    (t, opts) -> http(t.base(), opts, t.httpPool(opts)), warmup);
            List<Phase> ws = interleaved(o, "WebSocket /v1/ws", "WebSocket", gateway, raw,
                    (t, opts) -> t.websockets(opts).run(opts.requests(), opts.maxPhase()), warmup);
            return List.of(http.get(0), ws.get(0), http.get(1), ws.get(1));
        }
    }

    interface Transport {
        Samples run(LoadTarget target, Options o) throws Exception;
    }

    /** At most this many pairs per measured run asked for, quiet or not. */
    static final int PAIRS_PER_REPEAT = 3;

    /**
     * One transport on both servers, measured runs alternating; the median of each, gateway first. Runs
     * are measured in back-to-back pairs (gateway first in even pairs, raw first in odd ones); a pair
     * during which the hypervisor took more than {@link HostSteal#MAX_SHARE} of the machine's time is set aside and
     * another is measured, at most {@link #PAIRS_PER_REPEAT} times {@code repeats} pairs in all. If fewer
     * than {@code repeats} pairs were quiet by then, the least disturbed of the set-aside pairs fill up.
     */
    static List<Phase> interleaved(Options o, String name, String shortName, LoadTarget gateway, LoadTarget raw,
                                   Transport transport, Options warmup) throws Exception {
        for (LoadTarget t : List.of(gateway, raw)) {
            warmUp(t.prefix + shortName, () -> rate(transport.run(t, warmup)), t.jit);
        }
        List<Pair> quiet = new ArrayList<>();
        List<Pair> setAside = new ArrayList<>();
        for (int p = 0; quiet.size() < o.repeats() && p < o.repeats() * PAIRS_PER_REPEAT; p++) {
            Phase g = null;
            Phase r = null;
            HostSteal before = HostSteal.now();
            for (LoadTarget t : p % 2 == 0 ? List.of(gateway, raw) : List.of(raw, gateway)) {
                Phase run = measured(t.prefix + name, t.heap, t.heapAfterGc, t.rss, t.cpu, () -> transport.run(t, o));
                if (t == gateway) {
                    g = run;
                } else {
                    r = run;
                }
            }
            Pair pair = new Pair(g, r, HostSteal.share(before, HostSteal.now()));
            System.err.printf(Locale.ROOT, "pair %s %d: gateway %.0f, raw %.0f calls/s, %.1f %% of the machine's time"
                    + " stolen%s%n", shortName, p + 1, g.callsPerSecond(), r.callsPerSecond(), pair.steal * 100,
                    pair.steal > HostSteal.MAX_SHARE ? ": set aside" : "");
            (pair.steal > HostSteal.MAX_SHARE ? setAside : quiet).add(pair);
        }
        int disturbed = 0;
        if (quiet.size() < o.repeats()) {
            setAside.sort(java.util.Comparator.comparingDouble(Pair::steal));
            for (Pair pair : setAside.subList(0, Math.min(setAside.size(), o.repeats() - quiet.size()))) {
                quiet.add(pair);
                disturbed++;
            }
        }
        List<Phase> ofGateway = new ArrayList<>();
        List<Phase> ofRaw = new ArrayList<>();
        for (Pair pair : quiet) {
            ofGateway.add(pair.gateway);
            ofRaw.add(pair.raw);
        }
        int asideCount = setAside.size() - disturbed;
        return List.of(median(ofGateway).setAside(asideCount, disturbed), median(ofRaw).setAside(asideCount, disturbed));
    }

    /** A gateway run and the raw server's measured beside it, with the share of the machine's time stolen meanwhile. */
    record Pair(Phase gateway, Phase raw, double steal) {
    }

    /** The gateway's calls/s over the raw server's, per transport, from phases of one run. */
    static List<String> ratios(List<Phase> phases) {
        List<String> lines = new ArrayList<>();
        for (String transport : List.of("HTTP POST /v1/turns", "WebSocket /v1/ws")) {
            Phase gateway = phases.stream().filter(p -> p.name().equals(transport)).findFirst().orElse(null);
            Phase raw = phases.stream().filter(p -> p.name().equals("raw reactor-netty " + transport)).findFirst()
                    .orElse(null);
            if (gateway != null && raw != null && raw.callsPerSecond() > 0) {
                double r = gateway.callsPerSecond() / raw.callsPerSecond();
                String cpu = gateway.serverCpuNanos() > 0 && raw.serverCpuNanos() > 0
                        ? String.format(Locale.ROOT, "%.2f×", (double) raw.serverCpuNanos() / raw.requests()
                                / ((double) gateway.serverCpuNanos() / gateway.requests()))
                        : "n/a";
                lines.add(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %.2f× | %s | %s | %s |", transport,
                        gateway.callsPerSecond(), raw.callsPerSecond(), r, r >= 0.6 ? "✓" : "✗", paired(gateway, raw),
                        cpu));
            }
        }
        return lines;
    }

    /** Run {@code i} of the gateway over run {@code i} of the raw server (measured back to back), each. */
    static String paired(Phase gateway, Phase raw) {
        int n = Math.min(gateway.rates().length, raw.rates().length);
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < n; i++) {
            out.append(i == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.2f",
                    raw.rates()[i] > 0 ? gateway.rates()[i] / raw.rates()[i] : 0));
        }
        return n == 0 ? "n/a" : out.toString();
    }

    /** Latencies in nanoseconds and the error count of one phase. */
    public record Samples(long[] latencies, int errors, long nanos) {
    }

    static double rate(Samples s) {
        return s.nanos() <= 0 ? 0 : s.latencies().length / (s.nanos() / 1e9);
    }

    interface PhaseBody {
        Samples run() throws Exception;
    }

    static Phase measured(String name, LongSupplier heap, LongSupplier heapAfterGc, LongSupplier rss, LongSupplier cpu,
                          PhaseBody body) throws Exception {
        AtomicLong peakHeap = new AtomicLong(heap.getAsLong());
        AtomicLong peakRss = new AtomicLong(rss.getAsLong());
        // a plain thread: the heap is read with a blocking HTTP call
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "load-sampler");
            t.setDaemon(true);
            return t;
        });
        // the heap is scraped from the gateway's /metrics once a second (a scrape every 200 ms was 1.7 % of
        // the gateway's event-loop samples, work the raw server is not asked for); /proc is read every 200 ms
        AtomicInteger ticks = new AtomicInteger();
        sampler.scheduleWithFixedDelay(() -> {
            if (ticks.incrementAndGet() % 5 == 0) {
                peakHeap.accumulateAndGet(heap.getAsLong(), Math::max);
            }
            peakRss.accumulateAndGet(rss.getAsLong(), Math::max);
        }, 200, 200, TimeUnit.MILLISECONDS);
        Samples s;
        long startedMs = System.currentTimeMillis();
        long cpuBefore = cpu.getAsLong();
        long clientBefore = ownCpuNanos();
        long cpuUsed;
        long clientUsed;
        try {
            s = body.run();
        } finally {
            cpuUsed = cpu.getAsLong() - cpuBefore;
            clientUsed = ownCpuNanos() - clientBefore;
            sampler.shutdownNow();
            sampler.awaitTermination(10, TimeUnit.SECONDS);
        }
        // on stderr, for lining the phase up with a profile or per-thread CPU samples of the server
        System.err.printf(Locale.ROOT, "phase %s: %d..%d ms since the epoch%n", name, startedMs,
                System.currentTimeMillis());
        double clientShare = s.nanos() > 0 && clientBefore > 0 ? (double) clientUsed / s.nanos() : 0;
        return phase(name, s, peakHeap.get(), heapAfterGc.getAsLong(), peakRss.get(), cpuBefore > 0 ? cpuUsed : 0,
                clientShare);
    }

    /** This process's CPU time (user + system) so far, 0 where the platform does not say. */
    static long ownCpuNanos() {
        return ProcessHandle.current().info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
    }

    static Phase phase(String name, Samples s, long heap, long heapAfterGc, long rss, long cpuNanos) {
        return phase(name, s, heap, heapAfterGc, rss, cpuNanos, 0);
    }

    static Phase phase(String name, Samples s, long heap, long heapAfterGc, long rss, long cpuNanos, double clientShare) {
        long[] l = s.latencies().clone();
        Arrays.sort(l);
        double seconds = s.nanos() / 1e9;
        return new Phase(name, l.length, s.errors(), seconds, l.length / seconds, percentile(l, 0.50) / 1e6,
                percentile(l, 0.99) / 1e6, heap, heapAfterGc, rss, cpuNanos, 1, 0, clientShare,
                new double[] {l.length / seconds});
    }

    static long percentile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    /** Turn ids are unique across phases (warm-up included): a repeated id would be answered from the turn ledger. */
    private static final java.util.concurrent.atomic.AtomicLong TURN_IDS = new java.util.concurrent.atomic.AtomicLong();

    static String turn(String stream, int i) {
        return "{\"type\":\"tool_call\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"t" + TURN_IDS.incrementAndGet()
                + "\",\"tool_call_id\":\"c" + i + "\",\"name\":\"echo\",\"arguments\":{\"text\":\"load " + i + "\"}}";
    }

    // --- phases ------------------------------------------------------------------------------------

    static Phase inProcess(Options o) {
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (ToolExecutor executor = LoadServer.executor(meters)) {
            long[] lat = new long[o.requests()];
            AtomicInteger n = new AtomicInteger();
            AtomicInteger errors = new AtomicInteger();
            long cpu0 = ownCpuNanos();
            long t0 = System.nanoTime();
            Flux.range(0, o.requests())
                    .flatMap(i -> Mono.defer(() -> {
                        long start = System.nanoTime();
                        ToolCallsEvent t = ToolCallsEvent.of("s" + (i % o.clients()), "t" + i,
                                List.of(ToolCall.ofJson("c" + i, "echo", "{\"text\":\"load " + i + "\"}")));
                        return executor.execute(t).count().doOnNext(c -> {
                            if (c != 2) {
                                errors.incrementAndGet();
                            }
                            lat[n.getAndIncrement()] = System.nanoTime() - start;
                        });
                    }), o.clients())
                    .blockLast(o.maxPhase());
            Samples s = new Samples(Arrays.copyOf(lat, n.get()), errors.get(), System.nanoTime() - t0);
            // no server here: the harness's own heap is not a server figure, so the memory columns stay n/a
            double share = s.nanos() > 0 && cpu0 > 0 ? (double) (ownCpuNanos() - cpu0) / s.nanos() : 0;
            return phase("in-process executor", s, 0, 0, 0, 0, share);
        }
    }

    /** A closed loop of one-call turns over {@code POST /v1/turns}, on connections of its own. */
    static Samples http(String base, Options o) {
        ConnectionProvider pool = httpPool(o.clients());
        try {
            return http(base, o, pool);
        } finally {
            pool.disposeLater().block(Duration.ofSeconds(10));
        }
    }

    /** {@code clients} kept-alive connections, for {@link #http(String, Options, ConnectionProvider)}. */
    static ConnectionProvider httpPool(int clients) {
        return ConnectionProvider.builder("toolbus-load").maxConnections(clients).pendingAcquireMaxCount(-1).build();
    }

    /** The same over {@code pool}'s connections, kept open for the next run (the server's handshakes stay out of it). */
    static Samples http(String base, Options o, ConnectionProvider pool) {
        HttpClient client = HttpClient.create(pool).runOn(ClientLoops.of(o.clientThreads())).baseUrl(base)
                .headers(h -> h.set(HttpHeaderNames.AUTHORIZATION, "Bearer " + TOKEN));
        long[] lat = new long[o.requests()];
        AtomicInteger n = new AtomicInteger();
        AtomicInteger errors = new AtomicInteger();
        long t0 = System.nanoTime();
        Flux.range(0, o.requests())
                .flatMap(i -> Mono.defer(() -> {
                    long start = System.nanoTime();
                    return client.post().uri("/v1/turns")
                            .send(ByteBufFlux.fromString(Mono.just(turn("h" + (i % o.clients()), i))))
                            .responseSingle((res, body) -> body.asString().map(b ->
                                    res.status().code() == 200 && b.contains("turn_completed")))
                            .onErrorReturn(false)
                            .doOnNext(ok -> {
                                if (!ok) {
                                    errors.incrementAndGet();
                                }
                                lat[n.getAndIncrement()] = System.nanoTime() - start;
                            });
                }), o.clients())
                .blockLast(o.maxPhase());
        return new Samples(Arrays.copyOf(lat, n.get()), errors.get(), System.nanoTime() - t0);
    }

    /** A closed loop of one-call turns over {@code /v1/ws}, {@code o.clients()} connections (also used by the scale harness). */
    public static Samples websocket(int port, Options o) {
        return websocket(port, o, TOKEN);
    }

    /** The same with another bearer token, over connections opened for this run and closed after it. */
    public static Samples websocket(int port, Options o, String token) {
        try (WsConnections ws = WsConnections.open(port, o.clients(), o.clientThreads(), token, Duration.ofSeconds(30))) {
            return ws.run(o.requests(), o.maxPhase());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
