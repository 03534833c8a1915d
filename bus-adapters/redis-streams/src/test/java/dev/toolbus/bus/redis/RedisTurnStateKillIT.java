package dev.toolbus.bus.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.bus.tck.TurnStateWorkerMain;
import dev.toolbus.bus.tck.Workers;
import dev.toolbus.protocol.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The call journal on a real Redis with real processes (issue 20 item 6): executor JVMs
 * ({@link TurnStateWorkerMain}) whose tools count their runs in a file, killed with SIGKILL or stopped
 * with SIGSTOP while a call runs; the instance that takes the turn over (after {@code claimMinIdle}, 2 s
 * here) consults the journal in Redis. A side-effecting call never runs twice: one that had started ends
 * {@code OUTCOME_UNKNOWN}, one that had finished is replayed; a retry-safe call runs again and succeeds.
 */
class RedisTurnStateKillIT {

    private static final Duration TAKEOVER = Duration.ofSeconds(60);

    private RedisFixture redis;
    private Workers workers;
    @TempDir
    Path dir;

    @BeforeEach
    void setUp() {
        redis = RedisFixture.require();
        workers = new Workers(l -> l.contains("WARN") || l.contains("ERROR") || l.startsWith("RAN"));
    }

    @AfterEach
    void tearDown() {
        workers.close();
        redis.close();
    }

    private Process start(String name) throws Exception {
        return workers.start(name, TurnStateWorkerMain.class, RedisWorkerBus.class, List.of(redis.url, redis.prefix, name));
    }

    private static String call(String id, String tool, Path file, long holdMs) {
        return "{\"tool_call_id\":\"" + id + "\",\"name\":\"" + tool + "\",\"arguments\":{\"file\":\""
                + file.toString().replace("\\", "\\\\") + "\",\"hold_ms\":" + holdMs + "}}";
    }

    private static String turn(String stream, String turnId, String... calls) {
        return "{\"type\":\"tool_calls\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"" + turnId + "\",\"calls\":["
                + String.join(",", calls) + "]}";
    }

    private static long runs(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8).size() : 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private List<JsonNode> events(String stream) {
        List<JsonNode> out = new ArrayList<>();
        for (String e : redis.events(stream)) {
            try {
                out.add(Json.mapper().readTree(e));
            } catch (IOException x) {
                throw new UncheckedIOException(x);
            }
        }
        return out;
    }

    private List<JsonNode> completedTurn(String stream) {
        await().atMost(TAKEOVER).pollInterval(Duration.ofMillis(200))
                .until(() -> events(stream).stream().anyMatch(e -> e.path("type").asText().equals("turn_completed")));
        return events(stream);
    }

    private static JsonNode result(List<JsonNode> events, String callId) {
        List<JsonNode> results = events.stream().filter(e -> e.path("type").asText().equals("tool_result")
                && e.path("tool_call_id").asText().equals(callId)).toList();
        assertThat(results).as("tool_results of " + callId + " in " + events).hasSize(1);
        return results.get(0);
    }

    /** The call journal's records (not its index). */
    private List<String> journalRecords() {
        return redis.redis.keys(redis.prefix + "state:j:*").stream().filter(k -> k.matches(".*:j:[0-9a-f]{64}")).toList();
    }

