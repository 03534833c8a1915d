package dev.toolbus.spring;

import dev.toolbus.config.LiveConfig;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.spi.ToolPolicy;
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
 * Auto-configures toolbus in a Spring Boot application: a {@link ToolRegistry} holding the
 * {@code @Tool} methods of the application's beans, a {@link ToolExecutor} configured from
 * {@code toolbus.*} (the keys of {@code toolbus.yaml}) that reports to the application's
 * {@link MeterRegistry} and observes turns and calls with its {@link ObservationRegistry}, an Actuator health indicator {@code toolbus}, a graceful close when the
 * context stops, and, when configured, the gateway ({@code toolbus.gateway.enabled=true}) and a bus
 * attachment ({@code toolbus.bus.type=redis|kafka}). Every bean backs off when the application
 * defines its own.
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

    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean
    public ToolExecutor toolExecutor(ToolbusProperties properties, ToolRegistry registry,
                                     ObjectProvider<ToolPolicy> policy, ObjectProvider<MeterRegistry> meters,
                                     ObjectProvider<ObservationRegistry> observations) {
        ToolExecutor.Builder b = ToolExecutor.builder().registry(registry).settings(properties.config().execution());
        ToolPolicy custom = policy.getIfAvailable();
        b.policy(custom != null ? custom : LiveConfig.create(properties.config(), registry).policy());
        MeterRegistry m = meters.getIfAvailable();
        if (m != null) {
            b.meterRegistry(m);
        }
        if (!properties.config().limits().isEmpty()) {
            // in-memory buckets; a deployment sharing buckets on Redis defines its own ToolExecutor bean
            b.limits(properties.config().limits());
        }
        // turns and calls are observed (and traced, with micrometer-tracing) by the application's registry
        ObservationRegistry o = observations.getIfAvailable();
        if (o != null) {
            b.observationRegistry(o);
        }
        return b.build();
    }

    @Bean
    @ConditionalOnMissingBean
    public ToolbusLifecycle toolbusLifecycle(ToolExecutor executor, ToolbusProperties properties,
                                             ObjectProvider<MeterRegistry> meters) {
        return new ToolbusLifecycle(executor, properties, meters.getIfAvailable());
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
