package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Skill documents through a real {@code toolbus serve}: list_skills, a load_skill call, list_skills
 * again showing the loaded skill for re-injection, and a skill file added while it runs. As a stdio
 * sidecar (JSON lines) and through the gateway ({@code POST /v1/skills}). And {@code documents.mode}
 * {@code explicit}, {@code auto} and {@code all} switched by config reloads on one running sidecar, with
 * {@code maxPromptChars} cutting a long skill, and binary, huge and malformed files skipped with a warning.
 */
class SkillsServeIT {

    static final Duration PROMPTLY = Duration.ofSeconds(30);
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    private ToolbusProcess sidecar;

    @AfterEach
    void stop() {
        if (sidecar != null) {
            sidecar.close();
        }
    }

    private Path skills() throws IOException {
        Path root = Files.createDirectories(dir.resolve("skills"));
        Files.createDirectories(root.resolve("pdf"));
        Files.writeString(root.resolve("pdf/SKILL.md"), "---\nname: pdf-tools\ndescription: Fill and merge PDF forms\n"
                + "---\nUse pdftk to merge.\n");
        Files.createDirectories(root.resolve("ops"));
        Files.writeString(root.resolve("ops/deploy.skill.yaml"), "name: deploy\ndescription: Deploy the bot\n"
                + "content: |\n  1. build\n  2. ship\n");
        Files.createDirectories(root.resolve("notes"));
        Files.writeString(root.resolve("notes/SKILL.md"), "---\nname: release-notes\ndescription: Write release notes\n"
                + "autoActivate: true\n---\nOne line per change.\n");
        return root;
    }