    private static void signal(Process p, String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).inheritIO().start();
        assertThat(kill.waitFor()).as("kill -" + signal).isZero();
    }

    @Test
    void killMinus9_whileASideEffectingCallRuns_theCallNeverRunsTwice_andEndsOutcomeUnknown() throws Exception {
        Path charges = dir.resolve("charges");
        Process w1 = start("w1");
        redis.send("s1", turn("s1", "t1", call("c1", "charge", charges, 120_000)));
        await().atMost(TAKEOVER).until(() -> runs(charges) == 1);
        w1.destroyForcibly(); // SIGKILL, the call half done
        w1.waitFor();
        start("w2");

        List<JsonNode> events = completedTurn("s1");
        JsonNode r = result(events, "c1");
        assertThat(r.path("is_error").asBoolean()).isTrue();
        assertThat(r.path("error").path("code").asText()).isEqualTo("OUTCOME_UNKNOWN");
        assertThat(runs(charges)).as("runs of the side-effecting tool").isEqualTo(1);
        await().atMost(TAKEOVER).until(() -> redis.groupHealthy());
        assertThat(runs(charges)).isEqualTo(1);
    }

    @Test
    void killMinus9_whileARetrySafeCallRuns_theCallRunsAgain_andSucceeds() throws Exception {
        Path lookups = dir.resolve("lookups");
        Process w1 = start("w1");
        redis.send("s1", turn("s1", "t1", call("c1", "lookup", lookups, 120_000)));
        await().atMost(TAKEOVER).until(() -> runs(lookups) == 1);
        w1.destroyForcibly();
        w1.waitFor();
        start("w2");

        List<JsonNode> events = completedTurn("s1");
        JsonNode r = result(events, "c1");
        assertThat(r.path("is_error").asBoolean()).isFalse();
        assertThat(r.path("content").asText()).as("the second run's answer").isEqualTo("done 2");
        assertThat(runs(lookups)).isEqualTo(2);
        assertThat(journalRecords()).as("a retry-safe call writes no journal record").isEmpty();
    }

    @Test
    void killMinus9_afterASideEffectingCallFinished_itsResultIsReplayed_andTheRetrySafeOneRunsAgain() throws Exception {
        Path charges = dir.resolve("charges");
        Path lookups = dir.resolve("lookups");
        Process w1 = start("w1");
        redis.send("s1", turn("s1", "t1", call("c1", "charge", charges, 0), call("c2", "lookup", lookups, 120_000)));
        await().atMost(TAKEOVER).until(() -> runs(charges) == 1 && runs(lookups) == 1);
        // c1 finished: its journal record holds its events
        await().atMost(TAKEOVER).until(() -> journalRecords().stream()
                .anyMatch(k -> String.valueOf(redis.redis.get(k)).startsWith("f")));
        w1.destroyForcibly();
        w1.waitFor();
        start("w2");

        List<JsonNode> events = completedTurn("s1");
        JsonNode charged = result(events, "c1");
        assertThat(charged.path("is_error").asBoolean()).isFalse();
        assertThat(charged.path("content").asText()).isEqualTo("done 1");
        assertThat(charged.path("replayed").asBoolean()).as("from the journal").isTrue();
        assertThat(result(events, "c2").path("content").asText()).isEqualTo("done 2");
        assertThat(runs(charges)).as("runs of the side-effecting tool").isEqualTo(1);
        assertThat(runs(lookups)).as("runs of the retry-safe tool").isEqualTo(2);
    }

    @Test
    void anInstanceStalledPastItsTakeOver_wakesAndNeitherRunsNorPublishesTheCallAgain() throws Exception {
        Path charges = dir.resolve("charges");
        Process w1 = start("w1");
        redis.send("s1", turn("s1", "t1", call("c1", "charge", charges, 6_000)));
        await().atMost(TAKEOVER).until(() -> runs(charges) == 1);
        signal(w1, "STOP"); // alive, but silent: its lease and running-turn claim lapse after 2 s
        try {
            start("w2");
            List<JsonNode> events = completedTurn("s1");
            assertThat(result(events, "c1").path("error").path("code").asText()).isEqualTo("OUTCOME_UNKNOWN");
        } finally {
            signal(w1, "CONT");
        }
        // w1 wakes: its call ends, its turn's write finds the turn recorded and adds nothing, its entry settles
        await().atMost(TAKEOVER).pollInterval(Duration.ofMillis(250)).until(() -> redis.groupHealthy());
        List<JsonNode> events = events("s1");
        assertThat(events.stream().filter(e -> e.path("type").asText().equals("turn_completed")).count())
                .as("turn_completed events of t1 in " + events).isEqualTo(1);
        result(events, "c1");
        assertThat(runs(charges)).as("runs of the side-effecting tool").isEqualTo(1);
    }

    private JsonNode awaitEvent(String stream, String type) {
        await().atMost(TAKEOVER).pollInterval(Duration.ofMillis(200))
                .until(() -> events(stream).stream().anyMatch(e -> e.path("type").asText().equals(type)));
        return events(stream).stream().filter(e -> e.path("type").asText().equals(type)).findFirst().orElseThrow();
    }

    private static List<JsonNode> ofType(List<JsonNode> events, String type) {
        return events.stream().filter(e -> e.path("type").asText().equals(type)).toList();
    }

    private static String approve(String stream, String id) {
        return "{\"type\":\"approval_response\",\"stream_id\":\"" + stream + "\",\"approval_id\":\"" + id
                + "\",\"decision\":\"approve\"}";
    }

    @Test
    void anApprovalAnsweredAfterItsOwnerDied_isAskedAgainUnderItsId_andTheCallRunsOnce() throws Exception {
        Path wipes = dir.resolve("wipes");
        Process w1 = start("w1");
        redis.send("s1", turn("s1", "t1", call("c1", "wipe", wipes, 0)));
        JsonNode asked = awaitEvent("s1", "approval_request");
        String id = asked.path("approval_id").asText();
        w1.destroyForcibly();
        w1.waitFor();
        start("w2");
        // the survivor takes the turn over and publishes the same request again, marked replayed, same expiry
        await().atMost(TAKEOVER).until(() -> ofType(events("s1"), "approval_request").size() == 2);
        JsonNode again = ofType(events("s1"), "approval_request").get(1);
        assertThat(again.path("replayed").asBoolean()).isTrue();
        assertThat(again.path("approval_id").asText()).isEqualTo(id);
        assertThat(again.path("expires_at_ms").asLong()).isEqualTo(asked.path("expires_at_ms").asLong());
        redis.send("s1", approve("s1", id));

        List<JsonNode> events = completedTurn("s1");
        assertThat(result(events, "c1").path("content").asText()).isEqualTo("done 1");
        assertThat(runs(wipes)).isEqualTo(1);
        assertThat(events).noneMatch(e -> e.toString().contains("UNKNOWN_REQUEST"));
    }

    @Test
    void anApprovalAnsweredBeforeTheTakeOver_isApplied_withoutAskingAgain() throws Exception {
        Path wipes = dir.resolve("wipes");
        Process w1 = start("w1");
        redis.send("s1", turn("s1", "t1", call("c1", "wipe", wipes, 0)));
        String id = awaitEvent("s1", "approval_request").path("approval_id").asText();
        w1.destroyForcibly();
        w1.waitFor();
        redis.send("s1", approve("s1", id)); // read by the next instance before it takes the turn over
        start("w2");

        List<JsonNode> events = completedTurn("s1");
        assertThat(ofType(events, "approval_request")).as("asked once").hasSize(1);
        assertThat(result(events, "c1").path("content").asText()).isEqualTo("done 1");
        assertThat(runs(wipes)).isEqualTo(1);
        assertThat(events).noneMatch(e -> e.toString().contains("UNKNOWN_REQUEST"));
    }

    @Test
    void aQuestionAnsweredBeforeTheTakeOver_isNotAskedAgain_whenItsRetrySafeToolAsksAgain() throws Exception {
        Path asks = dir.resolve("asks");
        Process w1 = start("w1");
        redis.send("s1", turn("s1", "t1", call("c1", "ask_city", asks, 0)));
        String id = awaitEvent("s1", "input_request").path("input_id").asText();
        w1.destroyForcibly();
        w1.waitFor();
        redis.send("s1", "{\"type\":\"input_response\",\"stream_id\":\"s1\",\"input_id\":\"" + id
                + "\",\"action\":\"accept\",\"content\":{\"city\":\"Paris\"}}");
        start("w2");

        List<JsonNode> events = completedTurn("s1");
        assertThat(ofType(events, "input_request")).as("asked once").hasSize(1);
        assertThat(result(events, "c1").path("content").asText()).isEqualTo("city Paris");
        assertThat(runs(asks)).as("the retry-safe tool ran again and found its answer").isEqualTo(2);
    }
}
