package dev.toolbus.bus.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.bus.tck.Events;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.approval.ApprovalMode;
import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.spi.KeyHash;
import dev.toolbus.spi.TurnStateSettings;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import dev.toolbus.tool.method.Tools;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * The turn state shared by two instances on a real Redis (issue 20 items 5 and 6): an
 * {@code approve_session} grant made on one instance is honoured by the other, a result cut on one is
 * read back on the other, and under a flood the state keeps its bounds (held answers per stream, the
 * call journal) and answers every call.
 */
class RedisSharedStateIT {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String LONG = IntStream.range(0, 40).mapToObj(i -> "line " + i).collect(Collectors.joining("\n"));

    private RedisFixture redis;
    private final Map<String, RedisStreamsBus> buses = new HashMap<>();
    private final List<ToolExecutor> executors = new ArrayList<>();
    private final AtomicInteger charges = new AtomicInteger();

    @BeforeEach
    void setUp() {
        redis = RedisFixture.require();
    }

    @AfterEach
    void tearDown() {
        buses.values().forEach(b -> b.closeGracefully().block(Duration.ofSeconds(30)));
        executors.forEach(ToolExecutor::close);
        redis.close();
    }

    private RedisStreamsBus instance(String id, TurnStateSettings state) {
        ToolSpec longText = new ToolSpec(ToolDefinition.builder("long_text").description("A long text")
                .maxResultChars(60).build(), (a, c) -> Mono.just(ToolResult.text(LONG)));
        ToolSpec charge = new ToolSpec(ToolDefinition.builder("charge").description("Charges").sideEffecting(true).build(),
                (a, c) -> Mono.fromSupplier(() -> ToolResult.text("charged " + charges.incrementAndGet())));
        ToolExecutor executor = ToolExecutor.builder().instanceId(id)
                .tool(Tools.function("echo", "Returns its arguments", json -> json)).tool(longText).tool(charge)
                .approval(ApprovalSettings.builder().mode(ApprovalMode.AUTO).low(List.of("long_text", "charge")).build())
                .build();
        RedisStreamsBus bus = RedisStreamsBus.fromUri(redis.url, redis.config().consumer(id).instanceId(id)
                .controlChannel(redis.prefix + "control").resultsMaxLen(0).turnState(state).build());
        bus.start().block(WAIT);
        executors.add(executor);
        buses.put(id, bus);
        executor.attach(bus);
        return bus;
    }

    private void onlyReads(String id) {
        buses.forEach((name, bus) -> {
            if (name.equals(id)) {
                bus.resumeReading();
            } else {
                bus.pauseReading();
                await().atMost(WAIT).until(bus::readingStopped);
            }
        });
    }

    private static String turn(String stream, String turnId, String calls) {
        return "{\"type\":\"tool_calls\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"" + turnId + "\",\"calls\":["
                + calls + "],\"context\":{\"user_id\":\"u1\"}}";
    }

    private List<JsonNode> ofTurn(String stream, String turnId) {
        return redis.events(stream).stream().map(Events::json).filter(e -> turnId.equals(e.path("turn_id").asText())).toList();
    }

    private List<JsonNode> awaitTurn(String stream, String turnId) {
        await().atMost(WAIT).until(() -> ofTurn(stream, turnId).stream()
                .anyMatch(e -> e.path("type").asText().equals("turn_completed")));
        return ofTurn(stream, turnId);
    }

    @Test
    void aSessionGrantMadeOnOneInstance_isHonouredByTheOther() {
        instance("ia", TurnStateSettings.DEFAULTS);
        instance("ib", TurnStateSettings.DEFAULTS);
        onlyReads("ia");
        redis.send("s1", turn("s1", "t1", "{\"tool_call_id\":\"c1\",\"name\":\"echo\",\"arguments\":{\"x\":1}}"));
        await().atMost(WAIT).until(() -> ofTurn("s1", "t1").stream()
                .anyMatch(e -> e.path("type").asText().equals("approval_request")));
        String id = ofTurn("s1", "t1").get(0).path("approval_id").asText();
        redis.send("s1", "{\"type\":\"approval_response\",\"stream_id\":\"s1\",\"approval_id\":\"" + id
                + "\",\"decision\":\"approve_session\"}");
        assertThat(Events.types(awaitTurn("s1", "t1"))).containsExactly("approval_request", "tool_result", "turn_completed");

        onlyReads("ib");
        redis.send("s1", turn("s1", "t2", "{\"tool_call_id\":\"c1\",\"name\":\"echo\",\"arguments\":{\"x\":2}}"));
        List<JsonNode> next = awaitTurn("s1", "t2");
        assertThat(Events.types(next)).as("granted for the session, on the other instance")
                .containsExactly("tool_result", "turn_completed");
        assertThat(next.get(0).path("is_error").asBoolean()).isFalse();
    }

