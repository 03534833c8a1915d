package dev.toolbus.assembly;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.ApprovalMode;
import dev.toolbus.executor.ApprovalSettings;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class ApprovalOverrideTest {

    @Test
    void overALiveConfig_recomputesOnlyWhenTheConfigChanges() {
        AtomicReference<ApprovalSettings> base = new AtomicReference<>(ApprovalSettings.builder().mode("off").build());
        Supplier<ApprovalSettings> live = new ApprovalOverride(base::get, b -> b.toBuilder().mode("ask").build());
        ApprovalSettings first = live.get();
        assertThat(first.mode()).isEqualTo(ApprovalMode.ASK);
        assertThat(live.get()).isSameAs(first);
        base.set(ApprovalSettings.builder().mode("auto").bypass(List.of("echo")).build());
        assertThat(live.get().mode()).as("the override wins after a reload").isEqualTo(ApprovalMode.ASK);
        assertThat(live.get().bypass()).containsExactly("echo");
    }
}
