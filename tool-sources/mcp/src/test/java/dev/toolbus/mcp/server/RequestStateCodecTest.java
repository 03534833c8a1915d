package dev.toolbus.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolbus.mcp.internal.Wire;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** The {@code requestState} of an {@code input_required} result: what it binds, and each way it is refused. */
class RequestStateCodecTest {

    static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    static final byte[] ARGS = RequestStateCodec.digest("{\"a\":1}".getBytes(StandardCharsets.UTF_8), 16);
    static final Clock NOW = Clock.fixed(Instant.parse("2026-12-01T10:00:00Z"), ZoneOffset.UTC);
    final RequestStateCodec codec = new RequestStateCodec(KEY, NOW);
    final String state = codec.encode("call-1", "token:alice", "echo", ARGS, 2, NOW.millis() + 60_000);

    static void refused(Runnable r, String why) {
        assertThatThrownBy(r::run).isInstanceOf(ModernError.class)
                .satisfies(e -> assertThat(((ModernError) e).code).isEqualTo(Wire.INVALID_PARAMS))
                .hasMessageContaining("requestState rejected").hasMessageContaining(why);
    }

    @Test
    void aStateRoundTrips_andNamesItsCallAndRound() {
        RequestStateCodec.State s = codec.decode(state, "token:alice", "tools/call", "echo", ARGS);
        assertThat(s.call()).isEqualTo("call-1");
        assertThat(s.round()).isEqualTo(2);
        assertThat(state).startsWith("v1.").doesNotContain("alice").doesNotContain("call-1");
    }

    @Test
    void aTamperedState_isRefused() {
        String[] parts = state.split("\\.");
        String payload = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8)
                .replace("\"r\":2", "\"r\":3");
        String forged = parts[0] + "." + Base64.getUrlEncoder().withoutPadding()
                .encodeToString(payload.getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
        refused(() -> codec.decode(forged, "token:alice", "tools/call", "echo", ARGS), "signature");
        refused(() -> codec.decode(state + "-TAMPERED", "token:alice", "tools/call", "echo", ARGS), "");
        refused(() -> codec.decode("garbage", "token:alice", "tools/call", "echo", ARGS), "malformed");
        refused(() -> codec.decode("x".repeat(5000), "token:alice", "tools/call", "echo", ARGS), "malformed");
    }

    @Test
    void anotherServerKey_isRefused() {
        RequestStateCodec other = new RequestStateCodec("fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.US_ASCII),
                NOW);
        refused(() -> other.decode(state, "token:alice", "tools/call", "echo", ARGS), "signature");
    }

    @Test
    void anotherPrincipal_method_tool_orArguments_isRefused() {
        refused(() -> codec.decode(state, "token:mallory", "tools/call", "echo", ARGS), "another client");
        refused(() -> codec.decode(state, "token:alice", "prompts/get", "echo", ARGS), "another method");
        refused(() -> codec.decode(state, "token:alice", "tools/call", "add", ARGS), "another tool");
        byte[] other = RequestStateCodec.digest("{\"a\":2}".getBytes(StandardCharsets.UTF_8), 16);
        refused(() -> codec.decode(state, "token:alice", "tools/call", "echo", other), "other arguments");
    }

    @Test
    void anExpiredState_isRefused() {
        RequestStateCodec later = new RequestStateCodec(KEY, Clock.offset(NOW, java.time.Duration.ofMinutes(2)));
        refused(() -> later.decode(state, "token:alice", "tools/call", "echo", ARGS), "expired");
    }

    @Test
    void aShortKey_isAProgrammingFault() {
        assertThatThrownBy(() -> new RequestStateCodec(new byte[8], NOW)).isInstanceOf(IllegalArgumentException.class);
    }
}
