package dev.toolbus.benchmarks.stdio;

import dev.toolbus.benchmarks.FreshTurns;
import dev.toolbus.benchmarks.OneCallTurns;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.plugins.stdio.PluginManifest;
import dev.toolbus.plugins.stdio.StdioPluginHost;
import dev.toolbus.plugins.stdio.StdioPluginStatus;
import dev.toolbus.plugins.stdio.StdioPlugins;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What toolbus adds to a call of a stdio plugin: the example echo plugin of docs/examples/plugins
 * (Python or Node), one warmed-up process, called
 * <ul>
 *   <li>{@link #toolbus}: through the executor, with the tools of a {@link StdioPluginHost} registered
 *       (argument validation, timeout, meters, call log, events, the host's writer and reader threads);</li>
 *   <li>{@link #direct}: by {@link DirectPluginClient}, which writes the same {@code execute_tool} line to a
 *       process of its own and reads the answer on the caller's thread.</li>
 * </ul>
 * With {@code inFlight} 1 the plugin runs with its own manifest (calls serialized, the default); with
 * more, the manifest is the same plus {@code "concurrent": true}, the executor runs up to that many calls
 * at once and the direct client keeps that many requests written ahead. The example plugins answer one
 * line after another, so calls in flight are pipelined through the pipe, not run in parallel. Each
 * invocation is {@link #CALLS} calls; scores are per call. Each side starts only its own process.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@OperationsPerInvocation(StdioPluginBenchmark.CALLS)
public class StdioPluginBenchmark {

    /** Calls per invocation. */
    static final int CALLS = 200;

    @Param({"python", "node"})
    public String plugin;

    @Param({"1", "20"})
    public int inFlight;

    private ToolExecutor executor;
    private StdioPluginHost host;
    private FreshTurns fresh;
    private DirectPluginClient direct;

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) throws IOException {
        PluginManifest manifest = PluginManifest.read(exampleDir(plugin));
        String tool = plugin.equals("python") ? "py_echo" : "node_echo";
        if (params.getBenchmark().endsWith(".direct")) {
            List<String> command = new ArrayList<>();
            command.add(manifest.command());
            command.addAll(manifest.args());
            direct = new DirectPluginClient(manifest.directory(), command, tool);
            direct.run(CALLS, inFlight, OneCallTurns.ARGS_JSON, OneCallTurns.EXPECTED);
            return;
        }
        if (inFlight > 1) {
            manifest = new PluginManifest(manifest.id(), manifest.directory(), manifest.command(), manifest.args(),
                    manifest.env(), manifest.activationTimeout(), manifest.callTimeout(), manifest.optional(),
                    manifest.channels(), true, manifest.maxLineBytes(), manifest.stopGrace(),
                    manifest.restartBackoff(), manifest.restartBackoffMax());
        }
        host = StdioPlugins.start(List.of(manifest)).block(Duration.ofSeconds(30));
        executor = ToolExecutor.builder()
                .settings(ExecutionSettings.builder().maxParallel(Math.max(5, inFlight))
                        .timeout(Duration.ofSeconds(30)).retryOnError(false).cacheResults(false).build())
                .meterRegistry(new SimpleMeterRegistry())
                .build();
        host.registerInto(executor.registry());
        fresh = new FreshTurns(OneCallTurns.turns(tool, CALLS, 64));
        OneCallTurns.run(executor, fresh.next(), inFlight, null);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        if (direct != null) {
            direct.close();
            direct = null;
        }
        if (executor != null) {
            executor.closeGracefully().block(Duration.ofSeconds(30));
            executor = null;
        }
        if (host != null) {
            // a restart would mean a call timed out or the process died: the numbers would be wrong
            for (StdioPluginStatus s : host.plugins()) {
                if (s.starts() != 1) {
                    throw new IllegalStateException("plugin restarted during the benchmark: " + s);
                }
            }
            host.closeGracefully().block(Duration.ofSeconds(30));
            host = null;
        }
    }

    /** Through toolbus: executor, plugin host, the plugin's process. */
    @Benchmark
    public int toolbus(Blackhole bh) {
        return OneCallTurns.run(executor, fresh.next(), inFlight, bh);
    }

    /** The same calls written to the same kind of process by a hand-written client. */
    @Benchmark
    public String direct() throws IOException {
        return direct.run(CALLS, inFlight, OneCallTurns.ARGS_JSON, OneCallTurns.EXPECTED);
    }

    /**
     * The example plugin's folder: {@code -Dtoolbus.examples=DIR} (the folder holding python-echo and
     * node-echo), else docs/examples/plugins in the working directory or a parent of it.
     */
    static Path exampleDir(String language) {
        String name = language + "-echo";
        String configured = System.getProperty("toolbus.examples");
        if (configured != null) {
            return Path.of(configured, name);
        }
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path candidate = d.resolve("docs/examples/plugins").resolve(name);
            if (Files.isRegularFile(candidate.resolve(PluginManifest.FILE_NAME))) {
                return candidate;
            }
        }
        throw new IllegalStateException("docs/examples/plugins/" + name + " not found from "
                + Path.of("").toAbsolutePath() + "; run from the repository or set -Dtoolbus.examples");
    }
}
