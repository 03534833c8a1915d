package dev.toolbus.bus.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.spi.BusMessage;
import dev.toolbus.spi.ToolBus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;

/**
 * Delivery and order: a backlog published before any instance runs is executed in order per
 * conversation; a bus hands over no more than its receiver requested; inputs that cannot be run are
 * dead-lettered with a reason while the bus keeps working; a broker restart loses no turn.
 */
public abstract class AbstractBusDeliveryTests extends AbstractBusTests {

    /**
     * Inputs the bus has taken from the broker for this instance are exactly {@code n} (Redis: the
     * group's pending entries); nothing to check where a bus reads ahead into a bounded buffer by
     * design (Kafka).
     */
    protected abstract void assertTakenFromBroker(int n);

    /** The dead-letter reason of an input without an event ({@link BrokerFixture#sendWithoutEvent}). */
    protected abstract String noEventReason();

    /**
     * Whether an input without an event still answers its conversation with an error (Kafka: the
     * record's key names it); false when nothing names the conversation (Redis).
     */
    protected abstract boolean noEventAnswersItsConversation();

    @Test
    void backlogPublishedBeforeAnyInstance_isRunInOrderPerConversation() {
        for (int i = 0; i < 60; i++) {
            String stream = "s" + (i % 4);
            broker.send(stream, EchoDriver.turn(stream, "t" + i, "x" + i));
        }
        EchoDriver driver = attach(broker.bus(BusOptions.named("i1").build()));

        await().atMost(Duration.ofSeconds(30)).until(() -> driver.turns.get() == 60);
        await().atMost(Duration.ofSeconds(10)).until(() -> broker.events(Events.streams(4)).values().stream()
                .mapToLong(l -> l.stream().filter(Events::isCompleted).count()).sum() == 60 && broker.settled());
        for (int s = 0; s < 4; s++) {
            List<String> expected = new ArrayList<>();
            for (int i = s; i < 60; i += 4) {
                expected.add("\"turn_id\":\"t" + i + "\"");
            }
            List<String> completed = broker.events("s" + s).stream().filter(Events::isCompleted).toList();
            assertThat(completed).hasSize(15);
            for (int k = 0; k < 15; k++) {
                assertThat(completed.get(k)).as("turn %d of s%d", k, s).contains(expected.get(k));
            }
            String stream = "s" + s;
            // every event of a conversation names it
            assertThat(broker.events(stream)).allSatisfy(e -> assertThat(e).contains("\"stream_id\":\"" + stream + "\""));
        }
    }

    @Test
    void receive_handsOverNoMoreThanRequested() {
        for (int i = 0; i < 10; i++) {
            broker.send("s", EchoDriver.turn("s", "t" + i, "x"));
        }
        ToolBus bus = broker.bus(BusOptions.named("i1").build());
        List<BusMessage> got = new CopyOnWriteArrayList<>();
        BaseSubscriber<BusMessage> sub = new BaseSubscriber<>() {
            @Override
            protected void hookOnSubscribe(Subscription s) {
                s.request(3);
            }

            @Override
            protected void hookOnNext(BusMessage m) {
                got.add(m);
            }
        };
        closeLater(sub::dispose);
        bus.receive().subscribe(sub);
        await().atMost(Duration.ofSeconds(30)).until(() -> got.size() == 3);
        // nothing beyond the demand is handed over (nor, where the broker tells, taken from it)
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> got.size() == 3);
        assertTakenFromBroker(3);
        assertThat(got).extracting(m -> new String(m.payload())).allSatisfy(p -> assertThat(p).contains("\"s\""));
        sub.request(7);
        await().atMost(Duration.ofSeconds(10)).until(() -> got.size() == 10);
        for (int i = 0; i < 10; i++) {
            assertThat(new String(got.get(i).payload())).as("message %d in order", i).contains("\"t" + i + "\"");
        }
    }

    @Test
    void inputsThatCannotRun_areDeadLetteredWithAReason_andTheBusKeepsWorking() {
        broker.send(null, "this is not json");
        broker.sendWithoutEvent("s");
        broker.send("big", "{\"type\":\"tool_calls\",\"stream_id\":\"big\",\"turn_id\":\"t-big\",\"pad\":\""
                + "x".repeat(4000) + "\"}");
        broker.send("s", "{\"type\":\"nonsense\",\"stream_id\":\"s\",\"turn_id\":\"t-bad\"}");
        broker.send("s", EchoDriver.turn("s", "t-ok", "fine"));
        attach(broker.bus(BusOptions.named("i1").maxEventBytes(2048).build()));

        int expected = noEventAnswersItsConversation() ? 4 : 3;
        await().atMost(Duration.ofSeconds(30)).until(() -> broker.settled() && broker.deadLetters().size() == 3
                && broker.events("s").size() == expected);
        List<DeadLetter> dead = broker.deadLetters();
        List<String> reasons = dead.stream().map(DeadLetter::reason).toList();
        assertThat(reasons).hasSize(3).contains(noEventReason(), "event of 4066 bytes is above the 2048-byte limit");
        assertThat(reasons).anySatisfy(r -> assertThat(r).startsWith("malformed JSON"));
        assertThat(dead).allSatisfy(d -> {
            assertThat(d.source()).as("source of %s", d).isNotNull().startsWith(broker.callsName());
            assertThat(d.client()).as("client of %s", d).isNotNull();
        });
        // the oversized turn also answers its conversation
        assertThat(broker.events("big")).singleElement().asString()
                .contains("\"type\":\"error\"", "\"code\":\"BAD_EVENT\"", "\"turn_id\":\"t-big\"");
        List<String> s = new ArrayList<>(broker.events("s"));
        if (noEventAnswersItsConversation()) {
            assertThat(s.remove(0)).contains("\"type\":\"error\"", noEventReason());
        }
        assertThat(s.get(0)).contains("\"type\":\"error\"", "t-bad");
        assertThat(s.get(1)).contains("\"tool_result\"", "echo:{\\\"text\\\":\\\"fine\\\"}");
        assertThat(s.get(2)).contains("\"turn_completed\"", "t-ok");
    }

    @Test
    void aBrokerRestartMidRun_losesNoTurn() throws Exception {
        EchoDriver driver = attach(broker.bus(BusOptions.named("i1").takeOverAfter(Duration.ofSeconds(2)).build()));
        for (int i = 0; i < 100; i++) {
            broker.send("s" + (i % 4), EchoDriver.turn("s" + (i % 4), "t" + i, "x"));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> driver.turns.get() >= 100);
        Process restart = broker.restartBroker();
        assertThat(restart.waitFor()).isZero();
        for (int i = 100; i < 200; i++) {
            broker.sendDuringRestart("s" + (i % 4), EchoDriver.turn("s" + (i % 4), "t" + i, "x"));
        }
        broker.flush();
        await().atMost(Duration.ofSeconds(60)).until(() -> broker.settled()
                && Events.distinct(Events.completedTurns(broker.events(Events.streams(4)), true)) == 200);
    }
}
