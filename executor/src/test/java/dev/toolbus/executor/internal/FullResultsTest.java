package dev.toolbus.executor.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.settings.ResultLimits;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Issue 11.4: the store of full texts is per stream, expires, and is bounded in bytes and entries. */
class FullResultsTest {

    private final AtomicLong nanos = new AtomicLong();

    @Test
    void aTextIsReadableOnlyFromItsOwnStream() {
        FullResults store = new FullResults(ResultLimits.DEFAULTS, nanos::get);
        assertThat(store.put("qq:group:1", "call_1", "mine", 100)).isTrue();
        assertThat(store.get("qq:group:1", "call_1").text()).isEqualTo("mine");
        assertThat(store.get("qq:group:2", "call_1")).isNull();
        // the same call id on another stream is another entry
        store.put("qq:group:2", "call_1", "theirs", 100);
        assertThat(store.get("qq:group:1", "call_1").text()).isEqualTo("mine");
        assertThat(store.get("qq:group:2", "call_1").text()).isEqualTo("theirs");
    }

    @Test
    void aTextExpiresAfterTheTtl() {
        ResultLimits l = ResultLimits.builder().storeTtl(Duration.ofMinutes(5)).build();
        FullResults store = new FullResults(l, nanos::get);
        store.put("s", "c", "text", 100);
        nanos.addAndGet(Duration.ofMinutes(5).minusMillis(1).toNanos());
        assertThat(store.get("s", "c")).isNotNull();
        nanos.addAndGet(Duration.ofMillis(2).toNanos());
        assertThat(store.get("s", "c")).isNull();
    }

    @Test
    void theStoreStaysWithinItsBytes() {
        ResultLimits l = ResultLimits.builder().storeMaxBytes(100_000).storeMaxEntries(1_000).build();
        FullResults store = new FullResults(l, nanos::get);
        for (int i = 0; i < 100; i++) {
            assertThat(store.put("s", "c" + i, "x".repeat(5_000), 100)).isTrue();
        }
        assertThat(store.weight()).isLessThanOrEqualTo(100_000);
        assertThat(store.size()).isLessThanOrEqualTo(10);
        // more than a quarter of the bound is refused
        assertThat(store.put("s", "big", "x".repeat(12_500), 100)).isFalse();
        assertThat(store.get("s", "big")).isNull();
    }

    @Test
    void theStoreStaysWithinItsEntries() {
        ResultLimits l = ResultLimits.builder().storeMaxBytes(1_000_000).storeMaxEntries(10).build();
        FullResults store = new FullResults(l, nanos::get);
        for (int i = 0; i < 100; i++) {
            store.put("s", "c" + i, "tiny", 100);
        }
        assertThat(store.size()).isLessThanOrEqualTo(10);
    }
}
