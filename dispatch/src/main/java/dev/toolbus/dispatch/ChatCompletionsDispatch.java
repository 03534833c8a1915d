package dev.toolbus.dispatch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.policy.PolicyConfig;
import dev.toolbus.protocol.Json;
import dev.toolbus.spi.ToolDispatch;
import io.netty.buffer.ByteBuf;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClient;

/**
 * ChatAI's {@code dispatch}: a small model at an OpenAI-compatible chat-completions endpoint picks, for
 * the conversation text, at most {@code maxGroups} of the tool groups the session may use, from the
 * groups' names and descriptions ({@code useSummary}) or their tools' descriptions. Non-blocking
 * (reactor-netty), bounded (answers above {@code maxAnswerBytes} are refused, the text sent is cut at
 * {@code maxTextChars}), and the API key goes only into the {@code Authorization} header, never into a
 * log or a message. Failures are {@link DispatchException}s; the executor then offers every allowed
 * tool.
 *
 * <p>The model may answer with JSON in its message ({@code {"groups":["search","image"]}}, a bare array,
 * or JSON inside other text) or with a tool call whose arguments hold that object.
 */
public final class ChatCompletionsDispatch implements ToolDispatch {

    private final String url;
    private final String model;
    private final String apiKey;
    private final Duration timeout;
    private final int maxGroups;
    private final boolean useSummary;
    private final List<PolicyConfig.Group> groups;
    private final Set<String> groupedTools;
    private final int maxAnswerBytes;
    private final int maxTextChars;
    private final HttpClient http;

