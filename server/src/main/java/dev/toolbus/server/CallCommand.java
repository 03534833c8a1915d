package dev.toolbus.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.config.ConfigException;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code toolbus call}: sends one turn to a running server through its gateway
 * ({@code POST /v1/turns}) and prints the turn's events, one JSON object per line.
 */
@Command(name = "call", mixinStandardHelpOptions = true,
        description = "Send one tool call (or a whole inbound event) to a running server and print its events as JSON lines.")
final class CallCommand implements Callable<Integer> {

    @Parameters(index = "0", arity = "0..1", paramLabel = "NAME", description = "The tool to call.")
    String name;

    @Parameters(index = "1", arity = "0..1", paramLabel = "ARGS_JSON",
            description = "Its arguments, a JSON object (default: {}).")
    String arguments;

    @Option(names = "--event", paramLabel = "FILE|-",
            description = "Send this inbound event instead (tool_calls, tool_call or list_tools); - reads stdin.")
    String eventFile;

    @Option(names = "--stream", paramLabel = "STREAM_ID", defaultValue = "cli:call",
            description = "stream_id of the call (default: ${DEFAULT-VALUE}).")
    String stream;

    @Option(names = "--turn", paramLabel = "TURN_ID", description = "turn_id of the call (default: the server makes one).")
    String turn;

    @Option(names = "--sse", description = "Ask for Server-Sent Events and print each event as it arrives.")
    boolean sse;

    @Mixin
    ClientOptions client;

    @Mixin
    ContextOptions context;

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        String body;
        try {
            body = eventFile != null ? readEvent() : toolCall();
        } catch (IOException e) {
            System.err.println("toolbus: cannot read the event: " + e.getMessage());
            return 1;
        }
        HttpRequest request;
        try {
            request = client.request("/v1/turns")
                    .header("Content-Type", "application/json")
                    .header("Accept", sse ? "text/event-stream" : "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                    .build();
        } catch (ConfigException e) {
            System.err.println("toolbus: " + e.getMessage());
            return 1;
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "bad --url: " + e.getMessage());
        }
        return client.exchange(request, sse, System.out, System.err);
    }

    private String readEvent() throws IOException {
        if (name != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "give NAME [ARGS_JSON] or --event, not both");
        }
        return eventFile.equals("-") ? new String(System.in.readAllBytes(), StandardCharsets.UTF_8)
                : Files.readString(Path.of(eventFile), StandardCharsets.UTF_8);
    }

    private String toolCall() {
        if (name == null || name.isBlank()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "missing NAME: give NAME [ARGS_JSON] or --event FILE");
        }
        JsonNode args;
        try {
            args = ClientOptions.JSON.readTree(arguments == null ? "{}" : arguments);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "ARGS_JSON is not JSON: " + e.getOriginalMessage());
        }
        if (args == null || !args.isObject()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "ARGS_JSON must be a JSON object, e.g. '{\"text\":\"hi\"}'");
        }
        ObjectNode event = ClientOptions.JSON.createObjectNode();
        event.put("type", "tool_call");
        event.put("stream_id", stream);
        if (turn != null) {
            event.put("turn_id", turn);
        }
        event.put("name", name);
        event.set("arguments", args);
        Map<String, String> ctx = context.fields();
        if (!ctx.isEmpty()) {
            ObjectNode c = event.putObject("context");
            ctx.forEach(c::put);
        }
        return event.toString();
    }
}
