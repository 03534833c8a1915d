package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Issue 9: the sidecar notices that nobody reads its stdout any more and exits 1 (docs/cli.md). */
class BrokenStdoutIT {

    private ToolbusProcess sidecar;

    @AfterEach
    void stop() {
        if (sidecar != null) {
            sidecar.close();
        }
    }

    private static String turn(String turnId) {
        return "{\"type\":\"tool_call\",\"stream_id\":\"s\",\"turn_id\":\"" + turnId
                + "\",\"tool_call_id\":\"c\",\"name\":\"add\",\"arguments\":{\"a\":2,\"b\":40}}";
    }

    @Test
    void aClosedStdoutEndsTheSidecarWithExitCode1() throws Exception {
        sidecar = ToolbusProcess.start("sidecar-broken-stdout", "serve", "--bus=stdio", "--sample-tools");
        sidecar.send(turn("t1"));
        await().atMost(Duration.ofSeconds(60)).until(() -> sidecar.lines().size() >= 2);
        sidecar.closeOutput();
        // The next answers meet the closed pipe; stdin stays open, so only the broken output can end it.
        // The pipe's read end is released only once this JVM's reader thread returns from the read it was
        // blocked in, and answers written before that still fit in the pipe: so turns keep coming (one per
        // poll) until the sidecar is gone, as a bot core would keep sending.
        int[] next = {2};
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
            if (!sidecar.alive()) {
                return true;
            }
            try {
                sidecar.send(turn("t" + next[0]++));
            } catch (java.io.UncheckedIOException stdinClosed) {
                return true;
            }
            return false;
        });
        int exit = sidecar.awaitExit(Duration.ofSeconds(60));
        assertThat(exit).isEqualTo(1);
        assertThat(sidecar.stderr()).contains("writing to the output failed");
    }
}
