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
        // the next answers meet the closed pipe; stdin stays open, so only the broken output can end it
        for (int i = 2; i <= 5 && sidecar.alive(); i++) {
            try {
                sidecar.send(turn("t" + i));
            } catch (java.io.UncheckedIOException stdinClosed) {
                break;
            }
        }
        int exit = sidecar.awaitExit(Duration.ofSeconds(60));
        assertThat(exit).isEqualTo(1);
        assertThat(sidecar.stderr()).contains("writing to the output failed");
    }
}
