package dev.toolbus.executor.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * The bound and the queue of {@link Slots}, including a release that skips the drain when nothing is
 * queued: a task queued concurrently with such a release must still run.
 */
class SlotsTest {

    @Test
    void aSynchronousChainRunsInOrderAndLeavesNothingHeld() {
        Slots slots = new Slots(1);
        List<Integer> ran = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            int n = i;
            assertThat(slots.submit(() -> {
                ran.add(n);
                slots.release();
            }, 10)).isTrue();
        }
        assertThat(ran).hasSize(1_000);
        assertThat(slots.inUse()).isZero();
        assertThat(slots.queued()).isZero();
    }

    @Test
    void aTaskQueuedBehindAHeldSlotRunsOnRelease() {
        Slots slots = new Slots(1);
        List<String> ran = new ArrayList<>();
        slots.submit(() -> ran.add("held"), 10);
        slots.submit(() -> {
            ran.add("queued");
            slots.release();
        }, 10);
        assertThat(ran).containsExactly("held");
        assertThat(slots.queued()).isOne();
        slots.release();
        assertThat(ran).containsExactly("held", "queued");
        assertThat(slots.inUse()).isZero();
        assertThat(slots.queued()).isZero();
    }

    /** Two threads submit, tasks release on a third: every task runs, never more than the bound at once. */
    @RepeatedTest(20)
    void concurrentSubmitsAndReleasesLoseNoTaskAndKeepTheBound() throws Exception {
        int size = 2;
        int perThread = 20_000;
        Slots slots = new Slots(size);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger maxRunning = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        ConcurrentLinkedQueue<Boolean> toRelease = new ConcurrentLinkedQueue<>();
        CountDownLatch go = new CountDownLatch(1);
        Runnable submitter = () -> {
            try {
                go.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            for (int i = 0; i < perThread; i++) {
                boolean sync = (i & 1) == 0;
                slots.submit(() -> {
                    int r = running.incrementAndGet();
                    maxRunning.accumulateAndGet(r, Math::max);
                    if (sync) {
                        running.decrementAndGet();
                        done.incrementAndGet();
                        slots.release();
                    } else {
                        toRelease.add(Boolean.TRUE);
                    }
                }, Integer.MAX_VALUE);
            }
        };
        Thread a = new Thread(submitter);
        Thread b = new Thread(submitter);
        Thread releaser = new Thread(() -> {
            while (done.get() < 2 * perThread && !Thread.currentThread().isInterrupted()) {
                if (toRelease.poll() != null) {
                    running.decrementAndGet();
                    done.incrementAndGet();
                    slots.release();
                } else {
                    Thread.onSpinWait();
                }
            }
        });
        a.start();
        b.start();
        releaser.start();
        go.countDown();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> done.get() == 2 * perThread);
        } finally {
            releaser.interrupt();
            a.join();
            b.join();
            releaser.join();
        }
        assertThat(maxRunning.get()).isLessThanOrEqualTo(size);
        assertThat(slots.inUse()).isZero();
        assertThat(slots.queued()).isZero();
    }

    /**
     * A task submitted while another thread's task runs, with a slot free, runs at once on its own
     * thread: not queued behind the running task to be run later by that task's thread (an event loop
     * would then write another connection's events).
     */
    @Test
    void aTaskSubmittedWhileAnotherThreadsTaskRunsRunsAtOnceOnItsOwnThread() throws Exception {
        Slots slots = new Slots(2);
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch letFirstEnd = new CountDownLatch(1);
        Thread first = new Thread(() -> slots.submit(() -> {
            firstRunning.countDown();
            try {
                letFirstEnd.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            slots.release();
        }, 10), "first");
        first.start();
        try {
            assertThat(firstRunning.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            Thread[] ranOn = new Thread[1];
            assertThat(slots.submit(() -> {
                ranOn[0] = Thread.currentThread();
                slots.release();
            }, 10)).isTrue();
            assertThat(ranOn[0]).as("ran before submit returned, on the submitting thread")
                    .isSameAs(Thread.currentThread());
            assertThat(slots.queued()).isZero();
        } finally {
            letFirstEnd.countDown();
            first.join();
        }
        assertThat(slots.inUse()).isZero();
    }
}
