package dev.toolbus.assembly;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.approval.ApprovalMode;
import dev.toolbus.executor.approval.ApprovalSettings;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class ApprovalOverrideTest {

    @Test
    void overALiveConfig_recomputesOnlyWhenTheConfigChanges() {
        AtomicReference<ApprovalSettings> base = new AtomicReference<>(ApprovalSettings.builder().mode(ApprovalMode.OFF).build());
        Supplier<ApprovalSettings> live = new ApprovalOverride(base::get, b -> b.toBuilder().mode(ApprovalMode.ASK).build());
        ApprovalSettings first = live.get();
        assertThat(first.mode()).isEqualTo(ApprovalMode.ASK);
        assertThat(live.get()).isSameAs(first);
        base.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).bypass(List.of("echo")).build());
        assertThat(live.get().mode()).as("the override wins after a reload").isEqualTo(ApprovalMode.ASK);
        assertThat(live.get().bypass()).containsExactly("echo");
    }
}
