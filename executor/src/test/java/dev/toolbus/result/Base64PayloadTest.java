package dev.toolbus.result;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.tool.ContentItem;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class Base64PayloadTest {

    static final String PNG_1X1 =
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4//8/AAX+Av5B4iG8AAAAAElFTkSuQmCC";

    private static Base64Payload data(String data) {
        return Base64Payload.of(ContentItem.imageBase64(data, ""));
    }

    private static byte[] decode(String data) {
        Base64Payload p = data(data);
        if (p == null) {
            return new byte[0];
        }
        int n = p.scan(null);
        return n < 0 ? null : p.decode();
    }

    @Test
    void canonical_keepsSourceText() {
        Base64Payload p = data(PNG_1X1);
        assertThat(p.scan(new byte[12])).isEqualTo(69);
        assertThat(p.isCanonical()).isTrue();
        assertThat(p.text()).isSameAs(PNG_1X1);
        assertThat(p.maxDecodedBytes()).isEqualTo(69);
    }

    @Test
    void unpadded_isRepadded() {
        byte[] bytes = {1, 2, 3, 4};
        String padded = Base64.getEncoder().encodeToString(bytes);
        assertThat(padded).endsWith("==");
        String unpadded = padded.substring(0, padded.length() - 2);
        Base64Payload p = data(unpadded);
        assertThat(p.scan(null)).isEqualTo(4);
        assertThat(p.isCanonical()).isFalse();
        assertThat(p.decode()).containsExactly(bytes);
    }

    @Test
    void dataUrl_prefixSkipped() {
        ContentItem item = ContentItem.builder("image").mimeType("image/png")
                .uri("data:image/jpeg;base64, " + PNG_1X1 + "\n").build();
        Base64Payload p = Base64Payload.of(item);
        assertThat(p.scan(null)).isEqualTo(69);
        assertThat(p.isCanonical()).isTrue();
        assertThat(p.text()).isEqualTo(PNG_1X1);
    }

    @Test
    void dataUrl_inDataFieldAlsoSkipped() {
        assertThat(decode("data:image/png;base64," + PNG_1X1)).hasSize(69);
    }

    @Test
    void uriWithoutDataScheme_isNoPayload() {
        assertThat(Base64Payload.of(ContentItem.builder("image").data(" ").uri("https://x.test/a.png").build()))
                .isNull();
    }

    @Test
    void lineBreaks_ignoredLeniently() {
        String wrapped = PNG_1X1.substring(0, 40) + "\r\n" + PNG_1X1.substring(40);
        Base64Payload p = data(wrapped);
        // the re-padding counts the two ignored characters, like Python: 94 chars + 2 pads
        assertThat(p.scan(null)).isEqualTo(69);
        assertThat(p.isCanonical()).isFalse();
        assertThat(Base64.getEncoder().encodeToString(p.decode())).isEqualTo(PNG_1X1);
    }

    @Test
    void invalid_decodesToNothing() {
        assertThat(decode("!!!not base64!!!")).isNull();
        assertThat(decode("QUJD\u00e9")).isNull();
        assertThat(decode("Q")).isNull();
    }

    @Test
    void padding_stopsDecoding() {
        assertThat(decode("QUI=QUJD")).containsExactly('A', 'B');
        assertThat(decode("QQ==")).containsExactly('A');
        Base64Payload nonZeroBits = data("QR==");
        assertThat(nonZeroBits.scan(null)).isEqualTo(1);
        assertThat(nonZeroBits.isCanonical()).isFalse();
        Base64Payload excess = data("QUJD====");
        assertThat(excess.scan(null)).isEqualTo(3);
        assertThat(excess.isCanonical()).isFalse();
    }

    @Test
    void pythonBytesRepr_decodesLikePython() throws Exception {
        // V19: str(bytes) of the PNG; the upstream run decoded it leniently to 113 bytes
        String vector = HostVectorsTest.parse().stream().filter(v -> v.id().equals("V19")).findFirst()
                .orElseThrow().input();
        String data = new ObjectMapper().readTree(vector).at("/content_items/0/data").asText();
        byte[] bytes = decode(data);
        assertThat(bytes).hasSize(113);
        assertThat(bytes).startsWith((byte) 'o', (byte) 0x1f, (byte) '=', (byte) '<', (byte) 0xd1, (byte) 0xab,
                (byte) 0x9f, (byte) 0x1d);
    }

    @Test
    void maxDecodedBytes_fromLengthOnly() {
        assertThat(data("QUJD").maxDecodedBytes()).isEqualTo(3);
        assertThat(data("QUI=").maxDecodedBytes()).isEqualTo(2);
        assertThat(data("QQ==").maxDecodedBytes()).isEqualTo(1);
        assertThat(data("QUJ").maxDecodedBytes()).isEqualTo(2);
    }
}
