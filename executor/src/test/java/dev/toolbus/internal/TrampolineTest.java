package dev.toolbus.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TrampolineTest {

    @Test
    void nestedTasksRunAfterTheCurrentOneInOrderWithoutRecursion() {
        List<String> order = new ArrayList<>();
        int[] depth = new int[1];
        Trampoline.run(() -> {
            order.add("a");
            Trampoline.run(() -> {
                order.add("c");
                Trampoline.run(() -> order.add("e"));
            });
            Trampoline.run(() -> order.add("d"));
            order.add("b");
        });
        assertThat(order).containsExactly("a", "b", "c", "d", "e");
        // a long chain of tasks each queuing the next does not grow the stack
        Trampoline.run(new Runnable() {
            int left = 10_000;

            @Override
            public void run() {
                depth[0] = Math.max(depth[0], Thread.currentThread().getStackTrace().length);
                if (--left > 0) {
                    Trampoline.run(this);
                }
            }
        });
        assertThat(depth[0]).isLessThan(200);
    }

    @Test
    void aFailingTaskDoesNotLoseTheTasksQueuedBehindIt() {
        List<String> ran = new ArrayList<>();
        Trampoline.run(() -> {
            Trampoline.run(() -> {
                throw new IllegalStateException("boom");
            });
            Trampoline.run(() -> ran.add("after"));
        });
        assertThat(ran).containsExactly("after");
        Trampoline.run(() -> ran.add("next time"));
        assertThat(ran).containsExactly("after", "next time");
    }
}
