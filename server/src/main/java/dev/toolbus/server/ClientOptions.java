package dev.toolbus.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.config.Config;
import dev.toolbus.config.GatewayConfig;
import dev.toolbus.config.ConfigLoader;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.stream.Stream;
import picocli.CommandLine.Option;

/**
 * Where a running server's gateway is and how to authenticate to it, for {@code call} and
 * {@code tools}: {@code --url}, else the config file's {@code gateway.host:port}, else
 * {@code TOOLBUS_URL}, else {@code http://127.0.0.1:8765}; {@code --token}, else
 * {@code gateway.token}, else {@code TOOLBUS_TOKEN}, else the first of {@code gateway.tokens}, else none. Requests use the JDK HttpClient and
 * block the calling thread.
 */
final class ClientOptions {

    static final String DEFAULT_URL = "http://127.0.0.1:" + GatewayConfig.DEFAULT_PORT;
    static final ObjectMapper JSON = new ObjectMapper();

    @Option(names = "--url", paramLabel = "URL",
            description = "The server's gateway (default: the config's gateway, else $TOOLBUS_URL, else " + DEFAULT_URL + ").")
    String url;

    @Option(names = "--token", paramLabel = "TOKEN",
            description = "Bearer token (default: the config's gateway.token, else $TOOLBUS_TOKEN, else the first "
                    + "of the config's gateway.tokens).")
    String token;

    @Option(names = "--config", paramLabel = "FILE",
            description = "A toolbus.yaml to read the gateway address and token from.")
    java.nio.file.Path config;

    private Config loaded;

    /** The config file, loaded once; {@code null} without {@code --config}. Throws ConfigException. */
    Config config() {
        if (config != null && loaded == null) {
            loaded = ConfigLoader.load(config).config();
        }
        return loaded;
    }

    String baseUrl() {
        String base;
        if (url != null && !url.isBlank()) {
            base = url.strip();
        } else if (config() != null) {
            GatewayConfig g = config().gateway();
            String host = g.host().equals("0.0.0.0") || g.host().equals("::") ? "127.0.0.1" : g.host();
            base = "http://" + (host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host) + ":" + g.port();
        } else if (System.getenv("TOOLBUS_URL") != null && !System.getenv("TOOLBUS_URL").isBlank()) {
            base = System.getenv("TOOLBUS_URL").strip();
        } else {
            base = DEFAULT_URL;
        }
        return base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
    }

    String token() {
        if (token != null && !token.isBlank()) {
            return token.strip();
        }
        if (config() != null && !config().gateway().token().isBlank()) {
            return config().gateway().token();
        }
        String env = System.getenv("TOOLBUS_TOKEN");
        if (env != null && !env.isBlank()) {
            return env.strip();
        }
        if (config() != null && !config().gateway().tokens().isEmpty()) {
            return config().gateway().tokens().get(0).token();
        }
        return null;
    }

    HttpRequest.Builder request(String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl() + path));
        String t = token();
        if (t != null) {
            b.header("Authorization", "Bearer " + t);
        }
        return b;
    }

    static HttpClient client() {
        return HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    }

    /**
     * Sends the request and prints what comes back: the events of a JSON array (or one JSON object)
     * one per line, or the {@code data} of each SSE event as it arrives. Returns the exit code: 0 on
     * a 2xx answer, 1 otherwise (the error event is still printed; a line on stderr says why).
     */
    int exchange(HttpRequest request, boolean sse, PrintStream out, PrintStream err) {
        try {
            if (sse) {
                HttpResponse<Stream<String>> res = client().send(request,
                        HttpResponse.BodyHandlers.ofLines());
                StringBuilder data = new StringBuilder();
                try (Stream<String> lines = res.body()) {
                    lines.forEach(line -> {
                        if (line.startsWith("data:")) {
                            data.append(data.length() == 0 ? "" : "\n")
                                    .append(line.substring(line.startsWith("data: ") ? 6 : 5));
                        } else if (line.isEmpty() && data.length() > 0) {
                            out.println(data);
                            out.flush();
                            data.setLength(0);
                        } else if (res.statusCode() / 100 != 2 && !line.isBlank()) {
                            printEvents(line, out);
                        }
                    });
                }
                if (data.length() > 0) {
                    out.println(data);
                }
                return status(res.statusCode(), request, err);
            }
            HttpResponse<String> res = client().send(request,
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            printEvents(res.body(), out);
            return status(res.statusCode(), request, err);
        } catch (ConnectException e) {
            err.println("toolbus: cannot reach " + baseUrl() + ": connection refused (is `toolbus serve` running?)");
            return 1;
        } catch (IOException e) {
            err.println("toolbus: " + request.method() + " " + request.uri() + " failed: " + e);
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    private static int status(int code, HttpRequest request, PrintStream err) {
        if (code / 100 == 2) {
            return 0;
        }
        err.println("toolbus: " + request.method() + " " + request.uri().getPath() + " answered HTTP " + code);
        return 1;
    }

    private static void printEvents(String body, PrintStream out) {
        if (body == null || body.isBlank()) {
            return;
        }
        JsonNode node;
        try {
            node = JSON.readTree(body);
        } catch (IOException e) {
            out.println(body.strip());
            return;
        }
        if (node.isArray()) {
            node.forEach(e -> out.println(e.toString()));
        } else {
            out.println(node.toString());
        }
        out.flush();
    }
}
