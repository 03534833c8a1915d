package dev.toolbus.executor.internal;

import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.tool.CacheScope;
import dev.toolbus.tool.ToolDefinition;
import java.util.IdentityHashMap;
import java.util.Iterator;

/**
 * The {@link ToolPlan} of each registered definition, looked up by identity without locking or
 * allocating (a copy-on-write map). It holds only definitions that are registered when their plan is
 * made, and drops replaced ones as soon as it holds more plans than the registry has tools, so it is
 * never larger than the registry and forgets what was replaced.
 */
final class ToolPlans {

    private final ToolRegistry registry;
    private final ExecutorMetrics metrics;
    private final CacheOptIn cacheOptIn;
    /** Never modified once published. */
    private volatile IdentityHashMap<ToolDefinition, ToolPlan> plans = new IdentityHashMap<>();

    ToolPlans(ToolRegistry registry, ExecutorMetrics metrics, CacheOptIn cacheOptIn) {
        this.registry = registry;
        this.metrics = metrics;
        this.cacheOptIn = cacheOptIn;
    }

    ToolPlan get(ToolDefinition def) {
        ToolPlan p = plans.get(def);
        return p != null ? p : make(def);
    }

    private synchronized ToolPlan make(ToolDefinition def) {
        ToolPlan p = plans.get(def);
        if (p != null) {
            return p;
        }
        p = new ToolPlan(ArgumentRules.of(def), metrics.tool(def.name()), cacheable(def));
        if (!registered(def)) {
            // removed or replaced meanwhile: used for this call only
            return p;
        }
        IdentityHashMap<ToolDefinition, ToolPlan> next = new IdentityHashMap<>(plans);
        next.put(def, p);
        if (next.size() > registry.entries().size()) {
            for (Iterator<ToolDefinition> it = next.keySet().iterator(); it.hasNext(); ) {
                if (!registered(it.next())) {
                    it.remove();
                }
            }
        }
        plans = next;
        return p;
    }

    private boolean cacheable(ToolDefinition def) {
        return (def.cacheable() || cacheOptIn.lists(def)) && def.cacheScope() != CacheScope.NONE
                && !def.sideEffecting() && !def.dangerous();
    }

    private boolean registered(ToolDefinition def) {
        ToolRegistry.Entry e = registry.find(def.name());
        return e != null && e.tool().definition() == def;
    }
}
