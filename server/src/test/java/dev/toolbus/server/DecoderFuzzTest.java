package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.toolbus.bus.tck.EventMutator;
import dev.toolbus.metrics.ExecutorHealth;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.executor.state.TurnLedgerSettings;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.EventDecodeException;
import dev.toolbus.protocol.InboundEvent;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.spi.TurnStateSettings;
import dev.toolbus.assembly.samples.SampleTools;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 9: random and mutated events against the codec and the executor with the sample tools, for a
 * bounded time ({@code -Dfuzz.seconds}, default 10; replay with {@code -Dfuzz.seed}). Every input is
 * either decoded and answered with events that encode, or refused with an {@code EventDecodeException}
 * whose error event encodes; nothing else escapes, no slot stays held, the heap stays flat.
 */
class DecoderFuzzTest {

    @Test
    void everyInputIsAnsweredOrRefusedAndNothingLeaks() {
        long seed = Long.getLong("fuzz.seed", System.nanoTime());
        Duration budget = Duration.ofSeconds(Integer.getInteger("fuzz.seconds", 10));
        EventCodec codec = EventCodec.defaults();
        EventMutator mutator = new EventMutator(seed);
        // The executor's caches are bounded far below the heap bound, so filling them cannot pass for a leak
        // (by default the result cache, the turn ledger and the call journal may hold 64 MiB each, cut results 32 MiB).
        ExecutionSettings settings = ExecutionSettings.builder()
                .cacheMaxBytes(4L << 20).resultStoreMaxBytes(4L << 20).build();
        TurnLedgerSettings ledger = TurnLedgerSettings.builder().maxBytes(4L << 20).build();
        try (ToolExecutor executor = ToolExecutor.builder().tools(new SampleTools().specs())
                .settings(settings).idempotency(ledger).turnStateSettings(TurnStateSettings.builder()
                        .journalMaxBytes(2L << 20).requestsMaxBytes(1L << 20).cutResultsMaxBytes(1L << 20).build())
                .build()) {
            long[] decoded = {0};
            long[] heapAtWarmup = {-1};
            assertTimeoutPreemptively(budget.plusSeconds(60), () -> {
                long end = System.nanoTime() + budget.toNanos();
                long warmup = System.nanoTime() + budget.toNanos() / 4;
                while (System.nanoTime() < end) {
                    byte[] input = mutator.next();
                    String shown = "seed " + seed + ", input " + mutator.count() + ": "
                            + abbreviate(new String(input, StandardCharsets.UTF_8));
                    InboundEvent event;
                    try {
                        event = codec.decode(input);
                    } catch (EventDecodeException e) {
                        assertThat(codec.encode(e.toErrorEvent())).as(shown).startsWith("{\"type\":\"error\"");
                        continue;
                    } catch (RuntimeException e) {
                        throw new AssertionError("decode threw " + e + " (" + shown + ")", e);
                    }
                    decoded[0]++;
                    List<OutboundEvent> answer = executor.handle(event).collectList().block(Duration.ofSeconds(40));
                    assertThat(answer).as(shown).isNotEmpty();
                    for (OutboundEvent o : answer) {
                        assertThat(codec.encode(o)).as(shown).isNotEmpty();
                    }
                    if (heapAtWarmup[0] < 0 && System.nanoTime() > warmup) {
                        heapAtWarmup[0] = usedHeapAfterGc();
                    }
                }
            });
            long heapAtEnd = usedHeapAfterGc();
            ExecutorHealth h = executor.health();
            assertThat(h.slotsInUse()).as("seed %d", seed).isZero();
            assertThat(h.queuedCalls()).isZero();
            assertThat(h.activeTurns()).isZero();
            assertThat(mutator.count()).as("inputs tried").isGreaterThan(500);
            assertThat(decoded[0]).as("inputs decoded").isGreaterThan(50);
            if (heapAtWarmup[0] > 0) {
                assertThat(heapAtEnd).as("heap after GC grows by less than 32 MiB, caches bounded at 16 MiB (seed %d)", seed)
                        .isLessThan(heapAtWarmup[0] + 32L * 1024 * 1024);
            }
        }
    }

    private static long usedHeapAfterGc() {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return rt.totalMemory() - rt.freeMemory();
    }

    private static String abbreviate(String s) {
        return s.length() > 300 ? s.substring(0, 300) + "… (" + s.length() + " chars)" : s;
    }
}
