package dev.toolbus.executor.limits;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.TestTools;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;

/** The limit step's matching, and that a call no rule matches costs no allocation. */
class LimitStepTest {

    @Test
    void globsMatchLikeThePolicysIgnoringCase() {
        assertThat(LimitStep.Rule.glob("web_*", "WEB_search")).isTrue();
        assertThat(LimitStep.Rule.glob("*search*", "web_search_v2")).isTrue();
        assertThat(LimitStep.Rule.glob("a*b*c", "axxbyyc")).isTrue();
        assertThat(LimitStep.Rule.glob("a*b*c", "axxbyy")).isFalse();
        assertThat(LimitStep.Rule.glob("echo", "echo2")).isFalse();
        assertThat(LimitStep.Rule.glob("*", "")).isTrue();
        assertThat(LimitStep.Rule.glob("mcp:*", "mcp:github")).isTrue();
        assertThat(LimitStep.Rule.glob("ab", "a")).isFalse();
    }

    @Test
    void keysStaySmallWhateverTheIdsLength() {
        String longId = "u".repeat(100_000);
        String key = LimitStep.Rule.bounded(longId);
        assertThat(key.length()).isLessThanOrEqualTo(LimitStep.Rule.MAX_ID_CHARS);
        assertThat(LimitStep.Rule.bounded(longId + "x")).isNotEqualTo(key);
        assertThat(LimitStep.Rule.bounded("alice")).isEqualTo("alice");
        assertThat(LimitStep.Rule.bounded(null)).isEmpty();
    }

    @Test
    void aCallNoRuleMatchesAllocatesNothing() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertThat(mx.isThreadAllocatedMemorySupported()).isTrue();
        Limits limits = Limits.builder()
                .rule(LimitRule.builder("a").tools(List.of("web_*", "search")).rate(5))
                .rule(LimitRule.builder("b").plugins(List.of("browser")).concurrency(1))
                .rule(LimitRule.builder("c").users(List.of("vip-*")).maxCallsPerTurn(3)).build();
        Limits[] live = {Limits.NONE};
        LimitStep gate = LimitStep.create(() -> live[0], null, ToolRegistry.create(), System::nanoTime,
                Schedulers.immediate(), new SimpleMeterRegistry(), DescriptionLocale.EN, 100);
        ToolDefinition def = ToolDefinition.builder("echo").description("e").build();
        ToolCallsEvent turn = new ToolCallsEvent("s", "t", List.of(TestTools.call("c1", "echo", "{}")),
                dev.toolbus.protocol.CallContext.builder().userId("alice").build(), null);
        for (Limits l : new Limits[] {Limits.NONE, limits}) {
            live[0] = l;
            for (int i = 0; i < 20_000; i++) {
                assertThat(gate.admit(turn, 0, def, ToolSource.PLUGIN)).isSameAs(LimitAdmission.NONE);
            }
            long before = mx.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 10_000; i++) {
                if (gate.admit(turn, 0, def, ToolSource.PLUGIN) != LimitAdmission.NONE) {
                    throw new AssertionError("matched");
                }
            }
            long bytes = mx.getCurrentThreadAllocatedBytes() - before;
            // reading the counter allocates a little itself; 10,000 admissions must not add to it
            assertThat(bytes).as("bytes for 10000 unmatched calls with " + l.rules().size() + " rules")
                    .isLessThan(1024);
        }
    }
}
