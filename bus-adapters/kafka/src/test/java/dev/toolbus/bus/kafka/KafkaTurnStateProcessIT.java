package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
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
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 20 on Kafka with real processes on the real broker, in both delivery modes: two instances
 * ({@link StateWorkerMain}) in one group, their turn state in the state topic. The instance running a
 * turn is killed with SIGKILL (or stalled with SIGSTOP) while its calls run; the other takes the
 * partition over after the session timeout. Each tool counts its runs in a file: a call that is not
 * retry-safe never runs twice (it ends {@code OUTCOME_UNKNOWN} on the next owner), a retry-safe one runs
 * again; an approval raised by the dead instance keeps its id and is honoured with answers sent before and
 * after the takeover; a session grant and a cut result's full text are read back on the next owner; a
 * stalled instance that wakes after its partition moved publishes nothing for it.
 */
class KafkaTurnStateProcessIT {

    private static final long SESSION_MS = 6_000;
    private static final Duration TAKEOVER = Duration.ofSeconds(90);

    @TempDir
    Path dir;
    private KafkaFixture kafka;
    private Workers workers;
    private final String stream = "s-" + UUID.randomUUID();

    @BeforeEach
    void open() throws IOException {
        kafka = KafkaFixture.require();
        workers = new Workers(l -> l.contains("WARN") || l.contains("ERROR") || l.contains("took over")
                || l.contains("fenced"));
        Files.createFile(dir.resolve("hold"));
    }

    @AfterEach
    void close() {
        workers.close();
        kafka.close();
    }

    private Process start(String name, KafkaDelivery delivery) throws Exception {
        return workers.startMain(name, StateWorkerMain.class, List.of(kafka.bootstrap, kafka.prefix, kafka.prefix + name,
                delivery.name(), dir.toString(), Long.toString(SESSION_MS)));
    }

    /** Two instances sharing the group's partitions. */
    private Map<String, Process> twoInstances(KafkaDelivery delivery) throws Exception {
        Process a = start("a", delivery);
        Process b = start("b", delivery);
        kafka.awaitMembers(2);
        return Map.of(kafka.prefix + "a", a, kafka.prefix + "b", b);
    }

