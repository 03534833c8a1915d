package dev.toolbus.policy;

import dev.toolbus.protocol.CallContext;
import dev.toolbus.spi.ToolPolicy;
import dev.toolbus.tool.ToolDefinition;
import java.util.List;

/**
 * A {@link ToolPolicy} built from a {@link PolicyConfig} over a registry. The executor asks
 * {@link #decide} both when listing and before running a call, so the two never disagree.
 *
 * <p>Refusals: {@code NOT_AVAILABLE} (with an empty reason, so the executor's standard text is used
 * and nothing about the rules leaks) unless the <em>only</em> obstacle is the caller's permission
 * level; then {@code PERMISSION_DENIED} with the level needed. Neither is listed.
 */
public interface ConfiguredPolicy extends ToolPolicy {

    /**
     * Decides for one tool and one session. A deferred tool is allowed only after
     * {@code tool_search} returned it on this stream (unless discovery is not required).
     */
    @Override
    Decision decide(ToolDefinition tool, String streamId, CallContext context);

    /** Like {@link #decide} but treats deferred tools as found: what {@code tool_search} may return. */
    Decision decideForSearch(ToolDefinition tool, String streamId, CallContext context);

    /** The rules. */
    PolicyConfig config();

    /** Where found deferred tools are remembered (shared across reloads). */
    ToolDiscovery discovery();

    /**
     * Problems of the rules against the registry's current tools: unknown profiles, groups and
     * permission levels, allow lists with unknown entries. Empty when all is well.
     */
    List<String> warnings();
}
