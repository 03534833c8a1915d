package dev.toolbus.policy;

import static dev.toolbus.policy.Fixtures.tool;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ListToolsEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.tool.BuiltInTools;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.Visibility;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Property: through a real executor, for random contexts and configs, a visible tool is listed iff a
 * call to it runs; a deferred tool is never listed, is not callable before {@code tool_search}, and
 * is callable after a search iff the search returned it. Refused calls never run their handler.
 */
class ListingExecutionAgreementTest {

    private static final String[] PERMISSIONS = {"", "member", "admin", "owner", "master", "MASTER", "guest"};
    private static final String[] CHANNELS = {"", "qq", "cli", "web"};
    private static final String[] PROVIDERS = {"", "openai", "anthropic"};
    private static final String[] MODELS = {"", "gpt-5.2", "gpt-4o", "claude"};
    private static final String[] AGENTS = {"", "main", "ops"};

    private static ToolRegistry registry() {
        ToolRegistry r = ToolRegistry.create();
        for (String n : List.of("read", "write", "exec", "message", "web_search")) {
            r.register(tool(n), ToolSource.CORE);
        }
        r.register(tool("flow", b -> b.pluginId("flow")), ToolSource.PLUGIN);
        r.register(tool("workflow_tool", b -> b.pluginId("flow").optional(true)), ToolSource.PLUGIN);
        r.register(tool("kick_member", b -> b.pluginId("qqadmin")), ToolSource.PLUGIN);
        r.register(tool("mute_user", b -> b.pluginId("qqadmin").dangerous(true)), ToolSource.PLUGIN);
        r.register(tool("set_title", b -> b.pluginId("qqadmin").requiredPermission("owner")), ToolSource.PLUGIN);
        r.register(tool("shell", b -> b.requiredPermission("superuser")), ToolSource.CORE);
        r.register(tool("tui_control", b -> b.channels(List.of("cli"))), ToolSource.CORE);
        r.register(tool("greet", b -> b.pluginId("scripts")), ToolSource.STDIO);
        r.register(tool("gh_issue", b -> b.pluginId("github")), ToolSource.MCP);
        r.register(tool("gh_search", b -> b.pluginId("github").visibility(Visibility.DEFERRED)
                .description("deferred search")), ToolSource.MCP);
        r.register(tool("calendar", b -> b.visibility(Visibility.DEFERRED).description("deferred calendar")
                .groups(List.of("office"))), ToolSource.PLUGIN);
        r.register(tool("secret", b -> b.visibility(Visibility.HIDDEN)), ToolSource.CORE);
        return r;
    }

    private static List<PolicyConfig> configs() {
        PolicyConfig.Group admin = new PolicyConfig.Group("admin", "", List.of("kick_member", "mute_*"), true, "admin");
        PolicyConfig.Group office = new PolicyConfig.Group("office", "", List.of("calendar"), true, "admin");
        PolicyConfig.Group off = new PolicyConfig.Group("web", "", List.of("web_search"), false, null);
        PolicyConfig.Security danger = new PolicyConfig.Security(List.of("exec"), true, "owner");
        return List.of(
                PolicyConfig.defaults(),
                PolicyConfig.builder().group(admin).group(office).group(off).security(danger).build(),
                PolicyConfig.builder().mode(SourceMode.SKILLS_ONLY).allow(List.of("read", "workflow_tool", "kick_*"))
                        .deny(List.of("flow")).build(),
                PolicyConfig.builder().mode(SourceMode.MCP_ONLY).group(office).build(),
                PolicyConfig.builder().group(admin).security(danger).alsoAllow(List.of("group:plugins"))
                        .byProvider("openai/gpt-5.2", PolicyConfig.Rules.of(List.of("read", "github"), List.of()))
                        .byProvider("anthropic", PolicyConfig.Rules.of(List.of(), List.of("web_*")))
                        .agent("ops", PolicyConfig.Rules.of(List.of("exec", "qqadmin", "gh_*", "calendar"), List.of()))
                        .build(),
                PolicyConfig.builder().disabledTools(List.of("write", "greet"))
                        .sources(PolicyConfig.Sources.builder().builtinEnabled(true).customEnabled(false)
                                .mcpEnabled(true).disabledTools(List.of("write")).build())
                        .defineProfile("chat", PolicyConfig.Rules.of(List.of("message", "read"), List.of()))
                        .profile("chat").alsoAllow(List.of("gh_search"))
                        .agent("main", PolicyConfig.Rules.builder().allow(List.of()).alsoAllow(List.of())
                                .deny(List.of()).profile("full").build()).build());
    }

