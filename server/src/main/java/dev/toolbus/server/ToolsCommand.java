package dev.toolbus.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.assembly.BusAddress;
import dev.toolbus.assembly.Toolbus;
import dev.toolbus.assembly.ToolbusAssembly;
import dev.toolbus.config.Config;
import dev.toolbus.config.ConfigException;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.ListToolsEvent;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code toolbus tools}: the tools a session context may see. By default it asks a running server
 * ({@code GET /v1/tools}); with {@code --local} it assembles the tools and the policy in this process
 * from {@code --config} and the tool flags with {@link ToolbusAssembly}, as {@code serve} would.
 */
@Command(name = "tools", mixinStandardHelpOptions = true,
        description = "Print the tools a session context may see: from a running server, or --local from a config file.")
final class ToolsCommand implements Callable<Integer> {

    @Option(names = "--local", description = "Resolve in this process from --config and the tool flags; no server needed.")
    boolean local;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "openai",
            description = "openai, anthropic or mcp (default: ${DEFAULT-VALUE}).")
    String format;

    @Option(names = "--stream", paramLabel = "STREAM_ID", defaultValue = "cli:tools",
            description = "stream_id of the session; its prefix is the channel when --channel is absent (default: ${DEFAULT-VALUE}).")
    String stream;

    @Option(names = "--names", description = "Print one tool name per line instead of the tools event.")
    boolean names;

    @Mixin
    ToolSourceOptions sources;

    @Mixin
    ClientOptions client;

    @Mixin
    ContextOptions context;

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        ListToolsEvent.Format f;
        try {
            f = ListToolsEvent.Format.parse(format);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "unknown --format '" + format
                    + "' (openai, anthropic or mcp)");
        }
        if (!local && sources.any()) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--sample-tools, --plugins, --skills and --mcp-servers need --local (a running server has its own tools)");
        }
        try {
            return local ? local(f) : remote(f);
        } catch (ConfigException e) {
            System.err.println("toolbus: " + e.getMessage());
            return 1;
        }
    }

    private int remote(ListToolsEvent.Format f) {
        StringJoiner q = new StringJoiner("&", "?", "");
        q.add("format=" + f.name().toLowerCase(Locale.ROOT));
        q.add("stream_id=" + enc(stream));
        for (Map.Entry<String, String> e : context.fields().entrySet()) {
            q.add(e.getKey() + "=" + enc(e.getValue()));
        }
        HttpRequest request = client.request("/v1/tools" + q).GET().build();
        if (!names) {
            return client.exchange(request, false, System.out, System.err);
        }
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int code = client.exchange(request, false, new PrintStream(buf, true, StandardCharsets.UTF_8), System.err);
        String body = buf.toString(StandardCharsets.UTF_8);
        if (code != 0) {
            System.out.print(body);
            return code;
        }
        return printNames(body);
    }

    private int local(ListToolsEvent.Format f) {
        Config config = client.config();
        ToolbusAssembly.Builder b = config != null ? ToolbusAssembly.from(config) : ToolbusAssembly.withoutConfig();
        sources.applyTo(b);
        Toolbus toolbus;
        try {
            // what serve would run, without a bus or a gateway
            toolbus = b.bus(BusAddress.none()).noGateway().build();
        } catch (RuntimeException e) {
            System.err.println("toolbus: cannot load the tools: " + e.getMessage());
            return 1;
        }
        try {
            CallContext ctx = CallContext.builder().userId(context.user).groupId(context.groupId)
                .platform(context.platform).permission(context.permission).channel(context.channel)
                .provider(context.provider).model(context.model).agentId(context.agent).build();
            String event = EventCodec.defaults().encode(toolbus.executor().listTools(new ListToolsEvent(stream, "", ctx, f)));
            if (names) {
                return printNames(event);
            }
            System.out.println(event);
            return 0;
        } finally {
            toolbus.closeGracefully();
        }
    }

    private static int printNames(String toolsEvent) {
        JsonNode node;
        try {
            node = ClientOptions.JSON.readTree(toolsEvent.strip());
        } catch (IOException e) {
            System.err.println("toolbus: the answer is not JSON: " + e.getMessage());
            return 1;
        }
        for (JsonNode t : node.path("tools")) {
            String n = t.path("function").path("name").asText(t.path("name").asText());
            System.out.println(n);
        }
        return 0;
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
