package dev.toolbus.benchmarks.stdio;

import dev.toolbus.benchmarks.FreshTurns;
import dev.toolbus.benchmarks.OneCallTurns;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.plugins.stdio.StdioPluginHost;
import dev.toolbus.plugins.stdio.StdioPluginStatus;
import dev.toolbus.plugins.stdio.StdioPlugins;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * A call through each framework host (tool-sources/hosts): an echo tool written as a MaiBot, OpenClaw
 * or ChatAI plugin ({@code benchmarks/host-plugins/<host>/echo}), loaded by kind and called through the
 * executor, like {@link StdioPluginBenchmark#toolbus} does for a plain stdio plugin. Hosts always run
 * concurrently; {@code inFlight} is how many calls the executor keeps in flight.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@OperationsPerInvocation(HostPluginBenchmark.CALLS)
public class HostPluginBenchmark {

    static final int CALLS = 200;

    @Param({"maibot", "openclaw", "chatai"})
    public String host;

    @Param({"1", "20"})
    public int inFlight;

    private ToolExecutor executor;
    private StdioPluginHost plugins;
    private FreshTurns fresh;

    @Setup(Level.Trial)
    public void setUp() {
        plugins = StdioPlugins.start(pluginsDir(host)).block(Duration.ofSeconds(30));
        executor = ToolExecutor.builder()
                .settings(ExecutionSettings.builder().maxParallel(Math.max(5, inFlight))
                        .timeout(Duration.ofSeconds(30)).retryOnError(false).cacheResults(false).build())
                .meterRegistry(new SimpleMeterRegistry())
                .build();
        plugins.registerInto(executor.registry());
        fresh = new FreshTurns(OneCallTurns.turns("echo", CALLS, 64));
        OneCallTurns.run(executor, fresh.next(), inFlight, null);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (executor != null) {
            executor.closeGracefully().block(Duration.ofSeconds(30));
            executor = null;
        }
        if (plugins != null) {
            for (StdioPluginStatus s : plugins.plugins()) {
                if (s.starts() != 1) {
                    throw new IllegalStateException("plugin restarted during the benchmark: " + s);
                }
            }
            plugins.closeGracefully().block(Duration.ofSeconds(30));
            plugins = null;
        }
    }

    /** Through toolbus: executor, plugin host, the framework host's process, the plugin's code. */
    @Benchmark
    public int toolbus(Blackhole bh) {
        return OneCallTurns.run(executor, fresh.next(), inFlight, bh);
    }

    /** {@code benchmarks/host-plugins/<host>} in the working directory or a parent of it. */
    static Path pluginsDir(String host) {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path candidate = d.resolve("benchmarks/host-plugins").resolve(host);
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("benchmarks/host-plugins/" + host + " not found from "
                + Path.of("").toAbsolutePath() + "; run from the repository");
    }
}
