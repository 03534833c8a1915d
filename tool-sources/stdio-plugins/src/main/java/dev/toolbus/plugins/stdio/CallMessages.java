package dev.toolbus.plugins.stdio;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.ContentPart;
import dev.toolbus.tool.InputAnswer;
import dev.toolbus.tool.ToolContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.Disposables;

/**
 * The plugin → host messages of the calls of one process ({@code progress}, {@code send}, {@code ask}),
 * mapped onto the call's {@link ToolContext}, and the {@code reply} each {@code send} and {@code ask}
 * gets. Runs on the stdout reader thread and never blocks it: the context's methods publish at once
 * (progress is rate-limited and coalesced by the executor, sends are bounded by the turn's live-event
 * bound) and their completion is only awaited to write the reply.
 */
final class CallMessages {

    private static final Logger log = LoggerFactory.getLogger(CallMessages.class);
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    /** Longest {@code rid} echoed back. */
    static final int MAX_RID_CHARS = 200;
    /** Longest progress message passed on; longer ones are cut. */
    static final int MAX_PROGRESS_MESSAGE_CHARS = 1000;

    /** The messages a plugin may send while a call runs. */
    static boolean handles(String method) {
        return "progress".equals(method) || "send".equals(method) || "ask".equals(method);
    }

    private final String pluginId;
    private final Consumer<ObjectNode> writer;

    CallMessages(String pluginId, Consumer<ObjectNode> writer) {
        this.pluginId = pluginId;
        this.writer = writer;
    }

    /**
     * Handles one message.
     *
     * @param ctx the context of the call the message names, or {@code null} when that call has ended
     *     (or never was): {@code send} and {@code ask} are then answered {@code ok:false}, progress ignored
     * @param tasks where a running {@code ask} is kept, so that the end of the call disposes it
     */
    void handle(String method, JsonNode params, ToolContext ctx, Disposable.Composite tasks) {
        JsonNode rid = params.get("rid");
        boolean wantsReply = !"progress".equals(method);
        if (wantsReply && rid != null && !validRid(rid)) {
            log.debug("plugin {}: '{}' with an unusable rid (a string of at most {} chars or a number) is ignored",
                    pluginId, method, MAX_RID_CHARS);
            return;
        }
        if (ctx == null) {
            if (wantsReply) {
                fail(rid, "the call " + params.path("id").asText("?") + " has ended or is unknown");
            }
            return;
        }
        try {
            switch (method) {
                case "progress" -> progress(params, ctx);
                case "send" -> send(params, ctx, rid);
                default -> ask(params, ctx, rid, tasks);
            }
        } catch (IllegalArgumentException e) {
            if (wantsReply) {
                fail(rid, e.getMessage());
            } else {
                log.debug("plugin {}: bad progress ignored: {}", pluginId, e.getMessage());
            }
        }
    }

    private void progress(JsonNode params, ToolContext ctx) {
        JsonNode p = params.get("progress");
        if (p == null || !p.isNumber()) {
            throw new IllegalArgumentException("progress needs a number 'progress'");
        }
        JsonNode t = params.get("total");
        Double total = t != null && t.isNumber() ? t.doubleValue() : null;
        String message = params.path("message").isTextual() ? params.path("message").textValue() : null;
        if (message != null && message.length() > MAX_PROGRESS_MESSAGE_CHARS) {
            message = message.substring(0, MAX_PROGRESS_MESSAGE_CHARS);
        }
        ctx.progress(p.doubleValue(), total, message)
                .subscribe(null, e -> log.debug("plugin {}: progress not published: {}", pluginId, e.toString()));
    }

    private void send(JsonNode params, ToolContext ctx, JsonNode rid) {
        List<ContentPart> content = content(params.get("content"));
        ctx.send(content).subscribe(null,
                e -> fail(rid, "not sent: " + e.getMessage()),
                () -> ok(rid, null, null));
    }

