package dev.toolbus.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class CallContextBuilderTest {

    @Test
    void has_no_public_constructor_and_round_trips_through_its_builder() {
        assertThat(CallContext.class.getConstructors()).as("eight strings in a row read either way").isEmpty();
        CallContext built = CallContext.builder().userId("42").groupId("g").platform("qq").permission("admin")
                .channel("qq").provider("openai").model("m").agentId("main").put("approval_mode", "auto").build();
        CallContext same = CallContext.builder().userId("42").groupId("g").platform("qq").permission("admin")
                .channel("qq").provider("openai").model("m").agentId("main").putAll(Map.of("approval_mode", "auto"))
                .build();
        assertThat(built).isEqualTo(same).hasSameHashCodeAs(same);
        assertThat(built.toBuilder().build()).isEqualTo(built);
        assertThat(built.toBuilder().permission("owner").build().permission()).isEqualTo("owner");
        assertThat(built.extra()).containsEntry("approval_mode", "auto");
    }

    @Test
    void unset_fields_are_empty() {
        CallContext c = CallContext.builder().userId("u").build();
        assertThat(c.permission()).isEmpty();
        assertThat(c.extra()).isEmpty();
        assertThat(c).isEqualTo(CallContext.builder().userId("u").build());
    }
}
