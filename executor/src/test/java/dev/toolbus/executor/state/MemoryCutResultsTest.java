package dev.toolbus.executor.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.spi.CutKey;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.TurnStateSettings;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Issue 11.4, kept by the turn state: full texts per principal and stream, expiring, bounded in bytes and entries. */
class MemoryCutResultsTest {

    private final AtomicLong nanos = new AtomicLong();
    private final Principal p = Principal.local();

    private MemoryCutResults store(TurnStateSettings s) {
        return new MemoryCutResults(s, nanos::get);
    }

    private static CutKey key(String stream, String id) {
        return CutKey.of(Principal.local(), stream, id);
    }

    @Test
    void aTextIsReadableOnlyFromItsOwnStream() {
        MemoryCutResults store = store(TurnStateSettings.DEFAULTS);
        assertThat(store.put(key("qq:group:1", "call_1"), "mine", 100).block()).isTrue();
        assertThat(store.get(key("qq:group:1", "call_1")).block().text()).isEqualTo("mine");
        assertThat(store.get(key("qq:group:2", "call_1")).block()).isNull();
        // the same call id on another stream is another entry
        store.put(key("qq:group:2", "call_1"), "theirs", 100).block();
        assertThat(store.get(key("qq:group:1", "call_1")).block().text()).isEqualTo("mine");
        assertThat(store.get(key("qq:group:2", "call_1")).block().text()).isEqualTo("theirs");
        assertThat(store.get(CutKey.of(Principal.token("t").build(), "qq:group:1", "call_1")).block())
                .as("another principal on the same stream").isNull();
    }

    @Test
    void aTextExpiresAfterTheTtl() {
        MemoryCutResults store = store(TurnStateSettings.builder().cutResultsTtl(Duration.ofMinutes(5)).build());
        store.put(key("s", "c"), "text", 100).block();
        nanos.addAndGet(Duration.ofMinutes(5).minusMillis(1).toNanos());
        assertThat(store.get(key("s", "c")).block()).isNotNull();
        nanos.addAndGet(Duration.ofMillis(2).toNanos());
        assertThat(store.get(key("s", "c")).block()).isNull();
    }

    @Test
    void theStoreStaysWithinItsBytes() {
        MemoryCutResults store = store(TurnStateSettings.builder().cutResultsMaxBytes(100_000)
                .cutResultsMaxEntries(1_000).cutResultsPerStream(1_000).build());
        for (int i = 0; i < 100; i++) {
            assertThat(store.put(key("s", "c" + i), "x".repeat(5_000), 100).block()).isTrue();
        }
        assertThat(store.bytes()).isLessThanOrEqualTo(100_000);
        assertThat(store.size()).isLessThanOrEqualTo(10);
        // more than a quarter of the bound is refused
        assertThat(store.put(key("s", "big"), "x".repeat(12_500), 100).block()).isFalse();
        assertThat(store.get(key("s", "big")).block()).isNull();
    }

    @Test
    void theStoreStaysWithinItsEntries_andItsStreamIndexGoesWithItsTexts() {
        MemoryCutResults store = store(TurnStateSettings.builder().cutResultsMaxBytes(1_000_000).cutResultsMaxEntries(10)
                .build());
        for (int i = 0; i < 100; i++) {
            store.put(key("s" + i, "c"), "tiny", 100).block();
        }
        assertThat(store.size()).isLessThanOrEqualTo(10);
        assertThat(store.streams()).isLessThanOrEqualTo(10);
        nanos.addAndGet(TurnStateSettings.DEFAULT_CUT_RESULTS_TTL.plusSeconds(1).toNanos());
        assertThat(store.size()).isZero();
        assertThat(store.streams()).as("the per-stream order lives only while a stream has texts").isZero();
    }
}