    /** The lines of a count file (the names of the instances that ran the tool), none when it never ran. */
    private List<String> runs(String file) {
        try {
            Path p = dir.resolve(file);
            return Files.exists(p) ? Files.readAllLines(p, StandardCharsets.UTF_8) : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void release() throws IOException {
        Files.deleteIfExists(dir.resolve("hold"));
    }

    private List<JsonNode> events(String streamId, Predicate<JsonNode> which) {
        List<JsonNode> out = new ArrayList<>();
        for (String e : kafka.events(streamId)) {
            try {
                JsonNode n = Json.mapper().readTree(e);
                if (which.test(n)) {
                    out.add(n);
                }
            } catch (IOException x) {
                throw new UncheckedIOException(x);
            }
        }
        return out;
    }

    private List<JsonNode> events(Predicate<JsonNode> which) {
        return events(stream, which);
    }

    private static Predicate<JsonNode> result(String toolCallId) {
        return e -> e.path("type").asText().equals("tool_result") && e.path("tool_call_id").asText().equals(toolCallId);
    }

    private static String call(String id, String tool, String argument, String value) {
        return "{\"tool_call_id\":\"" + id + "\",\"name\":\"" + tool + "\",\"arguments\":{\"" + argument + "\":\""
                + value + "\"}}";
    }

    private void turn(String turnId, String... calls) {
        turnOn(stream, turnId, calls);
    }

    private void turnOn(String streamId, String turnId, String... calls) {
        kafka.send(streamId, "{\"type\":\"tool_calls\",\"stream_id\":\"" + streamId + "\",\"turn_id\":\"" + turnId
                + "\",\"calls\":[" + String.join(",", calls) + "]}");
    }

    private void kill(Process p) throws InterruptedException {
        p.destroyForcibly(); // SIGKILL
        p.waitFor();
    }

    @ParameterizedTest
    @EnumSource(KafkaDelivery.class)
    void killMinus9MidCall_aCallNotRetrySafeNeverRunsTwice_endsOutcomeUnknown_aRetrySafeOneRunsAgain(KafkaDelivery delivery)
            throws Exception {
        Map<String, Process> instances = twoInstances(delivery);
        turn("t1", call("c1", "charge", "account", "acct-1"), call("c2", "lookup", "key", "k-1"));
        await().atMost(Duration.ofSeconds(60)).until(() -> runs("charge-acct-1").size() == 1
                && runs("lookup-k-1").size() == 1);
        String owner = runs("charge-acct-1").get(0);
        kill(instances.get(owner));
        release();

        await().atMost(TAKEOVER).until(() -> !events(result("c1")).isEmpty() && !events(result("c2")).isEmpty()
                && !events(e -> e.path("type").asText().equals("turn_completed")).isEmpty());
        JsonNode charged = events(result("c1")).get(0);
        assertThat(charged.path("is_error").asBoolean()).as(charged.toString()).isTrue();
        assertThat(charged.path("error").path("code").asText()).isEqualTo("OUTCOME_UNKNOWN");
        assertThat(runs("charge-acct-1")).as("the call that is not retry-safe ran once, on the killed instance")
                .containsExactly(owner);
        JsonNode found = events(result("c2")).get(0);
        assertThat(found.path("content").asText()).isEqualTo("found k-1");
        assertThat(runs("lookup-k-1")).as("the retry-safe call ran again on the next owner").hasSize(2)
                .doesNotHaveDuplicates();
        if (delivery == KafkaDelivery.EXACTLY_ONCE) {
            assertThat(events(result("c1"))).as("one result per call (read_committed)").hasSize(1);
        }

        // the next turn of the conversation runs on the next owner, once
        turn("t2", call("c3", "charge", "account", "acct-2"));
        await().atMost(Duration.ofSeconds(60)).until(() -> !events(result("c3")).isEmpty());
        assertThat(runs("charge-acct-2")).hasSize(1);
    }

    @ParameterizedTest
    @EnumSource(KafkaDelivery.class)
    void approvalsRaisedByADeadInstance_keepTheirIds_andAnswersBeforeAndAfterTheTakeoverAreHonoured(KafkaDelivery delivery)
            throws Exception {
        release(); // the approvals are what wait here
        Map<String, Process> instances = twoInstances(delivery);
        // three conversations on one partition, so one instance owns them all
        List<String> streams = streamsOfOnePartition(3);
        String early = streams.get(0);
        String late = streams.get(1);
        String started = streams.get(2);
        for (String s : streams) {
            turnOn(s, "t1", call("c1", "delete_file", "path", s + ".txt"));
        }
        Map<String, String> ids = new java.util.HashMap<>();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            for (String s : streams) {
                events(s, asked()).forEach(r -> ids.put(s, r.path("approval_id").asText()));
            }
            return ids.size() == 3;
        });
        assertThat(ids.values()).allSatisfy(id -> assertThat(id).startsWith("ap-"));

        // one approval answered while its owner lives: the call starts (and holds), then the owner dies
        Files.createFile(dir.resolve("hold"));
        approve(started, ids.get(started));
        await().atMost(Duration.ofSeconds(60)).until(() -> runs("delete-" + started + ".txt").size() == 1);
        String owner = runs("delete-" + started + ".txt").get(0);
        kill(instances.get(owner));
        release();
        // one answered after the owner died, before any instance took the partition over
        approve(early, ids.get(early));
        // one answered after the takeover, once the next owner asked again with the same id
        await().atMost(TAKEOVER).until(() -> events(late, asked()).stream()
                .filter(r -> r.path("approval_id").asText().equals(ids.get(late))).count() >= 2);
        approve(late, ids.get(late));

        await().atMost(Duration.ofSeconds(60)).until(() -> streams.stream().allMatch(s -> !events(s, result("c1")).isEmpty()));
        for (String s : List.of(early, late)) {
            assertThat(events(s, result("c1")).get(0).path("content").asText()).isEqualTo("deleted " + s + ".txt");
            assertThat(runs("delete-" + s + ".txt")).as("approved once, run once, by the next owner").hasSize(1)
                    .doesNotContain(owner);
        }
        JsonNode unknown = events(started, result("c1")).get(0);
        assertThat(unknown.path("error").path("code").asText()).as(unknown.toString()).isEqualTo("OUTCOME_UNKNOWN");
        assertThat(runs("delete-" + started + ".txt")).as("approved and started on the dead owner: never again")
                .containsExactly(owner);
        assertThat(events(started, asked())).as("its recorded answer is not asked for again").hasSize(1);
    }

    @ParameterizedTest
    @EnumSource(KafkaDelivery.class)
    void aSessionGrant_andACutResult_areReadBackOnTheNextOwner_afterKillMinus9(KafkaDelivery delivery) throws Exception {
        release();
        Map<String, Process> instances = twoInstances(delivery);
        turnAs("u1", "t1", call("c1", "rename_file", "path", "a"));
        await().atMost(Duration.ofSeconds(60)).until(() -> !events(asked()).isEmpty());
        String id = events(asked()).get(0).path("approval_id").asText();
        kafka.send(stream, "{\"type\":\"approval_response\",\"stream_id\":\"" + stream + "\",\"approval_id\":\""
                + id + "\",\"decision\":\"approve_session\"}");
        await().atMost(Duration.ofSeconds(60)).until(() -> !events(result("c1")).isEmpty());
        turn("t2", call("r1", "report", "topic", "q3"));
        await().atMost(Duration.ofSeconds(60)).until(() -> !events(result("r1")).isEmpty());
        String cut = events(result("r1")).get(0).path("content").asText();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"offset\": (\\d+)").matcher(cut);
        assertThat(m.find()).as(cut).isTrue();
        int shown = Integer.parseInt(m.group(1));
        assertThat(shown).isLessThanOrEqualTo(StateWorkerMain.REPORT_SHOWN);
        assertThat(cut).startsWith(StateWorkerMain.report().substring(0, shown));
        String owner = runs("rename-a").get(0);
        kill(instances.get(owner));

