package dev.toolbus.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The key scheme every turn-state store relies on: fixed vectors, so a change of it cannot pass unseen. */
class KeyHashTest {

    @Test
    void sha256OverLengthPrefixedUtf8Parts() {
        // vectors computed apart (Python hashlib over 4-byte big-endian lengths and UTF-8 bytes)
        assertThat(KeyHash.hex("s1")).isEqualTo("f83938f3cd665a4794e6cc9ba298d5a5dccf0065851ef5eaa4c735d9aa23e837");
        assertThat(KeyHash.hex("tok", "stream", "turn-1"))
                .isEqualTo("ad8cc7e4afe2cfd3ecf96865c9c22193ece0c3040f358db01e628c49bfa853fa");
        assertThat(KeyHash.hex("ä", "b")).isEqualTo("6a4b6a8012bca99654c7c298e4fdcd16b2c94802fc020cbde3ba65f188da8bd9");
        assertThat(KeyHash.hex(16, "s1")).isEqualTo("f83938f3cd665a47");
    }

    @Test
    void partsAreNotConcatenated() {
        assertThat(KeyHash.hex("a:b", "c")).isNotEqualTo(KeyHash.hex("a", "b:c"));
        assertThat(KeyHash.hex("ab")).isNotEqualTo(KeyHash.hex("a", "b"));
    }

    @Test
    void aFailedHashLeavesNothingBehindForTheNext() {
        assertThatThrownBy(() -> KeyHash.hex("s1", null)).isInstanceOf(NullPointerException.class);
        assertThat(KeyHash.hex("s1")).isEqualTo("f83938f3cd665a4794e6cc9ba298d5a5dccf0065851ef5eaa4c735d9aa23e837");
    }

    @Test
    void everyThreadGetsTheSameHash() {
        String here = KeyHash.hex("tok", "stream", "turn-1");
        assertThat(CompletableFuture.supplyAsync(() -> KeyHash.hex("tok", "stream", "turn-1")).join()).isEqualTo(here);
    }
}
