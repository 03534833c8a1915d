package dev.toolbus.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolbus.protocol.Risk;
import dev.toolbus.tool.method.Tools;
import java.util.List;
import org.junit.jupiter.api.Test;

class ToolRiskTest {

    static final class Plugin {
        @Tool(name = "wipe", description = "Wipe", risk = Risk.HIGH, sideEffecting = true)
        public String wipe(@Param(description = "what") String target) {
            return "wiped " + target;
        }

        @Tool(name = "echo", description = "Echo")
        public String echo(@Param(description = "text") String text) {
            return text;
        }
    }

    static final class TwoRisks {
        @Tool(name = "odd", description = "Odd", risk = {Risk.LOW, Risk.HIGH})
        public String odd() {
            return "";
        }
    }

    @Test
    void annotationBuilderAndCopiesCarryTheDeclaredRisk() {
        List<ToolSpec> specs = Tools.fromObject(new Plugin());
        ToolDefinition wipe = specs.stream().filter(s -> s.name().equals("wipe")).findFirst().orElseThrow().definition();
        ToolDefinition echo = specs.stream().filter(s -> s.name().equals("echo")).findFirst().orElseThrow().definition();
        assertThat(wipe.risk()).isEqualTo(Risk.HIGH);
        assertThat(echo.risk()).isNull();
        assertThat(wipe.toBuilder().build().risk()).isEqualTo(Risk.HIGH);
        assertThat(ToolDefinition.builder("x").description("x").risk(Risk.LOW).build().risk()).isEqualTo(Risk.LOW);
        assertThat(ToolDefinition.builder("x").description("x").build().risk()).isNull();
    }

    @Test
    void moreThanOneDeclaredRiskIsRefused() {
        assertThatThrownBy(() -> Tools.fromObject(new TwoRisks())).hasMessageContaining("more than one risk");
    }
}
