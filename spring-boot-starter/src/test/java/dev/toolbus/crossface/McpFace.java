package dev.toolbus.crossface;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.publisher.Mono;

/**
 * {@code toolbus mcp --config toolbus.yaml} as real processes (one per session: {@code --permission
 * member} and {@code --permission owner}), each driven by the MCP Java SDK's client over stdio; an
 * approval arrives as {@code elicitation/create}. No gateway.
 */
final class McpFace implements Face {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private final Client member;
    private final Client owner;

    private static final class Client {
        final McpAsyncClient client;
        final AtomicReference<Answer> answer = new AtomicReference<>(Answer.DENY);
        final AtomicBoolean asked = new AtomicBoolean();
        final List<String> stderr = new CopyOnWriteArrayList<>();

        Client(Fixture f, String permission) {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            StdioClientTransport transport = new StdioClientTransport(ServerParameters.builder(java)
                    .args("-jar", f.jar.toString(), "mcp", "--config", f.config.toString(), "--permission", permission,
                            "--user", "u-" + permission)
                    .build(), new JacksonMcpJsonMapper(new ObjectMapper()));
            transport.setStdErrorHandler(stderr::add);
            client = McpClient.async(transport).requestTimeout(WAIT).initializationTimeout(WAIT)
                    .capabilities(McpSchema.ClientCapabilities.builder().elicitation().build())
                    .elicitation(r -> {
                        asked.set(true);
                        Answer a = answer.get();
                        return Mono.just(new McpSchema.ElicitResult(a == Answer.APPROVE
                                ? McpSchema.ElicitResult.Action.ACCEPT : McpSchema.ElicitResult.Action.DECLINE,
                                a == Answer.APPROVE ? Map.of() : null));
                    }).build();
            client.initialize().block(WAIT);
        }
    }

    McpFace(Fixture f) {
        member = new Client(f, "member");
        Client o;
        try {
            o = new Client(f, "owner");
        } catch (RuntimeException e) {
            member.client.closeGracefully().block(WAIT);
            throw e;
        }
        owner = o;
    }

    @Override
    public String name() {
        return "toolbus mcp";
    }

    private Client client(Session s) {
        return s == Session.OWNER ? owner : member;
    }

    @Override
    public List<String> tools(Session session) {
        List<String> names = new ArrayList<>(client(session).client.listTools().block(WAIT).tools().stream()
                .map(McpSchema.Tool::name).toList());
        names.sort(null);
        return names;
    }

    @Override
    public Result call(Session session, String tool, String argumentsJson, Answer answer) throws Exception {
        Client c = client(session);
        c.answer.set(answer);
        c.asked.set(false);
        @SuppressWarnings("unchecked")
        Map<String, Object> args = GatewayClient.JSON.readValue(argumentsJson, Map.class);
        McpSchema.CallToolResult r = c.client.callTool(new McpSchema.CallToolRequest(tool, args)).block(WAIT);
        boolean error = Boolean.TRUE.equals(r.isError());
        String code = r.meta() == null ? null : (String) r.meta().get("dev.toolbus/error_code");
        String text = r.content().isEmpty() || !(r.content().get(0) instanceof McpSchema.TextContent t) ? "" : t.text();
        return new Result(c.asked.get(), error, error ? code : null, text);
    }

    @Override
    public GatewayClient gateway() {
        return null;
    }

    /** The stderr of both processes, for diagnosis. */
    String stderr() {
        return String.join("\n", member.stderr) + "\n" + String.join("\n", owner.stderr);
    }

    @Override
    public void close() {
        member.client.closeGracefully().block(WAIT);
        owner.client.closeGracefully().block(WAIT);
    }
}
