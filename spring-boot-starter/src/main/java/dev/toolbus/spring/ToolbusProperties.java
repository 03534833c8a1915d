package dev.toolbus.spring;

import dev.toolbus.config.Config;
import dev.toolbus.config.ConfigLoader;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * The {@code toolbus.*} properties of the application, read as a {@code toolbus.yaml} document: every
 * section ({@code toolbus.execution.max-parallel}, {@code toolbus.tools.deny[0]},
 * {@code toolbus.approval.mode}, {@code toolbus.gateway.tokens[0].max-permission},
 * {@code toolbus.sources.custom.plugin-dirs}, {@code toolbus.plugins.<id>.config.*}, …) with Spring's
 * relaxed binding (kebab-case, camelCase, environment variables such as
 * {@code TOOLBUS_EXECUTION_MAXPARALLEL}) and the same defaults, fallbacks and warnings as the file,
 * because the config module reads them ({@link ConfigLoader#fromProperties}). A key that is not a
 * setting is a warning.
 *
 * <p>Keys of the starter itself: {@code toolbus.enabled} (default true), {@code toolbus.shutdown-timeout}
 * (default 30 s), and {@code toolbus.gateway.enabled}, which in an application defaults to
 * <em>false</em> (the gateway is a second server: start it only when asked).
 *
 * @param config the loaded config
 * @param warnings what fell back to a default, or was not a setting, and why
 * @param gatewayEnabled whether the gateway was switched on explicitly
 * @param shutdownTimeout how long each step of the close may take (running turns finishing first)
 */
public record ToolbusProperties(Config config, List<String> warnings, boolean gatewayEnabled, Duration shutdownTimeout) {

    private static final Duration DEFAULT_SHUTDOWN = Duration.ofSeconds(30);

    public ToolbusProperties {
        warnings = List.copyOf(warnings);
    }

    /** Reads {@code toolbus.*} from the environment. */
    public static ToolbusProperties from(Environment environment) {
        Binder binder = Binder.get(environment);
        ConfigLoader.Loaded loaded = ConfigLoader.fromProperties(PropertyTree.read(environment));
        boolean gateway = binder.bind("toolbus.gateway.enabled", Boolean.class).orElse(false);
        Duration shutdown = binder.bind("toolbus.shutdown-timeout", Duration.class).orElse(DEFAULT_SHUTDOWN);
        return new ToolbusProperties(loaded.config(), loaded.warnings(), gateway, shutdown);
    }
}
