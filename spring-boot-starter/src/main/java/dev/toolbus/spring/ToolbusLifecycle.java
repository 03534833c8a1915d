package dev.toolbus.spring;

import dev.toolbus.config.Config;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.spi.ToolBus;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.util.ClassUtils;
import reactor.core.Disposable;

/**
 * Starts what toolbus serves besides the executor (the gateway, a bus attachment) with the context,
 * and on context close stops taking turns, lets running turns finish within
 * {@code toolbus.shutdownTimeout}, then closes the executor. It stops before the web server does
 * (a later phase), so HTTP handlers that call the executor can still be answered meanwhile.
 */
public final class ToolbusLifecycle implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(ToolbusLifecycle.class);

    private final ToolExecutor executor;
    private final ToolbusProperties properties;
    private final MeterRegistry meters;
    private volatile boolean running;
    private volatile boolean stopped;
    private volatile AutoCloseable gateway;
    private volatile String gatewayUrl;
    private volatile ToolBus bus;
    private volatile Disposable attachment;

    ToolbusLifecycle(ToolExecutor executor, ToolbusProperties properties, MeterRegistry meters) {
        this.executor = executor;
        this.properties = properties;
        this.meters = meters;
    }

    @Override
    public void start() {
        Config c = properties.config();
        if (properties.gatewayEnabled()) {
            if (!ClassUtils.isPresent("dev.toolbus.gateway.Gateway", getClass().getClassLoader())) {
                throw new IllegalStateException("toolbus.gateway.enabled is true but toolbus-gateway is not on the "
                        + "classpath: add the dependency dev.toolbus:toolbus-gateway");
            }
            GatewayStarter.Started g = GatewayStarter.start(executor, c.gateway(), meters);
            gateway = g.server();
            gatewayUrl = g.url();
            log.info("toolbus gateway listening on {}", gatewayUrl);
        }
        String type = c.bus().type();
        if (type.equals("redis") || type.equals("kafka")) {
            bus = BusStarter.open(c.bus());
            attachment = executor.attach(bus);
            log.info("toolbus attached to {} at {}", type, c.bus().url());
        }
        running = true;
    }

    @Override
    public void stop() {
        Duration timeout = properties.shutdownTimeout();
        try {
            if (gateway instanceof dev.toolbus.gateway.GatewayServer g) {
                g.closeGracefully(timeout);
            }
            if (bus != null) {
                bus.closeGracefully().block(timeout);
            }
            executor.closeGracefully().block(timeout);
        } catch (RuntimeException e) {
            log.warn("toolbus did not stop cleanly within {}: {}", timeout, e.toString());
        } finally {
            if (attachment != null) {
                attachment.dispose();
            }
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
        return gatewayUrl;
    }

    String busType() {
        return bus == null ? null : properties.config().bus().type();
    }
}
