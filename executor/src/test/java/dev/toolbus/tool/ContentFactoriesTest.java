package dev.toolbus.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import dev.toolbus.protocol.ContentPart;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** Every media factory of ContentItem and ContentPart takes the payload first, then the MIME type. */
class ContentFactoriesTest {

    private static final byte[] BYTES = "not really a png".getBytes(StandardCharsets.US_ASCII);
    private static final String B64 = Base64.getEncoder().encodeToString(BYTES);

    @Test
    void contentItemImagesTakeDataThenMimeType() {
        ContentItem item = ContentItem.imageBase64(B64, "image/png");
        assertThat(item.type()).isEqualTo("image");
        assertThat(item.data()).isEqualTo(B64);
        assertThat(item.mimeType()).isEqualTo("image/png");
        assertThat(ContentItem.image(BYTES, "image/png")).isEqualTo(item);
    }

    @Test
    void contentItemAudioTakesDataThenMimeType() {
        ContentItem item = ContentItem.audioBase64(B64, "audio/wav");
        assertThat(item.type()).isEqualTo("audio");
        assertThat(item.data()).isEqualTo(B64);
        assertThat(item.mimeType()).isEqualTo("audio/wav");
        assertThat(ContentItem.audio(BYTES, "audio/wav")).isEqualTo(item);
    }

    @Test
    void contentPartImagesTakeDataThenMimeType() {
        ContentPart part = ContentPart.imageBase64(B64, "image/webp");
        assertThat(part.type()).isEqualTo("image");
        assertThat(part.data()).isEqualTo(B64);
        assertThat(part.mimeType()).isEqualTo("image/webp");
        assertThat(part.text()).isNull();
        assertThat(ContentPart.image(BYTES, "image/webp")).isEqualTo(part);
        assertThatNullPointerException().isThrownBy(() -> ContentPart.imageBase64(B64, null)).withMessage("mimeType");
        assertThatNullPointerException().isThrownBy(() -> ContentPart.imageBase64(null, "image/png")).withMessage("base64");
    }

    @Test
    void everyTwoStringMediaFactoryOfBothTypesTakesTheBase64ThenTheMimeType() {
        // the old ContentPart.image(mimeType, base64) and ContentItem.image(base64, mimeType) read either way: gone
        java.util.List<String> factories = new java.util.ArrayList<>();
        for (Class<?> type : java.util.List.of(ContentItem.class, ContentPart.class)) {
            for (java.lang.reflect.Method m : type.getMethods()) {
                if (java.lang.reflect.Modifier.isStatic(m.getModifiers()) && m.getReturnType() == type
                        && java.util.Arrays.equals(m.getParameterTypes(), new Class<?>[] {String.class, String.class})) {
                    factories.add(type.getSimpleName() + "." + m.getName() + java.util.Arrays.stream(m.getParameters())
                            .map(java.lang.reflect.Parameter::getName).toList());
                }
            }
        }
        assertThat(factories).containsExactlyInAnyOrder("ContentItem.imageBase64[base64, mimeType]",
                "ContentItem.audioBase64[base64, mimeType]", "ContentPart.imageBase64[base64, mimeType]",
                "ContentItem.resourceLink[uri, name]");
    }
}