    @Test
    void aResultCutOnOneInstance_isReadBackOnTheOther() {
        instance("ia", TurnStateSettings.DEFAULTS);
        instance("ib", TurnStateSettings.DEFAULTS);
        onlyReads("ia");
        redis.send("s1", turn("s1", "t1", "{\"tool_call_id\":\"c1\",\"name\":\"long_text\",\"arguments\":{}}"));
        JsonNode cut = awaitTurn("s1", "t1").get(0);
        assertThat(cut.path("content").asText()).doesNotContain("line 39").contains("read_tool_result");

        onlyReads("ib");
        redis.send("s1", turn("s1", "t2", "{\"tool_call_id\":\"r1\",\"name\":\"read_tool_result\",\"arguments\":"
                + "{\"tool_call_id\":\"c1\",\"offset\":" + (LONG.length() - 30) + "}}"));
        JsonNode read = awaitTurn("s1", "t2").get(0);
        assertThat(read.path("is_error").asBoolean()).as(read.toString()).isFalse();
        assertThat(read.path("content").asText()).contains("line 39");

        redis.send("s2", turn("s2", "t3", "{\"tool_call_id\":\"r1\",\"name\":\"read_tool_result\",\"arguments\":"
                + "{\"tool_call_id\":\"c1\"}}"));
        assertThat(awaitTurn("s2", "t3").get(0).path("is_error").asBoolean()).as("another conversation's call").isTrue();
    }

    @Test
    void aFloodOfAnswersAndCalls_keepsTheStateInItsBounds_andAnswersEveryOne() {
        TurnStateSettings small = TurnStateSettings.builder().heldPerStream(4).journalMaxEntries(6).build();
        instance("ia", small);
        for (int i = 0; i < 40; i++) {
            String id = String.format("ap-%016x", 0xabc000L + i); // the shape of a derived id, no request yet
            redis.send("s1", "{\"type\":\"approval_response\",\"stream_id\":\"s1\",\"approval_id\":\"" + id
                    + "\",\"decision\":\"approve\"}");
        }
        String held = redis.prefix + "state:h:" + KeyHash.hex("s1");
        await().atMost(WAIT).until(() -> redis.events("s1").stream().filter(e -> e.contains("UNKNOWN_REQUEST")).count() == 36);
        assertThat(redis.redis.llen(held)).as("answers held for requests not raised yet").isEqualTo(4);

        String calls = IntStream.range(0, 20).mapToObj(i -> "{\"tool_call_id\":\"c" + i + "\",\"name\":\"charge\",\"arguments\":{}}")
                .collect(Collectors.joining(","));
        redis.send("s2", turn("s2", "t1", calls));
        List<JsonNode> results = awaitTurn("s2", "t1").stream().filter(e -> e.path("type").asText().equals("tool_result")).toList();
        assertThat(results).as("every call answered").hasSize(20);
        long refused = results.stream().filter(e -> e.path("error").path("code").asText().equals("STATE_UNAVAILABLE")).count();
        assertThat(refused).as("calls refused at the journal's bound").isGreaterThanOrEqualTo(14);
        assertThat(charges.get()).as("calls run").isEqualTo(20 - (int) refused).isLessThanOrEqualTo(6);
        assertThat(redis.redis.keys(redis.prefix + "state:j:*").stream().filter(k -> k.matches(".*:j:[0-9a-f]{64}")).count())
                .as("journal records").isLessThanOrEqualTo(6);
    }
}