        // the next owner: the grant holds (no approval asked), the cut text reads back
        turnAs("u1", "t3", call("c3", "rename_file", "path", "b"));
        turn("t4", "{\"tool_call_id\":\"r2\",\"name\":\"read_tool_result\",\"arguments\":{\"tool_call_id\":\"r1\","
                + "\"offset\":" + shown + "}}");
        await().atMost(TAKEOVER).until(() -> !events(result("c3")).isEmpty() && !events(result("r2")).isEmpty());
        assertThat(events(result("c3")).get(0).path("content").asText()).isEqualTo("renamed b");
        assertThat(runs("rename-b")).hasSize(1).doesNotContain(owner);
        assertThat(events(asked())).as("the session grant was restored: asked once, for t1 only").hasSize(1);
        JsonNode rest = events(result("r2")).get(0);
        assertThat(rest.path("is_error").asBoolean()).as(rest.toString()).isFalse();
        assertThat(rest.path("content").asText()).contains(StateWorkerMain.report().substring(shown, shown + 40));
    }

    private void turnAs(String user, String turnId, String... calls) {
        kafka.send(stream, "{\"type\":\"tool_calls\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"" + turnId
                + "\",\"calls\":[" + String.join(",", calls) + "],\"context\":{\"user_id\":\"" + user + "\"}}");
    }

    /** {@code n} conversation ids whose records land on one partition of the calls topic. */
    private List<String> streamsOfOnePartition(int n) {
        List<String> out = new ArrayList<>(List.of(stream));
        int p = StateKeys.partition(stream, KafkaFixture.PARTITIONS);
        for (int i = 0; out.size() < n; i++) {
            String s = stream + "-" + i;
            if (StateKeys.partition(s, KafkaFixture.PARTITIONS) == p) {
                out.add(s);
            }
        }
        return out;
    }

    private static Predicate<JsonNode> asked() {
        return e -> e.path("type").asText().equals("approval_request");
    }

    @ParameterizedTest
    @EnumSource(KafkaDelivery.class)
    void aStalledInstanceThatWakesAfterItsPartitionMoved_publishesNothingForIt(KafkaDelivery delivery) throws Exception {
        Map<String, Process> instances = twoInstances(delivery);
        turn("t1", call("c1", "charge", "account", "acct-s"));
        await().atMost(Duration.ofSeconds(60)).until(() -> runs("charge-acct-s").size() == 1);
        String owner = runs("charge-acct-s").get(0);
        Process stalled = instances.get(owner);
        signal(stalled, "STOP");
        try {
            await().atMost(TAKEOVER).until(() -> !events(result("c1")).isEmpty());
        } finally {
            signal(stalled, "CONT");
        }
        JsonNode taken = events(result("c1")).get(0);
        assertThat(taken.path("error").path("code").asText()).as(taken.toString()).isEqualTo("OUTCOME_UNKNOWN");
        release(); // the stalled instance's call now ends there
        // it finds its partition moved: it neither runs the call again nor publishes its result
        turn("t2", call("c2", "lookup", "key", "after"));
        await().atMost(Duration.ofSeconds(60)).until(() -> !events(result("c2")).isEmpty());
        // for some seconds after it woke, no second result of c1 appears (the stalled call's "charged")
        await().during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(10)).until(() -> events(result("c1")).stream()
                .noneMatch(e -> e.path("content").asText().contains("charged acct-s")));
        assertThat(runs("charge-acct-s")).as("it ran once, on the stalled instance").containsExactly(owner);
        if (delivery == KafkaDelivery.EXACTLY_ONCE) {
            assertThat(events(result("c1"))).as("only the new owner's answer").hasSize(1);
        }
    }

    private void approve(String streamId, String approvalId) {
        kafka.send(streamId, "{\"type\":\"approval_response\",\"stream_id\":\"" + streamId + "\",\"approval_id\":\""
                + approvalId + "\",\"decision\":\"approve\"}");
    }

    private static void signal(Process p, String signal) throws Exception {
        new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).inheritIO().start().waitFor();
    }
}
