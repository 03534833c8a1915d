package dev.toolbus.plugins.stdio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.CancelEvent;
import dev.toolbus.protocol.ContentPart;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.SendMessageEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolProgressEvent;
import dev.toolbus.protocol.ToolResultEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 10 through the Java executor, per framework host: a plugin's send becomes a send_message
 * before its result, cancel and timeout reach the handler (MaiBot task cancellation, OpenClaw's
 * {@code signal}, ChatAI's {@code context.signal}) while the process lives on, and the caller's
 * permission reaches ChatAI's {@code context.isMaster()}.
 */
class FrameworkConversationTest extends PluginFixture {

    private static final String MAIBOT = """
            import asyncio
            import json
            from maibot_sdk import MaiBotPlugin, Tool

            class Waiter(MaiBotPlugin):
                cancelled = []

                @Tool("mai_send", description="says hello in the chat, then answers")
                async def mai_send(self, stream_id=None, **kwargs):
                    ok = await self.ctx.send.text("你好！", stream_id)
                    return "sent" if ok else "refused"

                async def _wait(self, name):
                    await self.ctx.send.text(name + " waiting")
                    try:
                        await asyncio.sleep(30)
                    except asyncio.CancelledError as e:
                        Waiter.cancelled.append({"name": name, "reason": str(e.args[0]) if e.args else ""})
                        raise
                    return "slept"

                @Tool("mai_wait", description="waits 30 s")
                async def mai_wait(self, **kwargs):
                    return await self._wait("mai_wait")

                @Tool("mai_slow", description="waits 30 s, times out after 1 s", timeout_ms=1000)
                async def mai_slow(self, **kwargs):
                    return await self._wait("mai_slow")

                @Tool("mai_message", description="what MaiBot's kwargs carry")
                async def mai_message(self, stream_id=None, message=None, **kwargs):
                    return json.dumps({"stream_id": stream_id, "user_id": kwargs.get("user_id"),
                                       "group_id": kwargs.get("group_id"), "message": message}, ensure_ascii=False)

                @Tool("mai_cancelled", description="the waits that saw their cancellation")
                async def mai_cancelled(self, **kwargs):
                    return json.dumps(Waiter.cancelled)

            def create_plugin():
                return Waiter()
            """;

    private static final String OPENCLAW = """
            const aborted = [];
            const waiter = (name, extra = {}) => ({
              name, description: `waits 30 s for its signal (${name})`, ...extra,
              parameters: { type: 'object', properties: {} },
              async execute(toolCallId, params, signal, onUpdate) {
                onUpdate({ content: [{ type: 'text', text: `${name} waiting` }] });
                await new Promise((resolve) => {
                  const timer = setTimeout(resolve, 30000);
                  signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
                });
                aborted.push({ name, toolCallId, aborted: signal.aborted, reason: String(signal.reason?.message ?? ''),
                  reasonName: String(signal.reason?.name ?? '') });
                return { content: [{ type: 'text', text: 'done' }] };
              },
            });
            export default function (api) {
              api.registerTool(waiter('claw_wait'));
              api.registerTool(waiter('claw_slow', { timeoutMs: 1000 }));
              api.registerTool({ name: 'claw_aborted', description: 'what the waits saw',
                parameters: { type: 'object', properties: {} },
                execute: async () => ({ content: [{ type: 'text', text: JSON.stringify(aborted) }] }) });
            }
            """;

    private static final String CHATAI = """
            const aborted = [];
            const waiter = (name, extra = {}) => ({
              name, description: `waits 30 s for its signal (${name})`, ...extra,
              inputSchema: { type: 'object', properties: {} },
              handler: async (args, context) => {
                await context.reply(`${name} waiting`);
                await new Promise((resolve) => {
                  const timer = setTimeout(resolve, 30000);
                  context.signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
                });
                aborted.push({ name, aborted: context.signal.aborted, reason: String(context.signal.reason?.message ?? '') });
                return { text: 'done' };
              },
            });
            export default [
              { name: 'chat_send', description: 'greets in the chat, then answers',
                inputSchema: { type: 'object', properties: {} },
                handler: async (args, context) => {
                  await context.reply(`hello ${context.getEvent().user_id}`);
                  return { text: 'sent' };
                } },
              { name: 'chat_message', description: 'what the context carries',
                inputSchema: { type: 'object', properties: {} },
                handler: async (args, context) => {
                  const e = context.getEvent();
                  return { text: JSON.stringify({ message: context.message, msg: e.msg, user_id: e.user_id,
                    group_id: e.group_id, platform: e.platform, message_type: e.message_type }) };
                } },
              { name: 'chat_master', description: 'whether the caller is the master',
                inputSchema: { type: 'object', properties: {} },
                handler: async (args, context) => ({ text: `${context.isMaster()} ${context.getEvent().isMaster}` }) },
              waiter('chat_wait'),
              waiter('chat_slow', { timeoutMs: 1000 }),
              { name: 'chat_aborted', description: 'what the waits saw', inputSchema: { type: 'object', properties: {} },
                handler: async () => ({ text: JSON.stringify(aborted) }) },
            ];
            """;

    private StdioPluginHost host;
    private ToolExecutor ex;

    @BeforeEach
    void loadThreeKinds() throws IOException {
        Path mai = Files.createDirectories(root.resolve("mai"));
        Files.writeString(mai.resolve("plugin.py"), MAIBOT);
        Path claw = Files.createDirectories(root.resolve("claw"));
        Files.writeString(claw.resolve("openclaw.plugin.json"), "{\"id\":\"claw\"}");
        Files.writeString(claw.resolve("index.mjs"), OPENCLAW);
        Path chat = Files.createDirectories(root.resolve("chat"));
        Files.writeString(chat.resolve("tools.mjs"), CHATAI);
        host = load(root);
        assertThat(host.skipped()).isEmpty();
        assertThat(host.plugins()).extracting(StdioPluginStatus::id).containsExactlyInAnyOrder("mai", "claw", "chat");
        ex = executor(host);
    }

    private StdioPluginStatus status(String plugin) {
        return host.plugins().stream().filter(s -> s.id().equals(plugin)).findFirst().orElseThrow();
    }

    private static String text(SendMessageEvent e) {
        return e.content().stream().map(ContentPart::text).reduce("", String::concat);
    }

    private static List<OutboundEvent> turn(ToolExecutor ex, String tool, String permission) {
        CallContext ctx = CallContext.builder().userId("u7").groupId("g1").platform("qq").permission(permission)
                .channel("web").provider("openai").model("gpt-4o").agentId("helper").build();
        return ex.execute(new ToolCallsEvent("s-" + tool, "turn-" + tool + "-" + permission,
                List.of(ToolCall.ofJson("c-" + tool, tool, "{}")), ctx, null)).collectList().block(WAIT);
    }

    @ParameterizedTest
    @ValueSource(strings = {"mai_send", "chat_send"})
    void send_becomesASendMessageBeforeTheResult(String tool) {
        List<OutboundEvent> events = turn(ex, tool, "member");
        List<SendMessageEvent> sent = events.stream().filter(e -> e instanceof SendMessageEvent)
                .map(e -> (SendMessageEvent) e).toList();
        ToolResultEvent result = results(events).get(0);

        assertThat(result.isError()).as(result.content()).isFalse();
        assertThat(result.content()).isEqualTo("sent");
        assertThat(sent).singleElement().satisfies(m -> {
            assertThat(text(m)).isEqualTo(tool.startsWith("mai") ? "你好！" : "hello u7");
            assertThat(m.streamId()).isEqualTo("s-" + tool);
            assertThat(m.toolCallId()).isEqualTo("c-" + tool);
            assertThat(m.messageId()).isEqualTo("c-" + tool + ":msg:1");
        });
        assertThat(events.indexOf(sent.get(0))).isLessThan(events.indexOf(result));
    }

    @Test
    void chatai_isMaster_followsTheCallersPermission() {
        assertThat(results(turn(ex, "chat_master", "master")).get(0).content()).isEqualTo("true true");
        assertThat(results(turn(ex, "chat_master", "member")).get(0).content()).isEqualTo("false false");
    }

    @ParameterizedTest
    @ValueSource(strings = {"mai_message", "chat_message"})
    void theTriggeringMessageAndTheCaller_reachTheHandler(String tool) throws IOException {
        CallContext ctx = CallContext.builder().userId("u7").groupId("g1").platform("qq").permission("member")
                .channel("web").build();
        JsonNode message = Json.mapper().readTree("{\"text\":\"今天天气怎么样\",\"message_id\":\"m1\"}");
        List<OutboundEvent> events = ex.execute(new ToolCallsEvent("chat-9", "turn-" + tool,
                List.of(ToolCall.ofJson("c-" + tool, tool, "{}")), ctx, message)).collectList().block(WAIT);
        ToolResultEvent result = results(events).get(0);
        assertThat(result.isError()).as(result.content()).isFalse();
        JsonNode seen = Json.mapper().readTree(result.content());
        assertThat(seen.path("message")).isEqualTo(message);
        assertThat(seen.path("user_id").asText()).isEqualTo("u7");
        assertThat(seen.path("group_id").asText()).isEqualTo("g1");
        if (tool.startsWith("mai")) {
            assertThat(seen.path("stream_id").asText()).isEqualTo("chat-9");
        } else {
            assertThat(seen.path("msg").asText()).isEqualTo("今天天气怎么样");
            assertThat(seen.path("platform").asText()).isEqualTo("qq");
            assertThat(seen.path("message_type").asText()).isEqualTo("group");
        }
    }

    /** plugin id, the waiting tool's prefix, and the tool that reads back what the handlers saw. */
    private static String[] kind(String plugin) {
        return switch (plugin) {
            case "mai" -> new String[] {"mai", "mai_cancelled"};
            case "claw" -> new String[] {"claw", "claw_aborted"};
            default -> new String[] {"chat", "chat_aborted"};
        };
    }

    /** Waits until the handler runs: MaiBot and ChatAI send a message first, OpenClaw reports progress. */
    private static void awaitRunning(ConversationFixture turn, String plugin) {
        if (plugin.equals("claw")) {
            turn.awaitFirst(ToolProgressEvent.class);
        } else {
            turn.awaitFirst(SendMessageEvent.class);
        }
    }

    private JsonNode seen(String plugin) throws IOException {
        return Json.mapper().readTree(call(ex, kind(plugin)[1], "{}").content());
    }

    @ParameterizedTest
    @ValueSource(strings = {"mai", "claw", "chat"})
    void cancel_reachesTheHandler_endsCancelledWithinASecond_andTheProcessStaysUp(String plugin) throws IOException {
        long pid = status(plugin).pid();
        String tool = kind(plugin)[0] + "_wait";
        ConversationFixture turn = ConversationFixture.start(ex, "cancel-" + plugin, ToolCall.ofJson("long", tool, "{}"));
        awaitRunning(turn, plugin);

        long t0 = System.nanoTime();
        ex.control(CancelEvent.builder().streamId(turn.streamId).turnId(turn.turnId).toolCallId("long")
                .reason("user pressed stop").build()).block(WAIT);
        ToolResultEvent r = turn.awaitResult("long");

        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(1));
        assertThat(r.error()).as(r.content()).isNotNull();
        assertThat(r.error().code()).isEqualTo(ErrorCode.CANCELLED);
        await().atMost(WAIT).until(() -> seen(plugin).size() == 1);
        JsonNode saw = seen(plugin).get(0);
        switch (plugin) {
            case "mai" -> assertThat(saw.path("name").asText()).isEqualTo("mai_wait");
            case "claw" -> {
                assertThat(saw.path("aborted").asBoolean()).isTrue();
                assertThat(saw.path("toolCallId").asText()).isEqualTo("long");
                assertThat(saw.path("reasonName").asText()).isEqualTo("AbortError");
            }
            default -> assertThat(saw.path("aborted").asBoolean()).isTrue();
        }
        // the cancel event's reason reaches the handler: MaiBot's CancelledError, the AbortSignal's reason
        assertThat(saw.path("reason").asText()).isEqualTo("user pressed stop");
        assertThat(status(plugin).pid()).isEqualTo(pid);
        assertThat(status(plugin).starts()).isEqualTo(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"mai", "claw", "chat"})
    void timeout_reachesTheHandler_endsTimeout_andTheProcessStaysUp(String plugin) throws IOException {
        long pid = status(plugin).pid();
        String tool = kind(plugin)[0] + "_slow";
        assertThat(host.tools().stream().filter(s -> s.name().equals(tool)).findFirst().orElseThrow()
                .definition().timeout()).hasMillis(1000);
        ConversationFixture turn = ConversationFixture.start(ex, "timeout-" + plugin, ToolCall.ofJson("slow", tool, "{}"));
        awaitRunning(turn, plugin);

        ToolResultEvent r = turn.awaitResult("slow");

        assertThat(r.error()).as(r.content()).isNotNull();
        assertThat(r.error().code()).isEqualTo(ErrorCode.TIMEOUT);
        await().atMost(WAIT).until(() -> seen(plugin).size() == 1);
        JsonNode saw = seen(plugin).get(0);
        assertThat(saw.path("name").asText()).isEqualTo(tool);
        assertThat(saw.path("reason").asText()).isEqualTo("timeout");
        if (plugin.equals("claw")) {
            assertThat(saw.path("reasonName").asText()).isEqualTo("TimeoutError");
        }
        if (!plugin.equals("mai")) {
            assertThat(saw.path("aborted").asBoolean()).isTrue();
        }
        assertThat(status(plugin).pid()).isEqualTo(pid);
        assertThat(status(plugin).starts()).isEqualTo(1);
    }
}
