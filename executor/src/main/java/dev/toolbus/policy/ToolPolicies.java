package dev.toolbus.policy;

import dev.toolbus.registry.ToolRegistry;
import java.util.Objects;

/**
 * Builds configured policies.
 *
 * <pre>{@code
 * ToolRegistry registry = ToolRegistry.create();
 * ToolDiscovery discovery = ToolDiscovery.create(config.search());
 * SwitchablePolicy policy = ToolPolicies.switchable(ToolPolicies.from(config, registry, discovery));
 * registry.register(ToolSearch.spec(registry, policy, DescriptionLocale.EN), ToolSource.CORE);
 * ToolExecutor executor = ToolExecutor.builder().registry(registry).policy(policy).build();
 * // on reload: policy.set(ToolPolicies.from(newConfig, registry, policy.discovery()));
 * }</pre>
 */
public final class ToolPolicies {

    private ToolPolicies() {
    }

    /**
     * A policy for these rules over this registry, remembering found deferred tools in
     * {@code discovery}. The registry is read at decision time, so tools registered later are
     * covered; it tells each tool's source and which tools are core (for plugin-only allow lists).
     */
    public static ConfiguredPolicy from(PolicyConfig config, ToolRegistry registry, ToolDiscovery discovery) {
        return new DefaultPolicy(Objects.requireNonNull(config, "config"), Objects.requireNonNull(registry, "registry"),
                Objects.requireNonNull(discovery, "discovery"));
    }

    /** A policy for these rules over this registry, with a discovery store sized by {@code config.search()}. */
    public static ConfiguredPolicy from(PolicyConfig config, ToolRegistry registry) {
        return from(config, registry, ToolDiscovery.create(config.search()));
    }

    /** A holder whose policy can be replaced atomically (hot reload). */
    public static SwitchablePolicy switchable(ConfiguredPolicy initial) {
        return new SwitchablePolicy(initial);
    }
}
