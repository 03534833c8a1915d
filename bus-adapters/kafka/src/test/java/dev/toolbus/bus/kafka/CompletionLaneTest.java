package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CompletionLaneTest {

    @Test
    void tasksRunOnTheLanesOwnThread_inTheOrderTheyCame_oneAtATime() throws Exception {
        try (CompletionLane lane = new CompletionLane("lane-test")) {
            int threads = 4;
            int each = 5_000;
            List<int[]> seen = new CopyOnWriteArrayList<>();
            Set<String> ranOn = ConcurrentHashMap.newKeySet();
            AtomicInteger running = new AtomicInteger();
            AtomicInteger overlaps = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            Thread[] producers = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                int id = t;
                producers[t] = new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = 0; i < each; i++) {
                        int n = i;
                        lane.execute(() -> {
                            if (running.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            ranOn.add(Thread.currentThread().getName());
                            seen.add(new int[] {id, n});
                            running.decrementAndGet();
                        });
                    }
                }, "submitter-" + t);
                producers[t].start();
            }
            go.countDown();
            for (Thread p : producers) {
                p.join();
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == threads * each);
            assertThat(ranOn).containsExactly("lane-test");
            assertThat(overlaps.get()).isZero();
            int[] next = new int[threads];
            for (int[] s : seen) {
                assertThat(s[1]).as("task of submitter %d", s[0]).isEqualTo(next[s[0]]++);
            }
        }
    }

    @Test
    void aFailingTask_doesNotStopTheLane() {
        try (CompletionLane lane = new CompletionLane("lane-test")) {
            AtomicInteger ran = new AtomicInteger();
            lane.execute(() -> {
                throw new IllegalStateException("boom");
            });
            lane.execute(ran::incrementAndGet);
            await().atMost(Duration.ofSeconds(5)).until(() -> ran.get() == 1);
        }
    }

    @Test
    void aTaskAfterClose_stillRuns_offTheCallersThread() {
        CompletionLane lane = new CompletionLane("lane-test");
        lane.close();
        Set<Thread> ranOn = ConcurrentHashMap.newKeySet();
        lane.execute(() -> ranOn.add(Thread.currentThread()));
        await().atMost(Duration.ofSeconds(5)).until(() -> ranOn.size() == 1);
        assertThat(ranOn).doesNotContain(Thread.currentThread());
    }
}
