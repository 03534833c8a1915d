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
    @SuppressWarnings("deprecation")
    void theDeprecatedStringFactoriesKeepTheirOldOrder() {
        assertThat(ContentItem.image(B64, "image/png")).isEqualTo(ContentItem.imageBase64(B64, "image/png"));
        assertThat(ContentItem.audio(B64, "audio/wav")).isEqualTo(ContentItem.audioBase64(B64, "audio/wav"));
        // the one that took the MIME type first still does, so old callers are not silently swapped
        assertThat(ContentPart.image("image/png", B64)).isEqualTo(ContentPart.imageBase64(B64, "image/png"));
    }
}
