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
 * A poison turn: one that every instance taking it dies on (takes it and never settles it). After
 * {@code maxDeliveries} it is dead-lettered with its delivery count, its conversation gets an
 * {@code error}, and the next turn runs.
 */
public abstract class AbstractBusPoisonTurnTests extends AbstractBusTests {

    /** The dead-letter reason of an input delivered {@code deliveries} times with {@code maxDeliveries} 2. */
    protected abstract String poisonReason(int deliveries);

    private BusOptions options() {
        return BusOptions.named("fixed").maxDeliveries(2).giveUpAtOnce().build();
    }

    /** An instance that takes what it is given and dies without settling anything. */
    private void takeAndDie(int expected) {
        ToolBus bus = broker.bus(options());
        List<BusMessage> got = new CopyOnWriteArrayList<>();
        Disposable sub = bus.receive().subscribe(got::add);
        await().atMost(Duration.ofSeconds(30)).until(() -> got.size() == expected);
        sub.dispose();
        bus.closeGracefully().block(Duration.ofSeconds(30));
    }

    @Test
    void aTurnDeliveredMoreThanMaxDeliveries_isDeadLetteredWithItsCount_andItsConversationGetsAnError() {
        broker.send("s", EchoDriver.turn("s", "t-poison", "boom"));
        takeAndDie(1); // delivery 1
        takeAndDie(1); // delivery 2 (the same consumer's pending entry read again, or the partition's next owner)
        broker.send("s", EchoDriver.turn("s", "t-ok", "fine"));

        EchoDriver driver = attach(broker.bus(options()));
        await().atMost(Duration.ofSeconds(30)).until(() -> broker.settled() && driver.turns.get() == 1
                && broker.deadLetters().size() == 1 && broker.events("s").stream().anyMatch(Events::isCompleted));
        DeadLetter dead = broker.deadLetters().get(0);
        assertThat(dead.deliveries()).isEqualTo("3");
        assertThat(dead.reason()).isEqualTo(poisonReason(3));
        assertThat(dead.source()).startsWith(broker.callsName());
        assertThat(dead.event()).contains("t-poison");
        List<String> events = broker.events("s");
        assertThat(events).hasSize(3); // the error, then t-ok's result and turn_completed
        assertThat(events.get(0)).contains("\"type\":\"error\"", "\"turn_id\":\"t-poison\"", "\"code\":\"REJECTED\"",
                "maxDeliveries 2");
        assertThat(events.get(2)).contains("turn_completed", "t-ok");
        assertThat(driver.turns.get()).isEqualTo(1);
    }
}
