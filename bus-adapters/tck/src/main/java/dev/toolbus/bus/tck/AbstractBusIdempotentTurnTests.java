package dev.toolbus.bus.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.spi.BusMessage;
import dev.toolbus.spi.ToolBus;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/**
 * Idempotent turns kept by the bus itself (Redis: finished-turn records in Redis; Kafka exactly
 * once: the ledger topic): a turn sent again is not run, its recorded events come back marked
 * {@code replayed}, also from the next instance; a duplicate taken while the turn runs writes no
 * second set of events; a turn whose events are too large to keep is still settled without running.
 */
public abstract class AbstractBusIdempotentTurnTests extends AbstractBusTests {

    /**
     * Whether the bus keeps a duplicate of a running turn to itself and settles it with the turn
     * (Kafka); false when it hands the duplicate over and its result write finds the turn recorded and
     * writes nothing (Redis).
     */
    protected abstract boolean busJoinsARunningDuplicate();

    private List<String> events() {
        return broker.events("s");
    }

    @Test
    void aFinishedTurnSentAgain_isNotRun_andItsEventsArePublishedAgainMarkedReplayed() {
        EchoDriver driver = attach(broker.bus(BusOptions.named("one").build()));
        broker.send("s", EchoDriver.turn("s", "t1", "a"));
        await().atMost(Duration.ofSeconds(30)).until(() -> events().size() == 2);
        broker.send("s", EchoDriver.turn("s", "t1", "a")); // the client retried
        await().atMost(Duration.ofSeconds(30)).until(() -> events().size() == 4 && broker.settled());
        List<String> events = events();
        assertThat(driver.turns.get()).isEqualTo(1);
        assertThat(events.get(2)).isEqualTo(Events.replayed(events.get(0)));
        assertThat(events.get(3)).isEqualTo(Events.replayed(events.get(1)));
        assertThat(events.get(0)).doesNotContain("replayed");
    }

    @Test
    void aTurnFinishedByOneInstance_isReplayedByTheNext_theRecordIsShared() {
        ToolBus first = broker.bus(BusOptions.named("one").giveUpAtOnce().build());
        EchoDriver d1 = new EchoDriver();
        Disposable s1 = d1.attach(first);
        broker.send("s", EchoDriver.turn("s", "t1", "a"));
        await().atMost(Duration.ofSeconds(30)).until(() -> events().size() == 2 && broker.settled());
        broker.send("s", EchoDriver.turn("s", "t1", "a")); // the client retried, same instance
        await().atMost(Duration.ofSeconds(30)).until(() -> events().size() == 4 && broker.settled());
        s1.dispose();
        first.closeGracefully().block(Duration.ofSeconds(30));

        EchoDriver d2 = attach(broker.bus(BusOptions.named("two").giveUpAtOnce().build()));
        broker.send("s", EchoDriver.turn("s", "t1", "a")); // again, now taken by the other instance
        broker.send("s", EchoDriver.turn("s", "t2", "b"));
        await().atMost(Duration.ofSeconds(30)).until(() -> events().size() == 8 && broker.settled());
        List<String> events = events();
        assertThat(d1.turns.get()).isEqualTo(1);
        assertThat(d2.turns.get()).as("t2 only").isEqualTo(1);
        for (int i : new int[] {2, 4}) {
            assertThat(events.get(i)).isEqualTo(Events.replayed(events.get(0)));
            assertThat(events.get(i + 1)).isEqualTo(Events.replayed(events.get(1)));
        }
        assertThat(events.get(6)).contains("t2").doesNotContain("replayed");
    }

    @Test
    void aDuplicateTakenWhileTheTurnRuns_writesNoSecondSetOfEvents() {
        ToolBus bus = broker.bus(BusOptions.named("one").build());
        List<BusMessage> got = new CopyOnWriteArrayList<>();
        Disposable sub = bus.receive().subscribe(got::add);
        closeLater(sub::dispose);
        broker.send("s", EchoDriver.turn("s", "t3", "c"));
        await().atMost(Duration.ofSeconds(30)).until(() -> got.size() == 1);
        broker.send("s", EchoDriver.turn("s", "t3", "c")); // while t3 runs
        broker.send("s", EchoDriver.turn("s", "t4", "d"));
        int handedOver = busJoinsARunningDuplicate() ? 2 : 3;
        await().atMost(Duration.ofSeconds(30)).until(() -> got.size() == handedOver);
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> got.size() == handedOver);
        if (busJoinsARunningDuplicate()) {
            assertThat(got.get(1).payload()).asString().contains("t4"); // the duplicate was never handed over
        } else {
            assertThat(got.get(1).payload()).asString().contains("t3");
        }
        EchoDriver driver = new EchoDriver();
        for (BusMessage m : got) {
            driver.handle(bus, m).block(Duration.ofSeconds(30));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> events().size() == 4 && broker.settled());
        assertThat(driver.turns.get()).isEqualTo(handedOver);
        assertThat(events()).noneMatch(e -> e.contains("replayed"));
        assertThat(events()).filteredOn(e -> e.contains("\"turn_id\":\"t3\"")).hasSize(2);
    }

    @Test
    void eventsAboveMaxRecordedBytes_areNotKept_andTheRepeatIsSettledWithoutRunning() {
        EchoDriver driver = attach(broker.bus(BusOptions.named("one").maxRecordedBytes(0).build()));
        broker.send("s", EchoDriver.turn("s", "t3", "c"));
        await().atMost(Duration.ofSeconds(30)).until(() -> events().size() == 2);
        broker.send("s", EchoDriver.turn("s", "t3", "c"));
        await().atMost(Duration.ofSeconds(30)).until(broker::settled);
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> events().size() == 2);
        assertThat(driver.turns.get()).isEqualTo(1);
    }
}
