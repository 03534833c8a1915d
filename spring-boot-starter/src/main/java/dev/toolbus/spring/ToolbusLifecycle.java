package dev.toolbus.spring;

import dev.toolbus.assembly.Toolbus;
import dev.toolbus.executor.ToolExecutor;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Starts what toolbus serves besides the executor (the gateway, a bus) with the context, and on
 * context close stops it in the assembly's order: the gateway and the bus stop taking turns, running
 * turns finish (each step within {@code toolbus.shutdown-timeout}), then the executor, the plugin
 * processes and MCP servers close. It stops before the web server does (a later phase), so HTTP
 * handlers that call the executor can still be answered meanwhile.
 */
public final class ToolbusLifecycle implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(ToolbusLifecycle.class);

    private final ToolExecutor executor;
    private final Toolbus toolbus;
    private final ToolbusProperties properties;
    private volatile boolean running;
    private volatile boolean stopped;

    /**
     * @param executor the executor the application uses
     * @param toolbus the assembled toolbus, or {@code null} when the application defined its own executor
     */
    ToolbusLifecycle(ToolExecutor executor, Toolbus toolbus, ToolbusProperties properties) {
        this.executor = executor;
        this.toolbus = toolbus;
        this.properties = properties;
    }

    @Override
    public void start() {
        if (toolbus != null) {
            toolbus.start();
            if (toolbus.gateway() != null) {
                log.info("toolbus gateway listening on {}", toolbus.gateway().baseUrl());
            }
            if (toolbus.bus() != null) {
                log.info("toolbus attached to {} at {}", toolbus.busAddress().scheme(), properties.config().bus().url());
            }
        }
        running = true;
    }

    @Override
    public void stop() {
        Duration timeout = properties.shutdownTimeout();
        try {
            if (toolbus != null) {
                toolbus.closeGracefully();
            } else {
                executor.closeGracefully().block(timeout);
            }
        } catch (RuntimeException e) {
            log.warn("toolbus did not stop cleanly within {}: {}", timeout, e.toString());
        } finally {
            running = false;
            stopped = true;
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Before the web server's graceful stop (phase {@code SmartLifecycle.DEFAULT_PHASE - 1024}). */
    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE - 2048;
    }

    boolean stopped() {
        return stopped;
    }

    /** The gateway's base URL while it runs, else {@code null}. */
    public String gatewayUrl() {
        return toolbus == null || toolbus.gateway() == null || stopped ? null : toolbus.gateway().baseUrl();
    }

    String busType() {
        return toolbus == null || toolbus.bus() == null ? null : toolbus.busAddress().scheme();
    }
}
