package dev.toolbus.assembly.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.toolbus.tool.ContentItem;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.stream.Collectors;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

class SampleToolsTest {

    private final SampleTools tools = new SampleTools();

    @Test
    void specs_readFromAnnotations_declareTheFiveToolsAndTheirArgumentTypes() {
        Map<String, ToolDefinition> defs = tools.specs().stream()
                .collect(Collectors.toMap(ToolSpec::name, ToolSpec::definition));

        assertThat(defs).containsOnlyKeys("echo", "add", "sleep", "fail", "draw", "progress", "greet", "ask_city",
                "wipe", "count");
        assertThat(schemaTypes(defs.get("wipe"))).containsExactly(entry("target", "string"));
        assertThat(schemaTypes(defs.get("progress"))).containsExactly(entry("steps", "integer"), entry("ms", "integer"));
        assertThat(schemaTypes(defs.get("greet"))).containsExactly(entry("text", "string"));
        assertThat(defs.get("ask_city").parameters()).isEmpty();
        assertThat(defs.values()).filteredOn(d -> !d.name().equals("wipe")).allSatisfy(d -> assertThat(d.risk()).isNull());
        assertThat(schemaTypes(defs.get("add"))).containsExactly(entry("a", "integer"), entry("b", "integer"));
        assertThat(schemaTypes(defs.get("sleep"))).containsExactly(entry("ms", "integer"));
        assertThat(schemaTypes(defs.get("echo"))).containsExactly(entry("text", "string"));
        assertThat(schemaTypes(defs.get("fail"))).containsOnly(entry("message", "string"), entry("kind", "string"));
        assertThat(schemaTypes(defs.get("draw"))).containsExactly(entry("label", "string"));
        // every parameter is required but fail's kind (exception by default, or a JVM error)
        assertThat(defs.values()).allSatisfy(d -> assertThat(d.parameters())
                .allMatch(p -> p.required() || (d.name().equals("fail") && p.name().equals("kind"))));
    }

    private static Map<String, String> schemaTypes(ToolDefinition def) {
        Map<String, String> types = new java.util.LinkedHashMap<>();
        def.parameters().forEach(p -> types.put(p.name(), p.type().jsonType()));
        return types;
    }

    @Test
    void wipe_isSideEffectingHighRiskButNotDangerous() {
        ToolDefinition wipe = tools.specs().stream().filter(t -> t.name().equals("wipe")).findFirst().orElseThrow()
                .definition();
        assertThat(wipe.risk()).isEqualTo(dev.toolbus.protocol.Risk.HIGH);
        assertThat(wipe.sideEffecting()).isTrue();
        assertThat(wipe.dangerous()).isFalse();
        assertThat(tools.wipe("disk")).isEqualTo("wiped disk");
        assertThat(tools.specs().stream().filter(t -> !t.name().equals("wipe")))
                .allSatisfy(t -> assertThat(t.definition().risk()).as(t.name()).isNull());
    }

    @Test
    void echo_returnsTheText() {
        assertThat(tools.echo("héllo 工具")).isEqualTo("héllo 工具");
    }

    @Test
    void add_returnsTheSumAsStructuredData() {
        assertThat(tools.add(2, 40)).isEqualTo(Map.of("sum", 42L));
    }

    @Test
    void add_overflow_fails() {
        assertThatThrownBy(() -> tools.add(Long.MAX_VALUE, 1)).isInstanceOf(ArithmeticException.class);
    }

    @Test
    void fail_throwsWithTheMessage() {
        assertThatThrownBy(() -> tools.fail("the disk is on fire", null)).isInstanceOf(IllegalStateException.class)
                .hasMessage("the disk is on fire");
        assertThatThrownBy(() -> tools.fail("oom", "error")).isInstanceOf(OutOfMemoryError.class)
                .hasMessage("simulated: oom");
    }

    @Test
    void sleep_completesAfterTheDelay_onVirtualTime() {
        StepVerifier.withVirtualTime(() -> new SampleTools(VirtualTimeScheduler.get()).sleep(5_000)
                        .map(ToolResult::content))
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(4_999))
                .thenAwait(Duration.ofMillis(1))
                .expectNext("slept 5000")
                .verifyComplete();
    }

    @Test
    void sleep_negative_isAnErrorResult() {
        StepVerifier.create(tools.sleep(-1))
                .assertNext(r -> assertThat(r.isError()).isTrue())
                .verifyComplete();
    }

    @Test
    void draw_returnsTextAndOneDecodablePng() throws IOException {
        ToolResult r = tools.draw("a cat");

        assertThat(r.content()).isEqualTo("drew a cat");
        assertThat(r.contentItems()).singleElement().satisfies(item -> {
            assertThat(item.type()).isEqualTo("image");
            assertThat(item.mimeType()).isEqualTo("image/png");
        });
        ContentItem image = r.contentItems().get(0);
        BufferedImage png = ImageIO.read(new ByteArrayInputStream(Base64.getDecoder().decode(image.data())));
        assertThat(png.getWidth()).isEqualTo(1);
        assertThat(png.getHeight()).isEqualTo(1);
    }
}
