package dev.toolbus.mcp.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class McpServersFileTest {

    @Test
    void parse_claudeDesktopShape() {
        McpServersFile.Parsed p = McpServersFile.parse("""
                {"mcpServers": {
                  "everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"],
                                 "env": {"DEBUG": "1"}},
                  "remote": {"url": "http://127.0.0.1:3001/mcp", "headers": {"Authorization": "Bearer t"}}
                }}""", "test");
        assertThat(p.problems()).isEmpty();
        assertThat(p.servers()).hasSize(2);
        McpServerConfig e = p.servers().get(0);
        assertThat(e.name()).isEqualTo("everything");
        assertThat(e.transport()).isEqualTo(McpServerConfig.Transport.STDIO);
        assertThat(e.command()).isEqualTo("npx");
        assertThat(e.args()).containsExactly("-y", "@modelcontextprotocol/server-everything");
        assertThat(e.env()).containsEntry("DEBUG", "1");
        McpServerConfig r = p.servers().get(1);
        assertThat(r.transport()).isEqualTo(McpServerConfig.Transport.HTTP);
        assertThat(r.url()).isEqualTo("http://127.0.0.1:3001/mcp");
        assertThat(r.headers()).containsEntry("Authorization", "Bearer t");
    }

    @Test
    void parse_chataiShapeWithTypesTimeoutsAndDisabledFlags() {
        McpServersFile.Parsed p = McpServersFile.parse("""
                {"servers": {
                  "files": {"type": "stdio", "command": "node", "args": ["server.js"], "cwd": "/srv"},
                  "web": {"type": "streamable-http", "url": "http://127.0.0.1:8080/mcp", "timeout": 15000},
                  "legacy": {"type": "sse", "url": "http://127.0.0.1:8081/sse"},
                  "off1": {"command": "x", "disabled": true},
                  "off2": {"url": "http://127.0.0.1:1/mcp", "enabled": false}
                }}""", "test");
        assertThat(p.servers()).extracting(McpServerConfig::name).containsExactly("files", "web", "legacy");
        assertThat(p.servers().get(0).cwd()).isEqualTo("/srv");
        assertThat(p.servers().get(1).transport()).isEqualTo(McpServerConfig.Transport.HTTP);
        assertThat(p.servers().get(1).toolTimeout()).isEqualTo(Duration.ofSeconds(15));
        assertThat(p.servers().get(2).transport()).isEqualTo(McpServerConfig.Transport.SSE);
        assertThat(p.disabled()).extracting(McpServerConfig::name).containsExactly("off1", "off2");
    }

    @Test
    void parse_badEntriesAreSkippedAndReported() {
        McpServersFile.Parsed p = McpServersFile.parse("""
                {"mcpServers": {"a": {"command": "ok"}, "b": {}, "c": {"type": "carrier-pigeon", "url": "http://x"},
                                "d": {"url": "ftp://x/y"}, "e": {"command": "x", "args": "not-a-list"},
                                "f": {"command": "x", "timeout": -5}},
                 "servers": {"a": {"command": "dup"}}}""", "test");
        assertThat(p.servers()).extracting(McpServerConfig::name).containsExactly("a");
        assertThat(p.servers().get(0).command()).isEqualTo("ok");
        assertThat(p.problems()).hasSize(6);
        assertThat(String.join("\n", p.problems()))
                .contains("'b' has neither a command nor a url")
                .contains("carrier-pigeon")
                .contains("http or https")
                .contains("args must be an array")
                .contains("timeout must be a positive")
                .contains("'a' appears twice");
    }

    @Test
    void parse_emptyServersIsFine() {
        assertThat(McpServersFile.parse("{\"servers\":{}}", "t").servers()).isEmpty();
    }

    @Test
    void parse_notAServersFile() {
        assertThatThrownBy(() -> McpServersFile.parse("{nope", "f.json")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("f.json is not valid JSON");
        assertThatThrownBy(() -> McpServersFile.parse("[]", "f.json")).hasMessageContaining("JSON object");
        assertThatThrownBy(() -> McpServersFile.parse("{\"tools\":{}}", "f.json"))
                .hasMessageContaining("neither \"mcpServers\"");
    }

    @Test
    void config_validatesEagerly() {
        assertThatThrownBy(() -> McpServerConfig.stdio("x", " ", List.of(), Map.of()))
                .hasMessageContaining("needs a command");
        assertThatThrownBy(() -> McpServerConfig.http("x", "")).hasMessageContaining("needs a url");
        assertThatThrownBy(() -> McpToolSource.builder().server(McpServerConfig.http("x", "http://a/mcp"))
                .server(McpServerConfig.http("x", "http://b/mcp"))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> McpToolSource.builder().backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
