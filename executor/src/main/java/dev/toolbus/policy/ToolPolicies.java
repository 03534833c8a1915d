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

    /**
     * Problems of the rules alone, without looking at any tools: unknown profiles, unknown
     * {@code group:} references, nested groups, duplicate group names, unknown permission levels.
     */
    public static java.util.List<String> check(PolicyConfig config) {
        return new DefaultPolicy(Objects.requireNonNull(config, "config"), ToolRegistry.create(),
                ToolDiscovery.create(config.search())).configWarnings();
    }

    /** A holder whose policy can be replaced atomically (hot reload). */
    public static SwitchablePolicy switchable(ConfiguredPolicy initial) {
        return new SwitchablePolicy(initial);
    }
}