    @Test
    void listingAndExecutionNeverDisagree() {
        ToolRegistry registry = registry();
        List<PolicyConfig> configs = configs();
        ToolDiscovery discovery = ToolDiscovery.create(PolicyConfig.Search.DEFAULTS);
        SwitchablePolicy policy = ToolPolicies.switchable(ToolPolicies.from(configs.get(0), registry, discovery));
        registry.register(ToolSearch.spec(registry, policy, DescriptionLocale.EN), ToolSource.CORE);
        Random random = new Random(20260823);
        int checkedAllowed = 0;
        int checkedRefused = 0;
        try (ToolExecutor executor = ToolExecutor.builder().registry(registry).policy(policy).build()) {
            for (int i = 0; i < 300; i++) {
                policy.set(ToolPolicies.from(configs.get(random.nextInt(configs.size())), registry, discovery));
                String stream = pick(random, CHANNELS) + ":s" + i;
                CallContext ctx = CallContext.builder().userId("u" + random.nextInt(3)).groupId("g").platform("qq")
                        .permission(pick(random, PERMISSIONS))
                        .channel(random.nextBoolean() ? pick(random, CHANNELS) : "").provider(pick(random, PROVIDERS))
                        .model(pick(random, MODELS)).agentId(pick(random, AGENTS)).build();

                Set<String> listed = new TreeSet<>();
                executor.listTools(new ListToolsEvent(stream, "r", ctx, ListToolsEvent.Format.ANTHROPIC)).tools()
                        .forEach(t -> listed.add(t.get("name").asText()));
                Set<String> ran = ranAll(executor, registry, stream, ctx);
                String label = "config " + policy.config() + " ctx " + ctx + " stream " + stream;
                for (ToolDefinition d : registry.definitions()) {
                    if (builtIn(d)) {
                        continue;
                    }
                    if (d.visibility() == Visibility.VISIBLE) {
                        assertThat(ran.contains(d.name())).as(d.name() + " listed vs ran, " + label)
                                .isEqualTo(listed.contains(d.name()));
                    } else {
                        assertThat(listed).as(label).doesNotContain(d.name());
                        assertThat(ran).as("not yet found, " + label).doesNotContain(d.name());
                    }
                }
                Set<String> found = new TreeSet<>();
                if (listed.contains(ToolSearch.NAME)) {
                    ToolResultEvent r = execute(executor, stream, ctx, List.of(
                            ToolCall.ofJson("s", ToolSearch.NAME, "{\"query\":\"deferred\",\"limit\":10}"))).get(0);
                    ((JsonNode) r.data()).get("tools").forEach(t -> found.add(t.get("name").asText()));
                }
                Set<String> ranAfter = ranAll(executor, registry, stream, ctx);
                for (ToolDefinition d : registry.definitions()) {
                    if (builtIn(d)) {
                        continue;
                    }
                    boolean expected = d.visibility() == Visibility.DEFERRED ? found.contains(d.name())
                            : listed.contains(d.name());
                    assertThat(ranAfter.contains(d.name())).as(d.name() + " after search, " + label)
                            .isEqualTo(expected);
                    if (expected) {
                        checkedAllowed++;
                    } else {
                        checkedRefused++;
                    }
                }
            }
        }
        assertThat(checkedAllowed).isGreaterThan(500);
        assertThat(checkedRefused).isGreaterThan(500);
    }

    /**
     * The built-in core tools: tool_search, and read_tool_result, which every executor registers and the
     * policy lets every session call (it reads only the session's own cut results).
     */
    private static boolean builtIn(ToolDefinition d) {
        return d.name().equals(ToolSearch.NAME) || d.name().equals(BuiltInTools.READ_TOOL_RESULT);
    }

    /** Calls every registered tool but the built-in ones; the names whose handler ran. */
    private static Set<String> ranAll(ToolExecutor executor, ToolRegistry registry, String stream, CallContext ctx) {
        List<ToolCall> calls = new ArrayList<>();
        for (ToolDefinition d : registry.definitions()) {
            if (!builtIn(d)) {
                calls.add(ToolCall.ofJson("c-" + d.name(), d.name(), "{}"));
            }
        }
        Set<String> ran = new TreeSet<>();
        for (ToolResultEvent r : execute(executor, stream, ctx, calls)) {
            if (!r.isError()) {
                assertThat(r.content()).isEqualTo(r.name() + " ran");
                ran.add(r.name());
            } else {
                assertThat(r.error().code()).isIn(ErrorCode.NOT_AVAILABLE, ErrorCode.PERMISSION_DENIED);
            }
        }
        return ran;
    }

    private static List<ToolResultEvent> execute(ToolExecutor executor, String stream, CallContext ctx,
                                                 List<ToolCall> calls) {
        List<ToolResultEvent> out = new ArrayList<>();
        executor.execute(new ToolCallsEvent(stream, "t", calls, ctx, null)).toStream().forEach(e -> {
            if (e instanceof ToolResultEvent r) {
                out.add(r);
            }
        });
        return out;
    }

    private static String pick(Random r, String[] values) {
        return values[r.nextInt(values.length)];
    }
}
