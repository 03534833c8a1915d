package dev.toolbus.plugins.stdio;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ToolResultEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bad plugin code of every framework kind, in real host processes: a handler that writes garbage
 * straight to the real stdout (past the hosts' print/console.log redirect), one that throws, one
 * that never answers, one that exits the process. Each call gets a clear result (the garbage line is skipped with a warning), and
 * the process stays up; a folder whose module exports nothing, or does not parse, is skipped with its
 * reason while the good plugins load.
 */
class BadFrameworkPluginsTest extends PluginFixture {

    private static final String MAIBOT = """
            import asyncio
            import sys
            from maibot_sdk import MaiBotPlugin, Tool

            class Bad(MaiBotPlugin):
                @Tool("mai_junk", description="writes garbage to the real stdout, then answers")
                async def mai_junk(self, **kwargs):
                    sys.__stdout__.write("garbage {not json\\n")
                    sys.__stdout__.flush()
                    return "after junk"

                @Tool("mai_boom", description="throws")
                async def mai_boom(self, **kwargs):
                    raise RuntimeError("kaput")

                @Tool("mai_crash", description="exits the process")
                async def mai_crash(self, **kwargs):
                    import os
                    os._exit(3)

                @Tool("mai_never", description="never answers", timeout_ms=1000)
                async def mai_never(self, **kwargs):
                    await asyncio.Event().wait()

            def create_plugin():
                return Bad()
            """;

    private static final String OPENCLAW = """
            const tool = (name, execute, extra = {}) => ({ name, description: name, ...extra,
              parameters: { type: 'object', properties: {} }, execute });
            export default function (api) {
              api.registerTool(tool('claw_junk', async () => {
                process.stdout.write('garbage {not json\\n');
                return { content: [{ type: 'text', text: 'after junk' }] };
              }));
              api.registerTool(tool('claw_boom', async () => { throw new Error('kaput'); }));
              api.registerTool(tool('claw_crash', async () => process.exit(3)));
              api.registerTool(tool('claw_never', () => new Promise(() => {}), { timeoutMs: 1000 }));
            }
            """;

    private static final String CHATAI = """
            const tool = (name, handler, extra = {}) => ({ name, description: name, ...extra,
              inputSchema: { type: 'object', properties: {} }, handler });
            export default [
              tool('chat_junk', async () => { process.stdout.write('garbage {not json\\n'); return { text: 'after junk' }; }),
              tool('chat_boom', async () => { throw new Error('kaput'); }),
              tool('chat_crash', async () => process.exit(3)),
              tool('chat_never', () => new Promise(() => {}), { timeoutMs: 1000 }),
            ];
            """;

    private StdioPluginHost host;
    private ToolExecutor ex;

    @BeforeEach
    void loadBadPlugins() throws IOException {
        Files.writeString(Files.createDirectories(root.resolve("mai")).resolve("plugin.py"), MAIBOT);
        Path claw = Files.createDirectories(root.resolve("claw"));
        Files.writeString(claw.resolve("openclaw.plugin.json"), "{\"id\":\"claw\"}");
        Files.writeString(claw.resolve("index.mjs"), OPENCLAW);
        Path chat = Files.createDirectories(root.resolve("chat"));
        Files.writeString(chat.resolve("tools.mjs"), CHATAI);
        // a ChatAI folder keeps its good files when others do not load
        Files.writeString(chat.resolve("syntax.js"), "export default { name: 'x', handler: async ( => 1 }\n");
        Files.writeString(chat.resolve("nothing.mjs"), "export const unrelated = 42;\n");
        // whole plugins that cannot load are skipped with their reason
        Path noExport = Files.createDirectories(root.resolve("claw-nothing"));
        Files.writeString(noExport.resolve("openclaw.plugin.json"), "{}");
        Files.writeString(noExport.resolve("index.mjs"), "export const nothing = 1;\n");
        Path claWSyntax = Files.createDirectories(root.resolve("claw-syntax"));
        Files.writeString(claWSyntax.resolve("openclaw.plugin.json"), "{}");
        Files.writeString(claWSyntax.resolve("index.mjs"), "export default function (api) { api.registerTool({ \n");
        Path maiNothing = Files.createDirectories(root.resolve("mai-nothing"));
        Files.writeString(maiNothing.resolve("plugin.py"), "def create_plugin():\n    return None\n");
        host = load(root);
        ex = executor(host);
    }

    private StdioPluginStatus status(String id) {
        return host.plugins().stream().filter(s -> s.id().equals(id)).findFirst().orElseThrow();
    }

    @Test
    void pluginsThatCannotLoad_areSkippedWithAClearReason_andTheGoodOnesLoad() {
        assertThat(host.plugins()).extracting(StdioPluginStatus::id).containsExactlyInAnyOrder("mai", "claw", "chat");
        assertThat(host.skipped()).containsOnlyKeys("claw-nothing", "claw-syntax", "mai-nothing");
        assertThat(host.skipped().get("claw-nothing")).contains("exports no plugin function");
        assertThat(host.skipped().get("claw-syntax")).containsIgnoringCase("syntax");
        assertThat(host.skipped().get("mai-nothing")).contains("create_plugin()").contains("not a MaiBotPlugin");
        assertThat(host.tools()).extracting(s -> s.name()).contains("chat_junk", "chat_boom", "chat_never")
                .doesNotContain("x");
    }

    @ParameterizedTest
    @ValueSource(strings = {"mai", "claw", "chat"})
    void garbageOnStdout_aThrowingHandler_oneThatNeverAnswers_andACrash_getClearResults(String kind) {
        long pid = status(kind).pid();

        ToolResultEvent junk = call(ex, kind + "_junk", "{}");
        assertThat(junk.error()).as(junk.content()).isNull();
        assertThat(junk.content()).isEqualTo("after junk");

        ToolResultEvent boom = call(ex, kind + "_boom", "{}");
        assertThat(boom.error()).isNotNull();
        assertThat(boom.error().code()).isEqualTo(ErrorCode.TOOL_ERROR);
        assertThat(boom.content()).contains("kaput");

        ToolResultEvent never = call(ex, kind + "_never", "{}");
        assertThat(never.error()).isNotNull();
        assertThat(never.error().code()).isEqualTo(ErrorCode.TIMEOUT);

        assertThat(call(ex, kind + "_junk", "{}").content()).isEqualTo("after junk");
        assertThat(status(kind).pid()).isEqualTo(pid);
        assertThat(status(kind).starts()).isEqualTo(1);

        // a crash fails its call, and the next call restarts the process
        ToolResultEvent crash = call(ex, kind + "_crash", "{}");
        assertThat(crash.error()).isNotNull();
        assertThat(crash.error().code()).isEqualTo(ErrorCode.TOOL_FAILED);
        assertThat(crash.content()).contains("exited with code 3");
        assertThat(call(ex, kind + "_junk", "{}").content()).isEqualTo("after junk");
        assertThat(status(kind).starts()).isEqualTo(2);
        assertThat(status(kind).pid()).isNotEqualTo(pid);
    }
}
