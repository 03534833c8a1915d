package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.bus.tck.EventMutator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 9: random and mutated events thrown at a real {@code serve --bus stdio} (256 MiB heap) for a
 * bounded time ({@code -Dfuzz.seconds}, default 20; replay with {@code -Dfuzz.seed}): every non-blank
 * input line gets exactly one answer (an {@code error}, a {@code tools} or a {@code turn_completed}),
 * every output line is JSON, the process stays up and still answers at the end, exits 0 when its input
 * ends, and its heap after GC (from its own GC log) stays flat.
 */
class SidecarFuzzIT {

    private ToolbusProcess sidecar;

    @AfterEach
    void stop() {
        if (sidecar != null) {
            sidecar.close();
        }
    }

    private long answers() {
        long n = 0;
        for (JsonNode e : sidecar.events()) {
            String t = e.path("type").asText();
            if (t.equals("error") || t.equals("tools") || t.equals("turn_completed")) {
                n++;
            }
        }
        return n;
    }

    @Test
    void everyLineIsAnsweredAndTheSidecarStaysHealthy() throws Exception {
        long seed = Long.getLong("fuzz.seed", System.nanoTime());
        Duration budget = Duration.ofSeconds(Integer.getInteger("fuzz.seconds", 20));
        Path gcLog = Files.createDirectories(Path.of("target", "it-logs")).resolve("sidecar-fuzz.gc.log");
        Files.deleteIfExists(gcLog);
        sidecar = ToolbusProcess.start("sidecar-fuzz", List.of("-Xmx256m", "-Xlog:gc:file=" + gcLog), Map.of(),
                "serve", "--bus=stdio", "--sample-tools", "--log-level", "error");
        EventMutator mutator = new EventMutator(seed, 16 * 1024);
        long expected = 0;
        long end = System.nanoTime() + budget.toNanos();
        while (System.nanoTime() < end) {
            byte[] line = mutator.next();
            sidecar.sendRaw(concat(line));
            if (!EventMutator.blank(line)) {
                expected++;
            }
            if (mutator.count() % 100 == 0) {
                long want = expected;
                await().atMost(Duration.ofSeconds(60)).alias("seed " + seed + ": answers after " + mutator.count() + " inputs")
                        .until(() -> answers() >= want);
            }
        }
        long want = expected;
        await().atMost(Duration.ofSeconds(60)).until(() -> answers() >= want);
        assertThat(answers()).as("seed %d: one answer per non-blank line", seed).isEqualTo(expected);
        assertThat(mutator.count()).isGreaterThan(200);
        // still responsive
        sidecar.send("{\"type\":\"tool_call\",\"stream_id\":\"final\",\"name\":\"add\",\"arguments\":{\"a\":1,\"b\":2}}");
        await().atMost(Duration.ofSeconds(10)).until(() -> sidecar.events().stream()
                .anyMatch(e -> e.path("stream_id").asText().equals("final")
                        && e.path("type").asText().equals("turn_completed")));
        assertThat(sidecar.closeInput().awaitExit(Duration.ofSeconds(60))).as("seed %d", seed).isZero();
        assertThat(sidecar.stderr()).doesNotContain("OutOfMemoryError").doesNotContain("Exception in thread");
        List<Long> afterGc = heapAfterGc(gcLog);
        if (afterGc.size() >= 4) {
            long early = afterGc.subList(0, afterGc.size() / 2).stream().mapToLong(Long::longValue).min().orElseThrow();
            long late = afterGc.subList(afterGc.size() / 2, afterGc.size()).stream().mapToLong(Long::longValue).min()
                    .orElseThrow();
            assertThat(late).as("seed %d: heap after GC, MiB (early %d)", seed, early).isLessThan(early + 64);
        }
    }

    private static byte[] concat(byte[] line) {
        byte[] out = new byte[line.length + 1];
        System.arraycopy(line, 0, out, 0, line.length);
        out[line.length] = '\n';
        return out;
    }

    /** The heap in use after each collection, in MiB, from {@code -Xlog:gc} lines like {@code 23M->5M(256M)}. */
    private static List<Long> heapAfterGc(Path log) throws Exception {
        List<Long> out = new ArrayList<>();
        java.util.regex.Pattern p = java.util.regex.Pattern.compile("\\d+M->(\\d+)M\\(\\d+M\\)");
        for (String line : Files.readAllLines(log)) {
            Matcher m = p.matcher(line);
            if (m.find()) {
                out.add(Long.parseLong(m.group(1)));
            }
        }
        return out;
    }
}
