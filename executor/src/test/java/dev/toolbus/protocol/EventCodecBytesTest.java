package dev.toolbus.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The bytes encoder writes exactly the UTF-8 of the String encoder, for every outbound event kind and text. */
class EventCodecBytesTest {

    private final EventCodec codec = EventCodec.defaults();

    private static final String[] TEXTS = {"", "plain", "日本語のテキスト", "emoji 😀 and 𝄞 outside the BMP",
        "quote \" backslash \\ slash /", "controls \u0000 \u0001 \u001f \u007f", "tab\tcr\rlf\nform\f back\b",
        "separators \u2028 \u2029", "latin é ß ø", "\uFEFF bom", "lone high \uD83D end", "lone low \uDE00 end",
        "reversed \uDE00\uD83D pair", "literal \\uD83D and \\\uD83D\uDE00 text", "html <script>&amp;</script>", "x".repeat(70_000) + "é"};

    private void assertSameBytes(OutboundEvent e) throws IOException {
        byte[] expected = codec.encode(e).getBytes(StandardCharsets.UTF_8);
        assertThat(codec.encodeToBytes(e)).as("%s", e.type()).isEqualTo(expected);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        codec.encodeTo(e, out);
        assertThat(out.toByteArray()).as("%s to a stream", e.type()).isEqualTo(expected);
    }

    @Test
    void everyOutboundKind_encodesToTheSameBytesAsTheString() throws IOException {
        List<OutboundEvent> events = new ArrayList<>(Samples.outbound());
        for (OutboundEvent e : Samples.outbound()) {
            events.add(new ReplayedEvent(e));
        }
        for (OutboundEvent e : events) {
            assertSameBytes(e);
        }
    }

    @Test
    void nonAsciiEscapedAndBrokenText_encodesToTheSameBytesAsTheString() throws IOException {
        for (String t : TEXTS) {
            assertSameBytes(new ErrorEvent("s-" + t, t, ErrorCode.BAD_EVENT, t));
            Map<String, Object> data = new LinkedHashMap<>();
            data.put(t, List.of(t, 1, 2.5, new BigDecimal("1e400"), true));
            data.put("nothing", null);
            assertSameBytes(ToolResultEvent.builder().streamId("s").turnId("t").toolCallId("c").name("x")
                    .content(t).data(data).metadata(Map.of("k", t)).attempts(1).build());
            assertSameBytes(ToolProgressEvent.builder().streamId("s").turnId("t").toolCallId("c").name("r")
                    .progress(1).message(t).build());
        }
    }

    @Test
    void rawValueWithLineBreak_isReserialisedOnOneLineAsBefore() throws IOException {
        ObjectNode raw = JsonNodeFactory.instance.objectNode();
        raw.putRawValue("r", new RawValue("{\n\"a\": \"日本\"\n}"));
        ToolResultEvent r = ToolResultEvent.builder().streamId("s").turnId("t").toolCallId("c").name("x")
                .content("").data(raw).attempts(1).build();
        assertSameBytes(r);
        assertThat(new String(codec.encodeToBytes(r), StandardCharsets.UTF_8)).doesNotContain("\n");
    }

    @Test
    void unserialisableData_failsAsTheStringEncoderDoes_andWritesNothing() {
        ToolResultEvent r = ToolResultEvent.builder().streamId("s").turnId("t").toolCallId("call_9").name("clock")
                .content("").data(Map.of("at", Instant.EPOCH)).attempts(1).build();
        assertThatThrownBy(() -> codec.encodeToBytes(r)).isInstanceOf(EventEncodeException.class)
                .hasMessageContaining("call_9").hasMessageContaining("Instant");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThatThrownBy(() -> codec.encodeTo(r, out)).isInstanceOf(EventEncodeException.class);
        assertThat(out.size()).isZero();
        // the thread's buffer is usable afterwards
        assertThat(codec.encodeToBytes(Samples.error())).isEqualTo(codec.encode(Samples.error())
                .getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void buffer_grownPastTheCap_isDroppedAfterUse_andANestedTakeGetsItsOwn() {
        EncodeBuffer b = EncodeBuffer.take();
        EncodeBuffer nested = EncodeBuffer.take();
        assertThat(nested).isNotSameAs(b);
        nested.release();
        b.write(new byte[EncodeBuffer.KEEP + 1], 0, EncodeBuffer.KEEP + 1);
        assertThat(b.array().length).isGreaterThan(EncodeBuffer.KEEP);
        b.release();
        assertThat(b.array().length).isEqualTo(EncodeBuffer.INITIAL);
        EncodeBuffer again = EncodeBuffer.take();
        assertThat(again).isSameAs(b);
        assertThat(again.size()).isZero();
        again.release();
    }
}
