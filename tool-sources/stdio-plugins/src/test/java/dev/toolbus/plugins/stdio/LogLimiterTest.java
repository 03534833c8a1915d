package dev.toolbus.plugins.stdio;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LogLimiterTest {

    @Test
    void admit_allowsTheBurstThenTheRate_andCountsWhatItDrops() {
        AtomicLong now = new AtomicLong();
        LogLimiter l = new LogLimiter(1000, now::get);
        int admitted = 0;
        for (int i = 0; i < 100; i++) {
            admitted += l.admit(100) ? 1 : 0;
        }
        assertThat(admitted).isEqualTo(10);
        assertThat(l.droppedLines()).isEqualTo(90);
        assertThat(l.droppedBytes()).isEqualTo(9000);
        assertThat(l.takeDroppedSinceReport()).isEqualTo(90);
        assertThat(l.takeDroppedSinceReport()).isZero();

        now.addAndGet(500_000_000L); // half a second refills half the bucket
        admitted = 0;
        for (int i = 0; i < 100; i++) {
            admitted += l.admit(100) ? 1 : 0;
        }
        assertThat(admitted).isEqualTo(5);
        now.addAndGet(60_000_000_000L); // a long pause refills no more than the burst
        admitted = 0;
        for (int i = 0; i < 100; i++) {
            admitted += l.admit(100) ? 1 : 0;
        }
        assertThat(admitted).isEqualTo(10);
        assertThat(l.loggedBytes()).isEqualTo(2500);
    }

    @Test
    void admit_aLineLargerThanTheBucketIsNeverLogged() {
        LogLimiter l = new LogLimiter(100, () -> 0L);
        assertThat(l.admit(101)).isFalse();
        assertThat(l.admit(0)).isTrue(); // an empty line costs one byte
    }
}
