package dev.toolbus.policy;

import dev.toolbus.protocol.CallContext;
import dev.toolbus.tool.ToolDefinition;
import java.util.List;
import java.util.Objects;

/**
 * A policy that delegates to a replaceable current one: give it to the executor once, then
 * {@link #set} a new policy on reload. Every decision reads the current policy once (a volatile
 * read), so a call is decided wholly under the old or wholly under the new rules; a call already
 * past its policy check finishes whatever happens later.
 */
public final class SwitchablePolicy implements ConfiguredPolicy {

    private volatile ConfiguredPolicy current;

    SwitchablePolicy(ConfiguredPolicy initial) {
        this.current = Objects.requireNonNull(initial, "initial");
    }

    /** Replaces the policy; returns the previous one. */
    public ConfiguredPolicy set(ConfiguredPolicy next) {
        ConfiguredPolicy prev = current;
        current = Objects.requireNonNull(next, "next");
        return prev;
    }

    /** The policy in force. */
    public ConfiguredPolicy current() {
        return current;
    }

    @Override
    public Decision decide(ToolDefinition tool, String streamId, CallContext context) {
        return current.decide(tool, streamId, context);
    }

    @Override
    public Decision decideForSearch(ToolDefinition tool, String streamId, CallContext context) {
        return current.decideForSearch(tool, streamId, context);
    }

    @Override
    public PolicyConfig config() {
        return current.config();
    }

    @Override
    public ToolDiscovery discovery() {
        return current.discovery();
    }

    @Override
    public List<String> warnings() {
        return current.warnings();
    }
}