    private static List<String> names(JsonNode array, String field) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(field == null ? n.asText() : n.path(field).asText()));
        return out;
    }

    private JsonNode awaitEvent(String type, String requestOrCall) {
        JsonNode[] found = new JsonNode[1];
        await().atMost(PROMPTLY).until(() -> {
            for (JsonNode e : sidecar.events()) {
                if (e.path("type").asText().equals(type) && (requestOrCall.equals(e.path("request_id").asText())
                        || requestOrCall.equals(e.path("tool_call_id").asText()))) {
                    found[0] = e;
                    return true;
                }
            }
            return false;
        });
        return found[0];
    }

    private static String listSkills(String stream, String request, String text) {
        return "{\"type\":\"list_skills\",\"stream_id\":\"" + stream + "\",\"request_id\":\"" + request + "\""
                + (text == null ? "" : ",\"text\":\"" + text + "\"") + "}";
    }

    @Test
    void sidecar_listSkills_loadSkill_listSkillsAgain_andAFileAddedWhileRunning() throws Exception {
        Path root = skills();
        Path config = dir.resolve("toolbus.yaml");
        Files.writeString(config, "documents:\n  mode: auto\n  paths: ['" + root + "']\n  triggers:\n"
                + "    pdf-tools: [表单]\n");
        sidecar = ToolbusProcess.start("skills-sidecar", "serve", "--bus=stdio", "--config", config.toString(),
                "--log-level", "info");

        sidecar.send(listSkills("qq:group:1", "r1", "帮我填一下这个表单"));
        JsonNode first = awaitEvent("skills", "r1");
        assertThat(first.path("mode").asText()).isEqualTo("auto");
        assertThat(names(first.path("skills"), "name")).containsExactly("release-notes", "deploy", "pdf-tools");
        assertThat(names(first.path("documents"), "name")).containsExactly("release-notes", "pdf-tools");
        assertThat(names(first.path("documents"), "reason")).containsExactly("auto_activate", "matched");
        assertThat(first.path("loaded")).isEmpty();

        sidecar.send("{\"type\":\"tool_call\",\"stream_id\":\"qq:group:1\",\"turn_id\":\"t1\",\"tool_call_id\":\"c1\","
                + "\"name\":\"load_skill\",\"arguments\":{\"name\":\"deploy\"}}");
        JsonNode loaded = awaitEvent("tool_result", "c1");
        assertThat(loaded.path("is_error").asBoolean()).as(loaded.toString()).isFalse();
        assertThat(loaded.path("content").asText()).isEqualTo("# deploy\n\n1. build\n2. ship");

        sidecar.send(listSkills("qq:group:1", "r2", null));
        JsonNode again = awaitEvent("skills", "r2");
        assertThat(names(again.path("loaded"), null)).containsExactly("deploy");
        assertThat(names(again.path("documents"), "name")).containsExactly("deploy", "release-notes");
        assertThat(again.path("documents").get(0).path("reason").asText()).isEqualTo("loaded");
        assertThat(again.path("documents").get(0).path("text").asText()).isEqualTo("# deploy\n\n1. build\n2. ship");
        // another stream loaded nothing
        sidecar.send(listSkills("qq:group:2", "r3", null));
        assertThat(awaitEvent("skills", "r3").path("loaded")).isEmpty();

        // hot reload: a new skill file shows up in the catalogue while serving
        Files.createDirectories(root.resolve("new"));
        Files.writeString(root.resolve("new/SKILL.md"), "---\nname: newcomer\ndescription: Arrived later\n---\nHi\n");
        int[] n = {0};
        await().atMost(PROMPTLY).pollInterval(Duration.ofMillis(500)).until(() -> {
            String id = "poll-" + n[0]++;
            sidecar.send(listSkills("qq:group:1", id, null));
            return names(awaitEvent("skills", id).path("skills"), "name").contains("newcomer");
        });

        assertThat(sidecar.closeInput().awaitExit(Duration.ofSeconds(60))).as(sidecar.stderr()).isZero();
        assertThat(sidecar.stderr()).contains("skills reloaded");
    }

    /** Sends list_skills until its answer is in {@code mode} (a config reload has landed); that answer. */
    private JsonNode awaitMode(String mode, String stream, String textAndSelected) {
        int[] n = {0};
        JsonNode[] last = new JsonNode[1];
        await().atMost(PROMPTLY).pollInterval(Duration.ofMillis(300)).until(() -> {
            String id = mode + "-" + n[0]++;
            sidecar.send("{\"type\":\"list_skills\",\"stream_id\":\"" + stream + "\",\"request_id\":\"" + id + "\""
                    + textAndSelected + "}");
            last[0] = awaitEvent("skills", id);
            return last[0].path("mode").asText().equals(mode);
        });
        return last[0];
    }

    @Test
    void sidecar_explicitAutoAndAll_withTruncationAndReinjection_andBadFilesSkipped() throws Exception {
        Path root = skills();
        Files.createDirectories(root.resolve("big"));
        StringBuilder big = new StringBuilder("---\nname: big-manual\ndescription: A long manual\ntriggers: [manual]\n---\n");
        for (int i = 0; big.length() < 3000; i++) {
            big.append("Step ").append(i).append(": check the gauge and write it down.\n");
        }
        Files.writeString(root.resolve("big/SKILL.md"), big.toString());
        Files.createDirectories(root.resolve("bin"));
        Files.write(root.resolve("bin/SKILL.md"), new byte[] {'-', '-', '-', '\n', 0, 1, 2, (byte) 0xff, '\n'});
        Files.createDirectories(root.resolve("huge"));
        Files.writeString(root.resolve("huge/SKILL.md"), "---\nname: huge\n---\n" + "x".repeat(10_000));
        Files.createDirectories(root.resolve("broken"));
        Files.writeString(root.resolve("broken/SKILL.md"), "---\nname: [unclosed\n---\nbody\n");
        Path config = dir.resolve("toolbus.yaml");
        String head = "documents:\n  paths: ['" + root + "']\n  maxFileBytes: 4096\n  maxPromptChars: 1000\n";
        Files.writeString(config, head + "  mode: explicit\n");
        sidecar = ToolbusProcess.start("skills-modes", "serve", "--bus=stdio", "--config", config.toString(),
                "--log-level", "info");

        // explicit: the selected and the auto-activated ones; the text matches nothing
        JsonNode explicit = awaitMode("explicit", "m:1", ",\"text\":\"read the manual and merge the pdf\","
                + "\"selected\":[\"deploy\",\"nope\"]");
        assertThat(names(explicit.path("skills"), "name")).containsExactlyInAnyOrder("release-notes", "deploy",
                "pdf-tools", "big-manual");
        assertThat(names(explicit.path("documents"), "name")).containsExactly("deploy", "release-notes");
        assertThat(names(explicit.path("documents"), "reason")).containsExactly("selected", "auto_activate");
        assertThat(names(explicit.path("missing"), null)).containsExactly("nope");
        assertThat(explicit.path("truncated").asBoolean()).isFalse();

        // auto (a config reload): plus the skills the text names, the long one cut at maxPromptChars
        Files.writeString(config, head + "  mode: auto\n");
        JsonNode auto = awaitMode("auto", "m:1", ",\"text\":\"read the manual please\"");
        assertThat(names(auto.path("documents"), "name")).containsExactly("release-notes", "big-manual");
        assertThat(names(auto.path("documents"), "reason")).containsExactly("auto_activate", "matched");
        JsonNode cut = auto.path("documents").get(1);
        assertThat(cut.path("truncated").asBoolean()).isTrue();
        assertThat(cut.path("chars").asInt()).isGreaterThan(2900);
        assertThat(cut.path("text").asText().length()).isLessThan(1000);
        assertThat(cut.path("text").asText()).startsWith("# big-manual\n\n").contains("[cut: the skill has ");
        assertThat(auto.path("truncated").asBoolean()).isTrue();
        int injected = 0;
        for (JsonNode d : auto.path("documents")) {
            injected += d.path("text").asText().length();
        }
        assertThat(injected).isLessThanOrEqualTo(1000);

        // load_skill, then a list_skills without text: the loaded one comes back for re-injection, first
        sidecar.send("{\"type\":\"tool_call\",\"stream_id\":\"m:1\",\"turn_id\":\"t1\",\"tool_call_id\":\"c1\","
                + "\"name\":\"load_skill\",\"arguments\":{\"name\":\"deploy\"}}");
        assertThat(awaitEvent("tool_result", "c1").path("is_error").asBoolean()).isFalse();
        sidecar.send(listSkills("m:1", "after-load", null));
        JsonNode reinject = awaitEvent("skills", "after-load");
        assertThat(names(reinject.path("loaded"), null)).containsExactly("deploy");
        assertThat(names(reinject.path("documents"), "reason")).containsExactly("loaded", "auto_activate");

        // all (another reload): every skill when nothing is selected, bounded: what does not fit is omitted
        Files.writeString(config, head + "  mode: all\n");
        JsonNode all = awaitMode("all", "m:2", "");
        List<String> shown = names(all.path("documents"), "name");
        List<String> omitted = names(all.path("omitted"), null);
        assertThat(shown.get(0)).isEqualTo("release-notes");
        assertThat(names(all.path("documents"), "reason")).containsOnly("auto_activate", "all");
        assertThat(new java.util.TreeSet<>(concat(shown, omitted)))
                .containsExactly("big-manual", "deploy", "pdf-tools", "release-notes");
        assertThat(all.path("truncated").asBoolean()).isTrue();

        assertThat(sidecar.closeInput().awaitExit(Duration.ofSeconds(60))).as(sidecar.stderr()).isZero();
        String stderr = sidecar.stderr();
        assertThat(stderr).contains("bin/SKILL.md is skipped: cannot be read: it is a binary file")
                .contains("huge/SKILL.md is skipped: larger than 4096 bytes")
                .contains("broken/SKILL.md is skipped: cannot be read: while parsing");
        assertThat(stderr).contains("found 4 skills");
        assertThat(sidecar.events()).noneMatch(e -> e.path("type").asText().equals("error"));
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    private static HttpResponse<String> post(RunningServer s, String path, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(s.url() + path)).header("Authorization", "Bearer " + TOKEN)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static final String TOKEN = "skills-token";

    /** A JDK WebSocket on /v1/ws whose text frames land in the queue. */
    static java.net.http.WebSocket connect(RunningServer s, java.util.concurrent.BlockingQueue<String> frames)
            throws Exception {
        return HTTP.newWebSocketBuilder().header("Authorization", "Bearer " + TOKEN)
                .buildAsync(URI.create("ws://127.0.0.1:" + s.port + "/v1/ws"), new java.net.http.WebSocket.Listener() {
                    private final StringBuilder text = new StringBuilder();

                    @Override
                    public java.util.concurrent.CompletionStage<?> onText(java.net.http.WebSocket w, CharSequence data,
                                                                          boolean last) {
                        text.append(data);
                        if (last) {
                            frames.add(text.toString());
                            text.setLength(0);
                        }
                        w.request(1);
                        return null;
                    }
                }).get(10, java.util.concurrent.TimeUnit.SECONDS);
    }

    @Test
    void gateway_postV1Skills_answersAndRemembersLoadSkill_perStream() throws Exception {
        Path root = skills();
        try (RunningServer s = RunningServer.start("skills-gateway", TOKEN, "--gateway", "127.0.0.1:0", "--skills",
                root.toString())) {
            HttpResponse<String> r = post(s, "/v1/skills", listSkills("web:1", "g1", "merge the PDF please"));
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            JsonNode first = RunningServer.JSON.readTree(r.body());
            assertThat(first.path("type").asText()).isEqualTo("skills");
            assertThat(names(first.path("documents"), "name")).containsExactly("release-notes", "pdf-tools");

            HttpResponse<String> call = post(s, "/v1/turns", "{\"type\":\"tool_call\",\"stream_id\":\"web:1\","
                    + "\"turn_id\":\"t1\",\"tool_call_id\":\"c1\",\"name\":\"load_skill\",\"arguments\":{\"name\":\"deploy\"}}");
            assertThat(call.body()).contains("\"is_error\":false").contains("1. build");

            // list_skills also goes through /v1/turns, like list_tools
            HttpResponse<String> again = post(s, "/v1/turns", listSkills("web:1", "g2", null));
            JsonNode arr = RunningServer.JSON.readTree(again.body());
            assertThat(arr).hasSize(1);
            assertThat(names(arr.get(0).path("loaded"), null)).containsExactly("deploy");
            assertThat(arr.get(0).path("documents").get(0).path("reason").asText()).isEqualTo("loaded");

            // and as a WebSocket frame
            java.util.concurrent.BlockingQueue<String> frames = new java.util.concurrent.LinkedBlockingQueue<>();
            java.net.http.WebSocket ws = connect(s, frames);
            ws.sendText(listSkills("web:1", "w1", null), true).get(10, java.util.concurrent.TimeUnit.SECONDS);
            JsonNode frame = RunningServer.JSON.readTree(frames.poll(30, java.util.concurrent.TimeUnit.SECONDS));
            assertThat(frame.path("type").asText()).isEqualTo("skills");
            assertThat(frame.path("request_id").asText()).isEqualTo("w1");
            assertThat(names(frame.path("loaded"), null)).containsExactly("deploy");
            ws.sendClose(java.net.http.WebSocket.NORMAL_CLOSURE, "done");

            HttpResponse<String> wrong = post(s, "/v1/skills", "{\"type\":\"list_tools\",\"stream_id\":\"web:1\"}");
            assertThat(wrong.statusCode()).isEqualTo(400);
            assertThat(wrong.body()).contains("BAD_EVENT").contains("/v1/skills takes a list_skills event");
            HttpResponse<String> bad = post(s, "/v1/skills", "{\"type\":\"list_skills\",\"stream_id\":\"web:1\","
                    + "\"selected\":\"deploy\"}");
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(bad.body()).contains("selected must be an array");
            HttpResponse<String> get = HTTP.send(HttpRequest.newBuilder(URI.create(s.url() + "/v1/skills"))
                    .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(get.statusCode()).isEqualTo(405);
        }
    }
}
