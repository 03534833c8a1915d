package dev.toolbus.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolbus.tool.method.Tools;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Issue 11.4: a tool declares its own result limit on {@code @Tool} or its definition. */
class ToolResultLimitDeclarationTest {

    public static class Declared {
        @Tool(name = "dump", maxResultChars = 4000)
        public String dump() {
            return "";
        }

        @Tool(name = "raw", maxResultChars = 0)
        public String raw() {
            return "";
        }

        @Tool(name = "plain")
        public String plain() {
            return "";
        }
    }

    public static class Bad {
        @Tool(name = "bad", maxResultChars = -7)
        public String bad() {
            return "";
        }
    }

    @Test
    void theAnnotationReachesTheDefinition() {
        List<ToolSpec> specs = Tools.fromObject(new Declared());
        assertThat(specs).extracting(s -> s.definition().name() + "=" + s.definition().maxResultChars())
                .containsExactlyInAnyOrder("dump=4000", "raw=0", "plain=null");
        assertThat(specs.get(0).definition().toBuilder().build().maxResultChars())
                .isEqualTo(specs.get(0).definition().maxResultChars());
    }

    @Test
    void aNegativeLimitIsRefused() {
        assertThatThrownBy(() -> Tools.fromObject(new Bad())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxResultChars");
        assertThatThrownBy(() -> ToolDefinition.builder("x").maxResultChars(-1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
