package dev.toolbus.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolbus.policy.PermissionLevel;
import dev.toolbus.protocol.CallContext;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class AccessTokensTest {

    static CallContext ctx(String permission, String agent, String channel) {
        return CallContext.builder().userId("u").permission(permission).channel(channel).agentId(agent).build();
    }

    @Test
    void noTokensLetsEveryoneInWithTheFullScope() {
        assertThat(AccessTokens.NONE.required()).isFalse();
        assertThat(AccessTokens.NONE.authenticateHeader(null)).get().extracting(AccessTokens.Grant::scope)
                .isEqualTo(TokenScope.FULL);
        assertThat(AccessTokens.single(" ")).isSameAs(AccessTokens.NONE);
    }

    @Test
    void theRightTokenYieldsItsScope_anyOtherNothing() {
        TokenScope bot = TokenScope.builder("bot").maxPermission(PermissionLevel.ADMIN).build();
        AccessTokens t = AccessTokens.builder().token("a", TokenScope.FULL).token("b", bot).build();
        assertThat(t.authenticateHeader("Bearer b")).get().extracting(AccessTokens.Grant::scope).isSameAs(bot);
        assertThat(t.authenticateHeader("bearer  a ")).get().extracting(AccessTokens.Grant::scope)
                .isSameAs(TokenScope.FULL);
        assertThat(t.authenticateHeader("Bearer c")).isEmpty();
        assertThat(t.authenticateHeader("Basic a")).isEmpty();
        assertThat(t.authenticateHeader(null)).isEmpty();
        assertThat(t.authenticate("b")).isPresent();
        assertThatThrownBy(() -> AccessTokens.builder().token("a", TokenScope.FULL).token("a", bot))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aNonAsciiTokenMatchesFromHeaderBytesAndFromText() {
        String token = "tökén-秘密";
        AccessTokens t = AccessTokens.single(token);
        // Netty hands header bytes over one per char
        String header = "Bearer " + new String(token.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
        assertThat(t.authenticateHeader(header)).isPresent();
        assertThat(t.authenticateHeader("Bearer " + token)).isPresent();
        assertThat(t.authenticate(token)).isPresent();
        assertThat(t.authenticate("tokén-秘密")).isEmpty();
    }

    @Test
    void aScopeRefusesOrClampsThePermission() {
        TokenScope s = TokenScope.builder("bot").maxPermission(PermissionLevel.ADMIN).build();
        assertThat(s.admit("x", ctx("owner", null, null), AccessTokens.OnExcess.REFUSE).refusal())
                .contains("admin at most");
        TokenScope.Admission clamped = s.admit("x", ctx("MASTER", null, null), AccessTokens.OnExcess.CLAMP);
        assertThat(clamped.admitted()).isTrue();
        assertThat(clamped.clamped()).isTrue();
        assertThat(clamped.context().permission()).isEqualTo("admin");
        assertThat(clamped.context().userId()).isEqualTo("u");
        assertThat(s.admit("x", ctx("admin", null, null), AccessTokens.OnExcess.REFUSE).clamped()).isFalse();
        // an unknown level reads as member, which any scope allows
        assertThat(s.admit("x", ctx("root", null, null), AccessTokens.OnExcess.REFUSE).admitted()).isTrue();
    }

    @Test
    void agentsAndChannelsMatchIgnoringCase_streamsExactly() {
        TokenScope s = TokenScope.builder("t").agents(List.of("helper-*")).channels(List.of("qq"))
                .streams(List.of("team-a:*", "solo")).build();
        AccessTokens.OnExcess r = AccessTokens.OnExcess.CLAMP;
        assertThat(s.admit("team-a:1", ctx(null, "Helper-9", "QQ"), r).admitted()).isTrue();
        assertThat(s.admit("solo", ctx(null, "helper-", "qq"), r).admitted()).isTrue();
        assertThat(s.admit("TEAM-A:1", ctx(null, "helper-1", "qq"), r).refusal()).contains("stream");
        assertThat(s.admit("team-a:1", ctx(null, "other", "qq"), r).refusal()).contains("agent 'other'");
        assertThat(s.admit("team-a:1", ctx(null, null, "qq"), r).refusal()).contains("context.agent_id");
        assertThat(s.admit("team-a:1", ctx(null, "helper-1", "web"), r).refusal()).contains("channel 'web'");
        assertThat(s.allowsStream("team-a:")).isTrue();
        assertThat(s.allowsStream(null)).isFalse();
        assertThat(s.unrestricted()).isFalse();
        assertThat(TokenScope.FULL.unrestricted()).isTrue();
    }

    @Test
    void globsAreLiteralBesidesTheStar() {
        TokenScope s = TokenScope.builder("t").streams(List.of("a.b(c)*")).build();
        assertThat(s.allowsStream("a.b(c)-1")).isTrue();
        assertThat(s.allowsStream("aXb(c)-1")).isFalse();
        assertThatThrownBy(() -> TokenScope.builder("t").streams(List.of(" ")).build())
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void onExcessParses() {
        assertThat(AccessTokens.OnExcess.parse(" Clamp ")).isEqualTo(AccessTokens.OnExcess.CLAMP);
        assertThat(AccessTokens.OnExcess.parse("refuse")).isEqualTo(AccessTokens.OnExcess.REFUSE);
        assertThat(AccessTokens.OnExcess.parse("drop")).isNull();
    }
}
