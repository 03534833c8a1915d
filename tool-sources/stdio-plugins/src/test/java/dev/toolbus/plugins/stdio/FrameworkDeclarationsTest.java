package dev.toolbus.plugins.stdio;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.policy.PolicyConfig;
import dev.toolbus.policy.ToolPolicies;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.protocol.Risk;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.Visibility;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 10 item 6, per framework kind in real host processes: every per-tool declaration (MaiBot
 * {@code @Tool} metadata in snake case, OpenClaw's {@code { optional }} and tool object keys, ChatAI tool
 * object keys) reaches the tool's definition, and the policy acts on it through the executor: an optional
 * tool is not available until an allow list names it, its plugin or {@code group:plugins}, a tool needing
 * {@code admin} is refused to a member, a tool for the {@code web} channel is not available elsewhere.
 */
class FrameworkDeclarationsTest extends PluginFixture {

    private static final String MAIBOT = """
            from maibot_sdk import MaiBotPlugin, Tool

            class Declared(MaiBotPlugin):
                @Tool("mai_attrs", description="declares everything", dangerous=True, side_effecting=True,
                      risk="high", groups=["ops"], required_permission="master", channels=["web"],
                      timeout_ms=4000, visibility="deferred", cacheable=True)
                async def attrs(self, **kwargs):
                    return "ran mai_attrs"

                @Tool("mai_opt", description="optional", optional=True)
                async def opt(self, **kwargs):
                    return "ran mai_opt"

                @Tool("mai_admin", description="for admins", required_permission="admin")
                async def admin(self, **kwargs):
                    return "ran mai_admin"

                @Tool("mai_web", description="web only", channels=["web"])
                async def web(self, **kwargs):
                    return "ran mai_web"

            def create_plugin():
                return Declared()
            """;

    private static final String OPENCLAW = """
            const tool = (name, extra = {}) => ({ name, description: name, ...extra,
              parameters: { type: 'object', properties: {} },
              async execute() { return { content: [{ type: 'text', text: `ran ${name}` }] }; } });
            export default function (api) {
              api.registerTool(tool('claw_attrs', { dangerous: true, sideEffecting: true, risk: 'high', groups: ['ops'],
                requiredPermission: 'master', channels: ['web'], timeoutMs: 4000, visibility: 'deferred', cacheable: true }));
              api.registerTool(tool('claw_opt'), { optional: true });
              api.registerTool(tool('claw_admin', { requiredPermission: 'admin' }));
              api.registerTool(tool('claw_web', { channels: ['web'] }));
            }
            """;

    private static final String CHATAI = """
            const tool = (name, extra = {}) => ({ name, description: name, ...extra,
              inputSchema: { type: 'object', properties: {} }, handler: async () => ({ text: `ran ${name}` }) });
            export default [
              tool('chat_attrs', { dangerous: true, sideEffecting: true, risk: 'high', groups: ['ops'],
                requiredPermission: 'master', channels: ['web'], timeoutMs: 4000, visibility: 'deferred', cacheable: true }),
              tool('chat_opt', { optional: true }),
              tool('chat_admin', { requiredPermission: 'admin' }),
              tool('chat_web', { channels: ['web'] }),
            ];
            """;

    private StdioPluginHost host;

    @BeforeEach
    void loadThreeKinds() throws IOException {
        Files.writeString(Files.createDirectories(root.resolve("mai")).resolve("plugin.py"), MAIBOT);
        Path claw = Files.createDirectories(root.resolve("claw"));
        Files.writeString(claw.resolve("openclaw.plugin.json"), "{\"id\":\"claw\"}");
        Files.writeString(claw.resolve("index.mjs"), OPENCLAW);
        Files.writeString(Files.createDirectories(root.resolve("chat")).resolve("tools.mjs"), CHATAI);
        host = load(root);
        assertThat(host.skipped()).isEmpty();
    }

    private ToolDefinition definition(String name) {
        return host.tools().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow().definition();
    }

    private ToolExecutor executor(PolicyConfig policy) {
        ToolRegistry registry = ToolRegistry.create();
        host.registerInto(registry);
        ToolExecutor ex = ToolExecutor.builder().registry(registry).policy(ToolPolicies.from(policy, registry))
                .settings(ExecutionSettings.builder().cacheResults(false).timeoutMs(20_000).build()).build();
        closeLater(ex);
        return ex;
    }

    private static ToolResultEvent run(ToolExecutor ex, String tool, String permission, String channel) {
        CallContext ctx = CallContext.builder().userId("u1").groupId("g1").platform("qq").permission(permission)
                .channel(channel).build();
        return results(ex.execute(new ToolCallsEvent(channel + ":s1", "t-" + tool + "-" + permission + "-" + channel,
                List.of(ToolCall.ofJson("c1", tool, "{}")), ctx, null)).collectList().block(WAIT)).get(0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"mai", "claw", "chat"})
    void everyDeclarationReachesTheDefinition(String kind) {
        ToolDefinition attrs = definition(kind + "_attrs");
        assertThat(attrs.pluginId()).isEqualTo(kind);
        assertThat(attrs.dangerous()).isTrue();
        assertThat(attrs.sideEffecting()).isTrue();
        assertThat(attrs.risk()).isEqualTo(Risk.HIGH);
        assertThat(attrs.groups()).containsExactly("ops");
        assertThat(attrs.requiredPermission()).isEqualTo("master");
        assertThat(attrs.channels()).containsExactly("web");
        assertThat(attrs.timeout()).isEqualTo(Duration.ofMillis(4000));
        assertThat(attrs.visibility()).isEqualTo(Visibility.DEFERRED);
        assertThat(attrs.cacheable()).isTrue();
        assertThat(attrs.optional()).isFalse();

        assertThat(definition(kind + "_opt").optional()).isTrue();
        // without declarations: visible, not optional, and never cached
        ToolDefinition plain = definition(kind + "_admin");
        assertThat(plain.optional()).isFalse();
        assertThat(plain.dangerous()).isFalse();
        assertThat(plain.channels()).isEmpty();
        assertThat(plain.visibility()).isEqualTo(Visibility.VISIBLE);
        assertThat(plain.cacheable()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"mai", "claw", "chat"})
    void thePolicyActsOnTheDeclarations(String kind) {
        ToolExecutor defaults = executor(PolicyConfig.defaults());
        assertThat(run(defaults, kind + "_opt", "member", "qq").error().code()).isEqualTo(ErrorCode.NOT_AVAILABLE);
        assertThat(run(defaults, kind + "_admin", "member", "qq").error().code()).isEqualTo(ErrorCode.PERMISSION_DENIED);
        assertThat(run(defaults, kind + "_admin", "admin", "qq").content()).isEqualTo("ran " + kind + "_admin");
        assertThat(run(defaults, kind + "_web", "member", "qq").error().code()).isEqualTo(ErrorCode.NOT_AVAILABLE);
        assertThat(run(defaults, kind + "_web", "member", "web").content()).isEqualTo("ran " + kind + "_web");

        // an allow list naming the tool, its plugin id or group:plugins opts in to the optional tool
        for (String entry : List.of(kind + "_opt", kind, "group:plugins")) {
            ToolExecutor allowed = executor(PolicyConfig.builder().alsoAllow(List.of(entry)).build());
            ToolResultEvent opt = run(allowed, kind + "_opt", "member", "qq");
            assertThat(opt.error()).as(entry + ": " + opt.content()).isNull();
            assertThat(opt.content()).isEqualTo("ran " + kind + "_opt");
        }
    }
}
