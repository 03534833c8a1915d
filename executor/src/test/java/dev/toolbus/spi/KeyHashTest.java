package dev.toolbus.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
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

    /**
     * The hash gathers ASCII parts by hand and the rest with the JDK's encoder: checked against hashing the
     * parts' {@code getBytes(UTF_8)} on 20,000 random lists of parts (ASCII, other BMP text, surrogate
     * pairs, lone surrogates; some longer than the buffer a thread keeps).
     */
    @Test
    void randomPartsHashAsTheirUtf8BytesDo() throws Exception {
        Random random = new Random(24);
        char[] alphabet = {'a', 'Z', '0', ':', '~', '\u00e4', '\u4e2d', '\ud83d', '\ude00', '\u007f', '\u0080'};
        for (int round = 0; round < 20_000; round++) {
            String[] parts = new String[1 + random.nextInt(4)];
            for (int p = 0; p < parts.length; p++) {
                int n = random.nextInt(50) == 0 ? 1500 + random.nextInt(2000) : random.nextInt(40);
                StringBuilder b = new StringBuilder(n);
                boolean ascii = random.nextBoolean();
                for (int i = 0; i < n; i++) {
                    b.append(alphabet[random.nextInt(ascii ? 5 : alphabet.length)]);
                }
                parts[p] = b.toString();
            }
            assertThat(KeyHash.hex(parts)).as("round %d", round).isEqualTo(reference(parts));
        }
    }

    /** SHA-256 over each part's four-byte big-endian UTF-8 length and its {@code getBytes(UTF_8)}. */
    private static String reference(String... parts) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        for (String p : parts) {
            byte[] b = p.getBytes(StandardCharsets.UTF_8);
            md.update(new byte[] {(byte) (b.length >>> 24), (byte) (b.length >>> 16), (byte) (b.length >>> 8),
                    (byte) b.length});
            md.update(b);
        }
        return HexFormat.of().formatHex(md.digest());
    }
}
