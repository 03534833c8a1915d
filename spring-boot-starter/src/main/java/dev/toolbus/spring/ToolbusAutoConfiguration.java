package dev.toolbus.spring;

import dev.toolbus.assembly.BusAddress;
import dev.toolbus.assembly.Toolbus;
import dev.toolbus.assembly.ToolbusAssembly;
import dev.toolbus.config.Config;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.spi.ToolPolicy;
import dev.toolbus.registry.ToolRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Auto-configures toolbus in a Spring Boot application through {@link ToolbusAssembly}, the assembly
 * {@code toolbus serve} uses: a {@link ToolRegistry} holding the {@code @Tool} methods of the
 * application's beans, a {@link Toolbus} configured from {@code toolbus.*} (every section of
 * {@code toolbus.yaml}: tool sources, policy, approval, limits, dispatch, bus, gateway) whose
 * {@link ToolExecutor} reports to the application's {@link MeterRegistry} and observes turns and calls
 * with its {@link ObservationRegistry}, an Actuator health indicator {@code toolbus}, a graceful close
 * when the context stops, and, when configured, the gateway ({@code toolbus.gateway.enabled=true}) and
 * a bus ({@code toolbus.bus.type=redis|kafka}). Every bean backs off when the application defines its
 * own; a {@link ToolPolicy} bean replaces the configured policy.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration"})
@ConditionalOnProperty(prefix = "toolbus", name = "enabled", havingValue = "true", matchIfMissing = true)
public class ToolbusAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(ToolbusAutoConfiguration.class);

    @Bean
    @ConditionalOnMissingBean
    public ToolbusProperties toolbusProperties(Environment environment) {
        ToolbusProperties p = ToolbusProperties.from(environment);
        p.warnings().forEach(w -> log.warn("toolbus.*: {}", w));
        return p;
    }

    @Bean
    @ConditionalOnMissingBean
    public ToolRegistry toolbusToolRegistry() {
        return ToolRegistry.create();
    }

    /** Finds the tools of the application's beans (static: a post-processor must not wait for other beans). */
    @Bean
    public static ToolBeans toolbusToolBeans(ObjectProvider<ToolRegistry> registry) {
        return new ToolBeans(registry);
    }

    /**
     * The toolbus of the properties, assembled as {@code toolbus serve} assembles a toolbus.yaml: the
     * beans' tools plus the configured plugin folders, MCP servers and skill documents; policy,
     * approval, limits, dispatch and idempotency; the bus of {@code toolbus.bus.type} (Redis or Kafka;
     * none otherwise) and the gateway when {@code toolbus.gateway.enabled=true}. Started and closed by
     * {@link ToolbusLifecycle}; closed when the context is destroyed too (a context whose refresh failed
     * never started it, but its plugin processes and MCP servers run).
     */
    @Bean(destroyMethod = "closeGracefully")
    @ConditionalOnMissingBean({Toolbus.class, ToolExecutor.class})
    public Toolbus toolbus(ToolbusProperties properties, ToolRegistry registry, ObjectProvider<ToolPolicy> policy,
                           ObjectProvider<MeterRegistry> meters, ObjectProvider<ObservationRegistry> observations) {
        Config c = properties.config();
        ToolbusAssembly.Builder b = ToolbusAssembly.from(c).registry(registry).stopStep(properties.shutdownTimeout());
        ToolPolicy custom = policy.getIfAvailable();
        if (custom != null) {
            b.policy(custom);
        }
        MeterRegistry m = meters.getIfAvailable();
        if (m != null) {
            b.meterRegistry(m);
        }
        // turns and calls are observed (and traced, with micrometer-tracing) by the application's registry
        ObservationRegistry o = observations.getIfAvailable();
        if (o != null) {
            b.observationRegistry(o);
        }
        String type = c.bus().type();
        if (!type.equals("redis") && !type.equals("kafka")) {
            // in an application the executor is called in process (and through the gateway): no bus of its own
            if (type.equals("stdio")) {
                log.warn("toolbus.bus.type=stdio is for the command line; the application attaches no bus");
            }
            b.bus(BusAddress.none());
        }
        if (!properties.gatewayEnabled()) {
            b.noGateway();
        }
        return b.build();
    }

    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean
    public ToolExecutor toolExecutor(Toolbus toolbus) {
        return toolbus.executor();
    }

    @Bean
    @ConditionalOnMissingBean
    public ToolbusLifecycle toolbusLifecycle(ToolExecutor executor, ObjectProvider<Toolbus> toolbus,
                                             ToolbusProperties properties) {
        return new ToolbusLifecycle(executor, toolbus.getIfAvailable(), properties);
    }

    /** The Actuator health indicator, when Spring Boot's health module is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class Health {
        @Bean(name = "toolbusHealthIndicator")
        @ConditionalOnMissingBean(name = "toolbusHealthIndicator")
        ToolbusHealthIndicator toolbusHealthIndicator(ToolExecutor executor, ToolbusLifecycle lifecycle) {
            return new ToolbusHealthIndicator(executor, lifecycle);
        }
    }
}
