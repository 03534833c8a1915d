package dev.toolbus.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The word-at-a-time scan of {@link EncodeBuffer#needsStringPath} answers as the plain byte loop does. */
class EncodeBufferScanTest {

    /** The byte loop the scan replaced, kept here as the reference. */
    private static boolean reference(byte[] b, int n) {
        for (int i = 0; i < n; i++) {
            byte c = b[i];
            if (c == '\n' || c == '\r') {
                return true;
            }
            if (c == '\\' && i + 1 < n) {
                byte next = b[i + 1];
                if (next == 'u' && i + 2 < n && (b[i + 2] == 'D' || b[i + 2] == 'd')) {
                    return true;
                }
                i++;
            }
        }
        return false;
    }

    @Test
    void randomBytes_fromAnAlphabetOfTheBytesItLooksFor_agreeWithTheByteLoop_atEveryLengthAndOffset() {
        // the bytes the scan looks for, their neighbours in value, and bytes with the high bit set
        byte[] alphabet = "\\\\\\u\\uDdD\n\r\u000b\u000c[]]a\"".getBytes(StandardCharsets.ISO_8859_1);
        byte[] high = {(byte) 0x8a, (byte) 0x8d, (byte) 0xdc, (byte) 0xff, (byte) 0x80};
        SplittableRandom random = new SplittableRandom(24);
        int matches = 0;
        for (int round = 0; round < 200_000; round++) {
            int n = random.nextInt(40);
            byte[] b = new byte[n + random.nextInt(9)]; // bytes past n must not count
            for (int i = 0; i < b.length; i++) {
                int pick = random.nextInt(100);
                b[i] = pick < 12 ? high[random.nextInt(high.length)]
                        : pick < 40 ? alphabet[random.nextInt(alphabet.length)] : (byte) ('a' + random.nextInt(26));
            }
            boolean expected = reference(b, n);
            matches += expected ? 1 : 0;
            assertThat(EncodeBuffer.needsStringPath(b, n)).as("%s (n=%d)", new String(b, StandardCharsets.ISO_8859_1), n)
                    .isEqualTo(expected);
        }
        assertThat(matches).as("both answers occur").isBetween(20_000, 180_000);
    }

    @Test
    void anEscapeThatStraddlesAWordBoundary_isSeen_andAnEscapedBackslashBeforeUD_isNot() {
        for (int pad = 0; pad < 17; pad++) {
            String p = "x".repeat(pad);
            assertThat(scan(p + "\\uD83D")).as("pad %d", pad).isTrue();
            assertThat(scan(p + "\\\\uD83D")).as("pad %d", pad).isFalse();
            assertThat(scan(p + "\\\\\\uDE00")).as("pad %d", pad).isTrue();
            assertThat(scan(p + "end\\")).as("pad %d", pad).isFalse();
            assertThat(scan(p + "a\nb")).as("pad %d", pad).isTrue();
        }
    }

    private static boolean scan(String s) {
        byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
        assertThat(EncodeBuffer.needsStringPath(b, b.length)).isEqualTo(reference(b, b.length));
        return EncodeBuffer.needsStringPath(b, b.length);
    }
}
