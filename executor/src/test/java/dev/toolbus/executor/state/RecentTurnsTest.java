package dev.toolbus.executor.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.spi.Principal;
import dev.toolbus.spi.TurnKey;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The ledger's finished turns in their ring: oldest first out, by bytes, by count and by age. */
class RecentTurnsTest {

    private final AtomicLong nanos = new AtomicLong(5_000);

    private static TurnKey key(String turnId) {
        return TurnKey.of(Principal.local(), "s", turnId);
    }

    private static byte[][] events(String... texts) {
        byte[][] out = new byte[texts.length][];
        for (int i = 0; i < texts.length; i++) {
            out[i] = texts[i].getBytes(StandardCharsets.UTF_8);
        }
        return out;
    }

    private static String first(byte[][] events) {
        return new String(events[0], StandardCharsets.UTF_8);
    }

    @Test
    void afterAFloodTheNewestRecordsAreTheOnesKept() {
        RecentTurns turns = new RecentTurns(1_000_000_000L, 1_000_000, 1_000, 64 * 1024, nanos::get);
        for (int i = 0; i < 10_000; i++) {
            turns.put(key("t" + i), events("r" + i, "done " + i));
        }
        assertThat(turns.size()).isEqualTo(1_000);
        for (int i = 9_000; i < 10_000; i++) {
            byte[][] r = turns.get(key("t" + i));
            assertThat(first(r)).isEqualTo("r" + i);
            assertThat(new String(r[1], StandardCharsets.UTF_8)).isEqualTo("done " + i);
        }
        assertThat(turns.get(key("t8999"))).isNull();
    }

    @Test
    void theByteBoundDropsTheOldestFirst() {
        RecentTurns turns = new RecentTurns(1_000_000_000L, 1_000, 1_000, 64 * 1024, nanos::get);
        String payload = "x".repeat(250); // a record of about 300 bytes: three fit in 1,000
        for (int i = 0; i < 5; i++) {
            turns.put(key("t" + i), events(payload + i));
        }
        assertThat(turns.size()).isEqualTo(3);
        assertThat(turns.weight()).isBetween(800L, 1_000L);
        assertThat(turns.get(key("t1"))).isNull();
        assertThat(first(turns.get(key("t2")))).isEqualTo(payload + 2);
        turns.put(key("big"), events("y".repeat(300))); // pushes out the oldest left
        assertThat(turns.get(key("t2"))).isNull();
        assertThat(first(turns.get(key("t3")))).isEqualTo(payload + 3);
        assertThat(first(turns.get(key("t4")))).isEqualTo(payload + 4);
        assertThat(first(turns.get(key("big")))).hasSize(300);
        assertThat(turns.size()).isEqualTo(3);
        assertThat(turns.weight()).isLessThanOrEqualTo(1_000L);
    }

    @Test
    void eventsLargerThanTheRingAreKeptWithout_theTurnStillCountsAsDone() {
        RecentTurns turns = new RecentTurns(1_000_000_000L, 1_000, 10, 64 * 1024, nanos::get);
        turns.put(key("huge"), events("z".repeat(5_000)));
        assertThat(turns.get(key("huge"))).isEmpty();
        turns.put(key("none"), null);
        assertThat(turns.get(key("none"))).isEmpty();
        assertThat(turns.get(key("other"))).isNull();
    }

    @Test
    void aRecordIsGoneAtTheEndOfItsWindow_andDroppedByTheNextWrite() {
        RecentTurns turns = new RecentTurns(100, 1_000, 10, 64 * 1024, nanos::get);
        turns.put(key("a"), events("ra"));
        nanos.addAndGet(99);
        assertThat(first(turns.get(key("a")))).isEqualTo("ra");
        nanos.addAndGet(1);
        assertThat(turns.get(key("a"))).isNull();
        turns.put(key("b"), events("rb"));
        assertThat(turns.size()).isEqualTo(1);
        assertThat(first(turns.get(key("b")))).isEqualTo("rb");
    }

    @Test
    void aRewrittenKeyCountsOnce_withItsNewEventsAndAge() {
        RecentTurns turns = new RecentTurns(100, 1_000, 2, 64 * 1024, nanos::get);
        turns.put(key("a"), events("old"));
        nanos.addAndGet(60);
        turns.put(key("a"), events("new"));
        turns.put(key("b"), events("rb"));
        assertThat(turns.size()).isEqualTo(2);
        nanos.addAndGet(50); // 110 after the first write of a, 50 after the second
        assertThat(first(turns.get(key("a")))).isEqualTo("new");
        turns.put(key("c"), events("rc")); // count bound 2: the oldest live record, a, goes
        assertThat(turns.get(key("a"))).isNull();
        assertThat(first(turns.get(key("b")))).isEqualTo("rb");
        assertThat(first(turns.get(key("c")))).isEqualTo("rc");
        assertThat(turns.size()).isEqualTo(2);
    }

    @Test
    void keysOfOtherPrincipalsAndStreamsAreOtherRecords() {
        RecentTurns turns = new RecentTurns(1_000_000_000L, 100_000, 100, 64 * 1024, nanos::get);
        turns.put(TurnKey.of(Principal.local(), "s1", "t"), events("local s1"));
        turns.put(TurnKey.of(Principal.local(), "s2", "t"), events("local s2"));
        assertThat(first(turns.get(TurnKey.of(Principal.local(), "s1", "t")))).isEqualTo("local s1");
        assertThat(first(turns.get(TurnKey.of(Principal.local(), "s2", "t")))).isEqualTo("local s2");
        assertThat(turns.get(TurnKey.of(Principal.local(), "s1t", ""))).isNull();
    }

    /**
     * Many laps of a small ring with a small index (collisions, moved probe runs, replaced keys): a key
     * is either not found or found with the events last written for it, the newest write is always
     * found, and the bounds hold.
     */
    @Test
    void overManyLapsAKeyIsNeverFoundWithAnotherKeysOrAnOlderRecord() {
        RecentTurns turns = new RecentTurns(1_000_000_000L, 4_096, 40, 64 * 1024, nanos::get);
        Random random = new Random(42);
        Map<String, String> last = new HashMap<>();
        for (int i = 0; i < 50_000; i++) {
            String k = "t" + random.nextInt(120);
            if (random.nextInt(4) == 0) {
                byte[][] r = turns.get(key(k));
                if (r != null) {
                    assertThat(first(r)).as("turn %s", k).isEqualTo(last.get(k));
                }
                continue;
            }
            String v = k + ":" + i + ":" + "p".repeat(random.nextInt(300));
            turns.put(key(k), events(v));
            last.put(k, v);
            assertThat(first(turns.get(key(k)))).isEqualTo(v);
            assertThat(turns.size()).isBetween(1L, 40L);
            assertThat(turns.weight()).isBetween(1L, 4_096L);
        }
        int found = 0;
        for (String k : last.keySet()) {
            byte[][] r = turns.get(key(k));
            if (r != null) {
                assertThat(first(r)).isEqualTo(last.get(k));
                found++;
            }
        }
        assertThat((long) found).isEqualTo(turns.size());
    }
}
