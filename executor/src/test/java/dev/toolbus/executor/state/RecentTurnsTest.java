package dev.toolbus.executor.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The ledger's finished turns: oldest first out, by weight, by count and by age. */
class RecentTurnsTest {

    private final AtomicLong nanos = new AtomicLong(5_000);

    @Test
    void afterAFloodTheNewestRecordsAreTheOnesKept() {
        RecentTurns<String, String> turns = new RecentTurns<>(1_000_000_000L, 1_000_000, 1_000, nanos::get);
        for (int i = 0; i < 10_000; i++) {
            turns.put("t" + i, "r" + i, 100);
        }
        assertThat(turns.size()).isEqualTo(1_000);
        for (int i = 9_000; i < 10_000; i++) {
            assertThat(turns.get("t" + i)).isEqualTo("r" + i);
        }
        assertThat(turns.get("t8999")).isNull();
    }

    @Test
    void theWeightBoundDropsTheOldestFirst() {
        RecentTurns<String, String> turns = new RecentTurns<>(1_000_000_000L, 1_000, 1_000, nanos::get);
        for (int i = 0; i < 5; i++) {
            turns.put("t" + i, "r" + i, 300);
        }
        assertThat(turns.weight()).isEqualTo(900);
        assertThat(turns.get("t1")).isNull();
        assertThat(turns.get("t2")).isEqualTo("r2");
        turns.put("big", "b", 700); // pushes out the two oldest left
        assertThat(turns.get("t2")).isNull();
        assertThat(turns.get("t3")).isNull();
        assertThat(turns.get("t4")).isEqualTo("r4");
        assertThat(turns.weight()).isEqualTo(1_000);
    }

    @Test
    void aRecordIsGoneAtTheEndOfItsWindow_andDroppedByTheNextWrite() {
        RecentTurns<String, String> turns = new RecentTurns<>(100, 1_000, 10, nanos::get);
        turns.put("a", "ra", 10);
        nanos.addAndGet(99);
        assertThat(turns.get("a")).isEqualTo("ra");
        nanos.addAndGet(1);
        assertThat(turns.get("a")).isNull();
        turns.put("b", "rb", 10);
        assertThat(turns.size()).isEqualTo(1);
        assertThat(turns.weight()).isEqualTo(10);
    }

    @Test
    void aRewrittenKeyCountsOnce_withItsNewWeightAndAge() {
        RecentTurns<String, String> turns = new RecentTurns<>(100, 1_000, 2, nanos::get);
        turns.put("a", "old", 400);
        nanos.addAndGet(60);
        turns.put("a", "new", 100);
        turns.put("b", "rb", 100);
        assertThat(turns.size()).isEqualTo(2);
        assertThat(turns.weight()).isEqualTo(200);
        nanos.addAndGet(50); // 110 after the first write of a, 50 after the second
        assertThat(turns.get("a")).isEqualTo("new");
        turns.put("c", "rc", 100); // count bound 2: the oldest live entry, a, goes
        assertThat(turns.get("a")).isNull();
        assertThat(turns.get("b")).isEqualTo("rb");
        assertThat(turns.get("c")).isEqualTo("rc");
        assertThat(turns.weight()).isEqualTo(200);
    }
}
