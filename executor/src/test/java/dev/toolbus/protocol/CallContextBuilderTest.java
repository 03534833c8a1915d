package dev.toolbus.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class CallContextBuilderTest {

    @Test
    void builds_the_same_context_as_the_positional_constructor() {
        CallContext built = CallContext.builder().userId("42").groupId("g").platform("qq").permission("admin")
                .channel("qq").provider("openai").model("m").agentId("main").put("approval_mode", "auto").build();
        CallContext positional = new CallContext("42", "g", "qq", "admin", "qq", "openai", "m", "main",
                Map.of("approval_mode", "auto"));
        assertThat(built).isEqualTo(positional);
    }

    @Test
    void unset_fields_are_empty() {
        CallContext c = CallContext.builder().userId("u").build();
        assertThat(c.permission()).isEmpty();
        assertThat(c.extra()).isEmpty();
        assertThat(c).isEqualTo(new CallContext("u", null, null, null, null, null, null, null, null));
    }
}
