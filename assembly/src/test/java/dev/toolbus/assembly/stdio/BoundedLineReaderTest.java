package dev.toolbus.assembly.stdio;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BoundedLineReaderTest {

    private static List<BoundedLineReader.Line> readAll(String input, int max) throws IOException {
        BoundedLineReader r = new BoundedLineReader(
                new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), max);
        List<BoundedLineReader.Line> lines = new ArrayList<>();
        BoundedLineReader.Line l;
        while ((l = r.next()) != null) {
            lines.add(l);
        }
        return lines;
    }

    private static String text(BoundedLineReader.Line l) {
        return new String(l.bytes(), StandardCharsets.UTF_8);
    }

    @Test
    void next_splitsOnNewlineAndStripsCarriageReturn() throws IOException {
        List<BoundedLineReader.Line> lines = readAll("a\r\nbb\n\nccc", 10);

        assertThat(lines).extracting(BoundedLineReaderTest::text).containsExactly("a", "bb", "", "ccc");
        assertThat(lines).noneMatch(BoundedLineReader.Line::overlong);
    }

    @Test
    void next_emptyInput_isEndOfInput() throws IOException {
        assertThat(readAll("", 10)).isEmpty();
    }

    @Test
    void next_lineOfExactlyTheLimit_isAccepted() throws IOException {
        List<BoundedLineReader.Line> lines = readAll("12345\n12345\r\n123456\n", 5);

        assertThat(lines).extracting(BoundedLineReader.Line::overlong).containsExactly(false, false, true);
        assertThat(lines.get(2).length()).isEqualTo(6);
    }

    @Test
    void next_overlongLine_isSkippedWithItsPrefixAndTheNextLineIsRead() throws IOException {
        String big = "{\"stream_id\":\"s1\",\"x\":\"" + "y".repeat(200_000) + "\"}";
        List<BoundedLineReader.Line> lines = readAll(big + "\nnext\n", 1024);

        assertThat(lines).hasSize(2);
        assertThat(lines.get(0).overlong()).isTrue();
        assertThat(lines.get(0).length()).isEqualTo(big.length());
        assertThat(lines.get(0).bytes()).hasSizeLessThanOrEqualTo(BoundedLineReader.PREFIX_BYTES);
        assertThat(text(lines.get(0))).startsWith("{\"stream_id\":\"s1\"");
        assertThat(text(lines.get(1))).isEqualTo("next");
    }

    @Test
    void next_endlessLine_readsOnWithoutHoldingIt() throws IOException {
        // 64 MiB of one line must not be buffered: a 1 KiB bound keeps memory flat
        long total = 64L * 1024 * 1024;
        InputStream endless = new InputStream() {
            long left = total;

            @Override
            public int read() {
                return left-- > 0 ? 'x' : (left == -1 ? '\n' : -1);
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (left <= 0) {
                    return left-- == 0 ? put(b, off) : -1;
                }
                int n = (int) Math.min(len, left);
                java.util.Arrays.fill(b, off, off + n, (byte) 'x');
                left -= n;
                return n;
            }

            private int put(byte[] b, int off) {
                b[off] = '\n';
                return 1;
            }
        };
        BoundedLineReader r = new BoundedLineReader(endless, 1024);

        BoundedLineReader.Line line = r.next();

        assertThat(line.overlong()).isTrue();
        assertThat(line.length()).isEqualTo(total);
        assertThat(r.next()).isNull();
    }

    @Test
    void next_multibyteCharacters_countBytes() throws IOException {
        List<BoundedLineReader.Line> lines = readAll("工具工具\n工具工具x\n", 12);

        assertThat(lines).extracting(BoundedLineReader.Line::overlong).containsExactly(false, true);
        assertThat(text(lines.get(0))).isEqualTo("工具工具");
    }
}