    private ChatCompletionsDispatch(Builder b) {
        String base = Objects.requireNonNull(b.baseUrl, "baseUrl").strip();
        if (!base.startsWith("http://") && !base.startsWith("https://")) {
            throw new IllegalArgumentException("dispatch baseUrl must be an http(s) URL, got '" + base + "'");
        }
        this.url = (base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + "/chat/completions";
        this.model = Objects.requireNonNull(b.model, "model");
        this.apiKey = b.apiKey == null || b.apiKey.isBlank() ? null : b.apiKey;
        this.timeout = b.timeout;
        this.maxGroups = b.maxGroups;
        this.useSummary = b.useSummary;
        this.groups = List.copyOf(b.groups);
        Set<String> grouped = new HashSet<>();
        for (PolicyConfig.Group g : groups) {
            grouped.addAll(g.tools());
        }
        this.groupedTools = Set.copyOf(grouped);
        this.maxAnswerBytes = b.maxAnswerBytes;
        this.maxTextChars = b.maxTextChars;
        this.http = b.http != null ? b.http : HttpClient.create();
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public Mono<Choice> choose(Query query) {
        Map<String, PolicyConfig.Group> offered = new LinkedHashMap<>();
        for (PolicyConfig.Group g : groups) {
            if (g.enabled() && g.tools().stream().anyMatch(query.allowedTools()::containsKey)) {
                offered.put(g.name(), g);
            }
        }
        if (offered.isEmpty()) {
            return Mono.empty();
        }
        byte[] body = request(query, offered).getBytes(StandardCharsets.UTF_8);
        HttpClient client = http.headers(h -> {
            h.set("Content-Type", "application/json");
            // a length, not chunked: small OpenAI-compatible servers often cannot read a chunked request
            h.setInt("Content-Length", body.length);
            if (apiKey != null) {
                h.set("Authorization", "Bearer " + apiKey);
            }
        });
        return client.post().uri(url).send(ByteBufFlux.fromInbound(Mono.just(body)))
                .response((res, content) -> {
                    int status = res.status().code();
                    Mono<byte[]> bytes = bounded(content);
                    if (status < 200 || status >= 300) {
                        return bytes.onErrorReturn(new byte[0]).flatMap(b -> Mono.error(new DispatchException(
                                Failure.ERROR, "the dispatch model answered HTTP " + status + redact(snippet(b)))));
                    }
                    return bytes;
                })
                .next()
                .timeout(timeout)
                .onErrorMap(TimeoutException.class, e -> new DispatchException(Failure.TIMEOUT,
                        "no answer from the dispatch model within " + timeout.toMillis() + " ms"))
                .onErrorMap(e -> !(e instanceof DispatchException), e -> new DispatchException(Failure.ERROR,
                        redact("the dispatch model cannot be reached: " + e.getMessage())))
                .map(bytes -> choice(parse(bytes), offered));
    }

    /** The request body: a system message with the groups, the conversation text as the user message. */
    String request(Query query, Map<String, PolicyConfig.Group> offered) {
        StringBuilder sys = new StringBuilder(512)
                .append("You choose the tool groups an assistant needs to answer the user's message. ")
                .append("Answer only with JSON: {\"groups\": [names]}, at most ").append(maxGroups)
                .append(" names from the list below, most useful first; [] when no tool is needed.\nGroups:\n");
        for (PolicyConfig.Group g : offered.values()) {
            sys.append("- ").append(g.name());
            if (useSummary && !g.description().isBlank()) {
                sys.append(": ").append(g.description());
            } else {
                List<String> parts = new ArrayList<>();
                for (String t : g.tools()) {
                    String d = query.allowedTools().get(t);
                    if (d != null) {
                        parts.add(t + (d.isBlank() ? "" : " (" + oneLine(d, 160) + ")"));
                    }
                }
                sys.append(": ").append(String.join("; ", parts));
            }
            sys.append('\n');
        }
        String text = query.text().length() > maxTextChars ? query.text().substring(0, maxTextChars) : query.text();
        ObjectNode root = Json.mapper().createObjectNode();
        root.put("model", model);
        root.put("temperature", 0);
        ArrayNode messages = root.putArray("messages");
        messages.addObject().put("role", "system").put("content", sys.toString());
        messages.addObject().put("role", "user").put("content", text);
        return root.toString();
    }

    /** The group names an answer names, in its order. */
    static List<String> parse(byte[] bytes) {
        JsonNode root;
        try {
            root = Json.mapper().readTree(bytes);
        } catch (java.io.IOException e) {
            throw new DispatchException(Failure.UNPARSABLE, "the dispatch answer is not JSON");
        }
        JsonNode message = root.path("choices").path(0).path("message");
        if (message.isMissingNode()) {
            throw new DispatchException(Failure.UNPARSABLE, "the dispatch answer has no choices[0].message");
        }
        JsonNode call = message.path("tool_calls").path(0).path("function").path("arguments");
        if (call.isTextual()) {
            List<String> names = names(call.textValue());
            if (names != null) {
                return names;
            }
        }
        JsonNode content = message.path("content");
        if (content.isTextual()) {
            List<String> names = names(content.textValue());
            if (names != null) {
                return names;
            }
        }
        throw new DispatchException(Failure.UNPARSABLE, "the dispatch answer names no groups");
    }

    /** Group names from a text holding {@code {"groups":[…]}} or {@code […]}, possibly among other text. */
    private static List<String> names(String text) {
        for (int start = 0; start < text.length(); start++) {
            char c = text.charAt(start);
            if (c != '{' && c != '[') {
                continue;
            }
            JsonNode n;
            try (var parser = Json.mapper().getFactory().createParser(text.substring(start))) {
                n = Json.mapper().readTree(parser); // the first JSON value; text after it is ignored
            } catch (java.io.IOException e) {
                continue;
            }
            JsonNode list = n != null && n.isObject() ? n.get("groups") : n;
            if (list != null && list.isArray()) {
                List<String> out = new ArrayList<>();
                for (JsonNode x : list) {
                    if (x.isTextual()) {
                        out.add(x.textValue().strip());
                    }
                }
                return out;
            }
        }
        return null;
    }

    private Choice choice(List<String> names, Map<String, PolicyConfig.Group> offered) {
        Set<String> chosen = new LinkedHashSet<>();
        Set<String> tools = new HashSet<>();
        for (String n : names) {
            PolicyConfig.Group g = offered.get(n);
            if (g == null) {
                for (PolicyConfig.Group o : offered.values()) {
                    if (o.name().equalsIgnoreCase(n)) {
                        g = o;
                    }
                }
            }
            if (g != null && chosen.size() < maxGroups && chosen.add(g.name())) {
                tools.addAll(g.tools());
            }
        }
        return new Choice(new ArrayList<>(chosen), tools, groupedTools);
    }

    private Mono<byte[]> bounded(reactor.netty.ByteBufFlux content) {
        return content.reduceWith(ByteArrayOutputStream::new, (out, buf) -> append(out, buf)).map(ByteArrayOutputStream::toByteArray)
                .defaultIfEmpty(new byte[0]);
    }

    private ByteArrayOutputStream append(ByteArrayOutputStream out, ByteBuf buf) {
        if (out.size() + buf.readableBytes() > maxAnswerBytes) {
            throw new DispatchException(Failure.UNPARSABLE, "the dispatch answer is above " + maxAnswerBytes + " bytes");
        }
        byte[] b = new byte[buf.readableBytes()];
        buf.readBytes(b);
        out.write(b, 0, b.length);
        return out;
    }

    /** The API key never leaves in a message, even when the endpoint echoes it. */
    private String redact(String s) {
        return apiKey == null ? s : s.replace(apiKey, "***");
    }

    private static String snippet(byte[] b) {
        if (b.length == 0) {
            return "";
        }
        return ": " + oneLine(new String(b, 0, Math.min(b.length, 200), StandardCharsets.UTF_8), 200);
    }

    private static String oneLine(String s, int max) {
        String t = s.replaceAll("\\s+", " ").strip();
        return t.length() > max ? t.substring(0, max) + "…" : t;
    }

    @Override
    public String toString() {
        return "ChatCompletionsDispatch{url=" + url + ", model=" + model + ", apiKey=" + (apiKey == null ? "none" : "***")
                + ", maxGroups=" + maxGroups + ", useSummary=" + useSummary + ", groups=" + groups.size() + '}';
    }

    /** Builder; {@code baseUrl} and {@code model} are required. */
    public static final class Builder {
        private String baseUrl;
        private String model;
        private String apiKey;
        private Duration timeout = Duration.ofSeconds(10);
        private int maxGroups = 3;
        private boolean useSummary = true;
        private List<PolicyConfig.Group> groups = List.of();
        private int maxAnswerBytes = 1024 * 1024;
        private int maxTextChars = 4000;
        private HttpClient http;

        private Builder() {
        }

        /** The endpoint's base, e.g. {@code https://api.example.com/v1} ({@code /chat/completions} is appended). */
        public Builder baseUrl(String v) {
            this.baseUrl = v;
            return this;
        }

        public Builder model(String v) {
            this.model = v;
            return this;
        }

        /** Sent as {@code Authorization: Bearer}; never logged. */
        public Builder apiKey(String v) {
            this.apiKey = v;
            return this;
        }

        public Builder timeout(Duration v) {
            if (v.isZero() || v.isNegative()) {
                throw new IllegalArgumentException("timeout must be positive");
            }
            this.timeout = v;
            return this;
        }

        public Builder maxGroups(int v) {
            if (v < 1) {
                throw new IllegalArgumentException("maxGroups must be at least 1");
            }
            this.maxGroups = v;
            return this;
        }

        /** Offer groups by their descriptions (true, the default) or by their tools' descriptions. */
        public Builder useSummary(boolean v) {
            this.useSummary = v;
            return this;
        }

        public Builder groups(List<PolicyConfig.Group> v) {
            this.groups = List.copyOf(v);
            return this;
        }

        public Builder maxAnswerBytes(int v) {
            this.maxAnswerBytes = v;
            return this;
        }

        public Builder maxTextChars(int v) {
            this.maxTextChars = v;
            return this;
        }

        /** The reactor-netty client (default {@code HttpClient.create()}). */
        public Builder httpClient(HttpClient v) {
            this.http = Objects.requireNonNull(v, "httpClient");
            return this;
        }

        public ChatCompletionsDispatch build() {
            return new ChatCompletionsDispatch(this);
        }
    }
}
