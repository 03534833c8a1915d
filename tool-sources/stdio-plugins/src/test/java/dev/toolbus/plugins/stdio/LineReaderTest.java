package dev.toolbus.plugins.stdio;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LineReaderTest {

    private static LineReader reader(String s, int max) {
        return new LineReader(new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8)), max);
    }

    @Test
    void next_splitsOnNewlinesAndDropsCarriageReturns() throws IOException {
        LineReader r = reader("a\r\n\nbé\nlast", 100);
        assertThat(r.next(false)).isEqualTo(new LineReader.Line("a", false));
        assertThat(r.next(false)).isEqualTo(new LineReader.Line("", false));
        assertThat(r.next(false)).isEqualTo(new LineReader.Line("bé", false));
        assertThat(r.next(false)).isEqualTo(new LineReader.Line("last", false));
        assertThat(r.next(false)).isNull();
    }

    @Test
    void next_overlongLineIsCutAtTheBoundAndReportedAtOnce() throws IOException {
        LineReader r = reader("x".repeat(50) + "\nok\n", 10);
        assertThat(r.next(false)).isEqualTo(new LineReader.Line("x".repeat(10), true));
    }

    @Test
    void next_skipRestDiscardsTheOverlongTailAndContinues() throws IOException {
        LineReader r = reader("x".repeat(20_000) + "\nok\n", 10);
        assertThat(r.next(true)).isEqualTo(new LineReader.Line("x".repeat(10), true));
        assertThat(r.next(true)).isEqualTo(new LineReader.Line("ok", false));
        assertThat(r.next(true)).isNull();
    }

    @Test
    void next_neverReadsMoreThanTheBoundOfAnEndlessLine() throws IOException {
        InputStream endless = new InputStream() {
            long served;

            @Override
            public int read() {
                served++;
                return 'y';
            }

            @Override
            public int read(byte[] b, int off, int len) {
                served += len;
                java.util.Arrays.fill(b, off, off + len, (byte) 'y');
                return len;
            }
        };
        LineReader r = new LineReader(endless, 1000);
        LineReader.Line line = r.next(false);
        assertThat(line.overlong()).isTrue();
        assertThat(line.text()).hasSize(1000);
    }

    @Test
    void next_exactlyTheBoundIsNotOverlong() throws IOException {
        LineReader r = reader("abcde\n", 5);
        assertThat(r.next(false)).isEqualTo(new LineReader.Line("abcde", false));
    }

    @Test
    void next_decodesOnlyTheLinesThePredicateAccepts() throws Exception {
        LineReader r = new LineReader(new java.io.ByteArrayInputStream("short\nmuch longer line\nok\n"
                .getBytes(java.nio.charset.StandardCharsets.UTF_8)), 100);
        java.util.function.IntPredicate upToFive = n -> n <= 5;
        assertThat(r.next(true, upToFive)).isEqualTo(new LineReader.Line("short", false));
        assertThat(r.next(true, upToFive)).isEqualTo(new LineReader.Line(null, false));
        assertThat(r.next(true, upToFive)).isEqualTo(new LineReader.Line("ok", false));
        assertThat(r.next(true, upToFive)).isNull();
    }
}
