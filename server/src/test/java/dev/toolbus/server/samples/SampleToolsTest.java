package dev.toolbus.server.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolbus.tool.ContentItem;
import dev.toolbus.tool.ToolResult;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

class SampleToolsTest {

    private final SampleTools tools = new SampleTools();

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
        assertThatThrownBy(() -> tools.fail("the disk is on fire")).hasMessage("the disk is on fire");
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