    private void ask(JsonNode params, ToolContext ctx, JsonNode rid, Disposable.Composite tasks) {
        JsonNode m = params.get("message");
        if (m == null || !m.isTextual() || m.textValue().isBlank()) {
            throw new IllegalArgumentException("ask needs a string 'message'");
        }
        JsonNode schema = params.get("schema");
        if (schema != null && !schema.isNull() && !schema.isObject()) {
            throw new IllegalArgumentException("'schema' must be a JSON Schema object");
        }
        JsonNode t = params.get("timeoutMs");
        Duration timeout = null;
        if (t != null && !t.isNull()) {
            if (!t.canConvertToLong() || t.longValue() <= 0) {
                throw new IllegalArgumentException("'timeoutMs' must be a positive whole number");
            }
            timeout = Duration.ofMillis(t.longValue());
        }
        // a URL-mode question (mode "url" with a url) asks the user to visit the URL: its answer has no content
        String mode = params.path("mode").asText("form");
        JsonNode url = params.get("url");
        JsonNode key = params.get("key");
        dev.toolbus.tool.InputQuestion.Builder q = dev.toolbus.tool.InputQuestion.builder(m.textValue()).timeout(timeout)
                .key(key != null && key.isTextual() ? key.textValue() : null);
        if (mode.equals("url")) {
            if (url == null || !url.isTextual()) {
                throw new IllegalArgumentException("an ask in mode 'url' needs a string 'url'");
            }
            q.url(url.textValue());
        } else if (!mode.equals("form")) {
            throw new IllegalArgumentException("'mode' is form or url, not '" + mode + "'");
        } else {
            q.schema(schema == null || schema.isNull() ? null : schema);
        }
        dev.toolbus.tool.InputQuestion question = q.build();
        Disposable[] self = new Disposable[1];
        self[0] = ctx.ask(question)
                .doFinally(s -> {
                    if (self[0] != null) {
                        tasks.remove(self[0]);
                    }
                })
                .subscribe(answer -> ok(rid, answer.outcome(), answer.content()),
                        e -> fail(rid, "cannot ask: " + e.getMessage()));
        if (!self[0].isDisposed()) {
            tasks.add(self[0]);
        }
    }

    /** The {@code content} of a {@code send}: a string, or a list of text and image parts. */
    static List<ContentPart> content(JsonNode c) {
        if (c != null && c.isTextual()) {
            return List.of(ContentPart.text(c.textValue()));
        }
        if (c == null || !c.isArray() || c.isEmpty()) {
            throw new IllegalArgumentException("send needs 'content': a string or a non-empty list of parts");
        }
        List<ContentPart> parts = new ArrayList<>(c.size());
        for (JsonNode part : c) {
            String type = part.path("type").asText("");
            if (type.equals("text") && part.path("text").isTextual()) {
                parts.add(ContentPart.text(part.path("text").textValue()));
            } else if (type.equals("image")) {
                JsonNode mime = part.has("mime_type") ? part.get("mime_type") : part.get("mimeType");
                JsonNode data = part.get("data");
                if (mime == null || !mime.isTextual() || data == null || !data.isTextual()) {
                    throw new IllegalArgumentException("an image part needs string 'mime_type' and 'data' (base64)");
                }
                parts.add(ContentPart.imageBase64(data.textValue(), mime.textValue()));
            } else {
                throw new IllegalArgumentException("a content part must be {type:text,text} or {type:image,mime_type,data}");
            }
        }
        return parts;
    }

    private static boolean validRid(JsonNode rid) {
        return rid.isIntegralNumber() || rid.isTextual() && rid.textValue().length() <= MAX_RID_CHARS;
    }

    private void ok(JsonNode rid, InputAnswer.Outcome outcome, JsonNode content) {
        if (rid == null) {
            return;
        }
        ObjectNode p = F.objectNode();
        p.set("rid", rid);
        p.put("ok", true);
        if (outcome != null) {
            p.put("action", outcome.name().toLowerCase(Locale.ROOT));
            if (content != null && !content.isNull()) {
                p.set("content", content);
            }
        }
        writer.accept(reply(p));
    }

    private void fail(JsonNode rid, String error) {
        if (rid == null) {
            return;
        }
        ObjectNode p = F.objectNode();
        p.set("rid", rid);
        p.put("ok", false);
        p.put("error", String.valueOf(error));
        writer.accept(reply(p));
    }

    private static ObjectNode reply(ObjectNode params) {
        ObjectNode n = F.objectNode().put("method", "reply");
        n.set("params", params);
        return n;
    }

    /** A fresh holder for a call's running asks. */
    static Disposable.Composite tasks() {
        return Disposables.composite();
    }
}
