package dev.toolbus.policy;

import dev.toolbus.protocol.CallContext;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.spi.ToolPolicy;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Mono;

/** Tools and helpers for policy tests: the core tools and the {@code flow} plugin of peer-tools.md §B.4. */
final class Fixtures {

    /** Core tools C of §B.4 (no plugin id, source CORE). */
    static final List<String> CORE = List.of("read", "write", "edit", "apply_patch", "exec", "process", "message",
            "session_status", "sessions_list", "web_search", "web_fetch", "image");

    private Fixtures() {
    }

    static ToolSpec tool(String name, UnaryOperator<ToolDefinition.Builder> f) {
        ToolDefinition d = f.apply(ToolDefinition.builder(name).description("The " + name + " tool")).build();
        return new ToolSpec(d, (a, c) -> Mono.just(ToolResult.text(name + " ran")));
    }

    static ToolSpec tool(String name) {
        return tool(name, b -> b);
    }

    /** C as core tools, plugin {@code flow} = {flow, workflow_tool (optional)}, plugin {@code foo} = {foo_tool}. */
    static ToolRegistry peerRegistry() {
        ToolRegistry r = ToolRegistry.create();
        CORE.forEach(n -> r.register(tool(n), ToolSource.CORE));
        r.register(tool("flow", b -> b.pluginId("flow")), ToolSource.PLUGIN);
        r.register(tool("workflow_tool", b -> b.pluginId("flow").optional(true)), ToolSource.PLUGIN);
        r.register(tool("foo_tool", b -> b.pluginId("foo")), ToolSource.PLUGIN);
        return r;
    }

    /** §B.2's core groups as configured groups. */
    static PolicyConfig.Builder withPeerGroups(PolicyConfig.Builder b) {
        return b.group(group("fs", "read", "write", "edit", "apply_patch"))
                .group(group("runtime", "exec", "process"))
                .group(group("web", "web_search", "web_fetch"))
                .group(group("sessions", "sessions_list", "session_status"))
                .group(group("messaging", "message"))
                .defineProfile("coding", PolicyConfig.Rules.of(
                        List.of("group:fs", "group:runtime", "group:sessions", "group:memory", "image"), List.of()))
                .defineProfile("messaging", PolicyConfig.Rules.of(
                        List.of("group:messaging", "sessions_list", "session_status"), List.of()));
    }

    static PolicyConfig.Group group(String name, String... tools) {
        return new PolicyConfig.Group(name, "", List.of(tools), true, null);
    }

    static CallContext ctx(String permission) {
        return CallContext.builder().userId("u1").groupId("g1").platform("qq").permission(permission).channel("qq")
                .provider("").model("").agentId("").build();
    }

    static CallContext ctx(String provider, String model, String agent) {
        return CallContext.builder().userId("u1").groupId("g1").platform("qq").permission("member").channel("qq")
                .provider(provider).model(model).agentId(agent).build();
    }

    /** The names the policy allows, over every registered tool. */
    static Set<String> visible(ToolPolicy policy, ToolRegistry registry, CallContext ctx) {
        Set<String> out = new TreeSet<>();
        for (ToolDefinition d : registry.definitions()) {
            if (policy.decide(d, "qq:group:g1", ctx).allowed()) {
                out.add(d.name());
            }
        }
        return out;
    }

    static Set<String> set(List<String> base, String... more) {
        Set<String> s = new TreeSet<>(base);
        s.addAll(List.of(more));
        return s;
    }

    static List<String> without(List<String> base, String... names) {
        List<String> l = new ArrayList<>(base);
        l.removeAll(List.of(names));
        return l;
    }
}
