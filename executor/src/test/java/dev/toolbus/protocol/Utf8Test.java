package dev.toolbus.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class Utf8Test {

    private static int check(int... bytes) {
        byte[] b = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            b[i] = (byte) bytes[i];
        }
        return Utf8.firstInvalid(b, 0, b.length);
    }

    @Test
    void firstInvalid_acceptsWellFormedText() {
        byte[] b = "a é 日本 😀 \u07FF \uFFFD".getBytes(StandardCharsets.UTF_8);
        assertThat(Utf8.firstInvalid(b, 0, b.length)).isEqualTo(-1);
        assertThat(check(0xF4, 0x8F, 0xBF, 0xBF)).isEqualTo(-1);
        assertThat(check(0xEE, 0x80, 0x80)).isEqualTo(-1);
    }

    @Test
    void firstInvalid_rejectsMalformedSequences() {
        assertThat(check(0x41, 0x80)).as("lone continuation").isEqualTo(1);
        assertThat(check(0xC0, 0x80)).as("overlong NUL").isZero();
        assertThat(check(0xE0, 0x80, 0x80)).as("overlong 3-byte").isZero();
        assertThat(check(0xF0, 0x80, 0x80, 0x80)).as("overlong 4-byte").isZero();
        assertThat(check(0xED, 0xA0, 0x80)).as("surrogate").isZero();
        assertThat(check(0xF4, 0x90, 0x80, 0x80)).as("above U+10FFFF").isZero();
        assertThat(check(0xF5, 0x80, 0x80, 0x80)).isZero();
        assertThat(check(0x41, 0xE6, 0x97)).as("truncated").isEqualTo(1);
        assertThat(check(0xE6, 0x41, 0x80)).as("bad continuation").isZero();
        assertThat(check(0x41, 0x00)).as("NUL").isEqualTo(1);
    }

    @Test
    void firstInvalid_agreesWithTheJdkOnRandomBytes() {
        Random r = new Random(42);
        for (int i = 0; i < 20_000; i++) {
            byte[] b = new byte[1 + r.nextInt(8)];
            r.nextBytes(b);
            boolean jdk = isValidJdk(b);
            boolean ours = Utf8.firstInvalid(b, 0, b.length) < 0;
            boolean hasNul = new String(b, StandardCharsets.ISO_8859_1).indexOf('\0') >= 0;
            assertThat(ours).as("bytes %s", java.util.HexFormat.of().formatHex(b)).isEqualTo(jdk && !hasNul);
        }
    }

    @Test
    void length_countsUtf8BytesWithoutEncoding() {
        String s = "aé日😀";
        assertThat(Utf8.length(s, Long.MAX_VALUE)).isEqualTo(s.getBytes(StandardCharsets.UTF_8).length);
        assertThat(Utf8.length("x".repeat(100), 10)).isEqualTo(11);
    }

    private static boolean isValidJdk(byte[] b) {
        try {
            StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(b));
            return true;
        } catch (java.nio.charset.CharacterCodingException e) {
            return false;
        }
    }
}
