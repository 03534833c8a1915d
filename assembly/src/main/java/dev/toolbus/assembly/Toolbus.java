package dev.toolbus.assembly;

import dev.toolbus.assembly.stdio.StdioBus;
import dev.toolbus.auth.AccessTokens;
import dev.toolbus.bus.InMemoryBus;
import dev.toolbus.spi.ToolBus;
import dev.toolbus.config.ConfigWatcher;
import dev.toolbus.config.LiveConfig;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.gateway.GatewayServer;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.text.DescriptionLocale;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

/**
 * A toolbus assembled by {@link ToolbusAssembly}: its executor, registry and live config, and once
 * {@link #start() started} its gateway and bus. {@link #closeGracefully()} stops everything it
 * started, in order: the gateway (its turns drain), the bus's input, the executor (the bus's turns
 * drain), the tool sources (plugin processes, MCP servers, skill watching), the config follow, the
 * shared bucket store. It is safe to call from a shutdown hook and a main thread at once: the second
 * caller waits for the first.
 */
public final class Toolbus implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Toolbus.class);

    /** What {@link ToolbusAssembly.Builder#build()} made. */
    record Parts(ToolExecutor executor, ToolRegistry registry, LiveConfig live, ToolSources sources,
                 Buses.SharedBuckets buckets, BusAddress address, Buses.Names names, EventCodec codec, GatewayPlan plan,
                 MeterRegistry meters, ConfigWatcher watcher, Duration stopStep, List<String> warnings,
                 DescriptionLocale locale) {
    }

    private final Parts parts;
    private final CompletableFuture<Void> busEnded = new CompletableFuture<>();
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private volatile GatewayServer gateway;
    private volatile ToolBus bus;
    private volatile Disposable run;
    private volatile Disposable follow;

    Toolbus(Parts parts) {
        this.parts = parts;
    }

    /**
     * Starts the gateway (when the config or an override asks for one), follows the watched config,
     * opens the bus and runs the executor on it. Once only; later calls return at once.
     *
     * @return this
     * @throws IllegalStateException when the gateway cannot bind or the bus cannot be opened; everything
     *     is closed again
     */
    public Toolbus start() {
        if (!started.compareAndSet(false, true)) {
            return this;
        }
        // Java tools registered after build (a Spring application's beans) count for tool_search too
        ToolSources.offerSearch(parts.registry(), parts.live().policy(), parts.locale());
        ToolSources.warnIfEmpty(parts.registry());
        GatewayPlan plan = parts.plan();
        if (plan != null) {
            try {
                gateway = plan.gateway(parts.executor(), parts.meters()).start();
            } catch (RuntimeException e) {
                closeGracefully();
                throw new IllegalStateException("cannot start the gateway on " + plan.host() + ":" + plan.port() + ": "
                        + e.getMessage(), e);
            }
        }
        if (parts.watcher() != null) {
            follow = parts.live().follow(parts.watcher());
        }
        if (!parts.address().scheme().equals(BusAddress.NONE)) {
            ToolBus b;
            try {
                b = Buses.open(parts.address(), parts.names(), parts.codec(), parts.meters());
            } catch (RuntimeException e) {
                closeGracefully();
                throw new IllegalStateException("cannot open the bus " + parts.address().address() + ": "
                        + e.getMessage(), e);
            }
            bus = b;
            run = parts.executor().run(b).subscribe(null, busEnded::completeExceptionally, () -> busEnded.complete(null));
            if (b instanceof StdioBus stdio) {
                // nobody reads our output any more: end as if the bus had failed
                stdio.outputFailure().subscribe(busEnded::completeExceptionally);
            }
        }
        return this;
    }

    /** The executor. */
    public ToolExecutor executor() {
        return parts.executor();
    }

    /** The registry of every tool source. */
    public ToolRegistry registry() {
        return parts.registry();
    }

    /** The config in force and its live policy, approval and limits. */
    public LiveConfig config() {
        return parts.live();
    }

    /** Where the executor's meters go. */
    public MeterRegistry meterRegistry() {
        return parts.meters();
    }

    /** The bus this toolbus runs on (its address even before {@link #start()}). */
    public BusAddress busAddress() {
        return parts.address();
    }

    /** The bus once started, or {@code null} (not started, or {@link BusAddress#none()}). */
    public ToolBus bus() {
        return bus;
    }

    /** The gateway once started, or {@code null} when there is none. */
    public GatewayServer gateway() {
        return gateway;
    }

    /** Whether {@link #start()} starts a gateway. */
    public boolean hasGateway() {
        return parts.plan() != null;
    }

    /** The tokens the gateway accepts ({@link AccessTokens#NONE} without a gateway or a token). */
    public AccessTokens gatewayTokens() {
        return parts.plan() == null ? AccessTokens.NONE : parts.plan().tokens();
    }

    /** Where the gateway's tokens came from: {@code the config}, {@code --token}, or {@code TOOLBUS_TOKEN}. */
    public String gatewayTokenSource() {
        return parts.plan() == null ? "" : parts.plan().tokenSource();
    }

    /** Problems the assembly worked around (each also logged). */
    public List<String> warnings() {
        return List.copyOf(parts.warnings());
    }

    /**
     * Completes when the bus's input ends (stdio at end of input, the in-memory bus once completed, a
     * broker bus once closed), exceptionally when the bus fails or nobody reads the stdio output any
     * more; completes at the close when there is no bus.
     */
    public CompletableFuture<Void> busEnded() {
        return busEnded;
    }

    /**
     * Stops everything this toolbus started, in order, each step bounded by the assembly's stop step;
     * blocks until done (do not call it on an event loop). Idempotent.
     */
    public void closeGracefully() {
        if (!stopping.compareAndSet(false, true)) {
            stopped.join();
            return;
        }
        Duration step = parts.stopStep();
        try {
            step("gateway", () -> {
                if (gateway != null) {
                    gateway.closeGracefully(step);
                }
            });
            step("bus input", () -> stopInput(step));
            step("executor", () -> parts.executor().closeGracefully().block(step));
            if (bus instanceof InMemoryBus memory) {
                // everything is published: the subscribers of its events complete
                step("bus output", () -> memory.closeGracefully().block(step));
            }
            step("tool sources", () -> parts.sources().closeGracefully().block(step));
            if (follow != null) {
                follow.dispose();
            }
            if (parts.buckets() != null) {
                step("shared buckets", () -> parts.buckets().close().run());
            }
            busEnded.complete(null);
            log.info("all turns drained; stopped");
        } finally {
            stopped.complete(null);
        }
    }

    private void stopInput(Duration step) {
        ToolBus b = bus;
        if (b == null) {
            return;
        }
        if (b instanceof InMemoryBus memory) {
            memory.complete();
        } else if (b instanceof StdioBus stdio && !busEnded.isDone()) {
            // stdin may still be open (a SIGTERM): end the input as its end of file would, let the
            // running turns finish and publish, then stop the loop and flush stdout
            stdio.endInput();
            parts.executor().closeGracefully().block(step);
            // the run completes once the drained turns' events are published: disposing it before
            // then cancels the publish of a turn's last events (its turn_completed)
            try {
                busEnded.get(step.toSeconds(), TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                log.warn("turns still publishing after {}; cancelling them", step);
            } catch (Exception e) {
                // the bus failed: the caller of busEnded() reports it
            }
            run.dispose();
            b.closeGracefully().block(step);
            return;
        } else {
            b.closeGracefully().block(step);
        }
        try {
            busEnded.get(step.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            log.warn("turns still running after {}; cancelling them", step);
            run.dispose();
        } catch (Exception e) {
            // the bus failed: the caller of busEnded() reports it
        }
    }

    private static void step(String what, Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            log.warn("stopping the {} failed: {}", what, e.toString());
        }
    }

    /** {@link #closeGracefully()}. */
    @Override
    public void close() {
        closeGracefully();
    }
}
