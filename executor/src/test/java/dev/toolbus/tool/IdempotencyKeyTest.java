package dev.toolbus.tool;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class IdempotencyKeyTest {

    private static ToolContext ctx(String stream, String turn, String call, int attempt) {
        return ToolContext.builder().streamId(stream).turnId(turn).toolCallId(call).attempt(attempt).build();
    }

    @Test
    void sameCallSameKey_onEveryAttempt() {
        assertThat(ctx("s", "t1", "c1", 1).idempotencyKey())
                .isEqualTo(ctx("s", "t1", "c1", 3).idempotencyKey())
                .hasSize(64)
                .matches("[0-9a-f]+");
    }

    @Test
    void differentCallsDifferentKeys_evenWhenTheIdsConcatenateAlike() {
        assertThat(ctx("s", "t1", "c1", 1).idempotencyKey()).isNotEqualTo(ctx("s", "t1", "c2", 1).idempotencyKey());
        assertThat(ctx("ab", "c", "d", 1).idempotencyKey()).isNotEqualTo(ctx("a", "bc", "d", 1).idempotencyKey());
    }
}
