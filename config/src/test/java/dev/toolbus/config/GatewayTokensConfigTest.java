package dev.toolbus.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.auth.AccessTokens;
import dev.toolbus.policy.PermissionLevel;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** gateway.tokens, onExcess and the connection limits in toolbus.yaml. */
class GatewayTokensConfigTest {

    private static final Map<String, String> ENV = Map.of("BOT_TOKEN", "bot-secret", "OPS_TOKEN", "ops-secret");

    private static ConfigLoader.Loaded parse(String yaml) {
        return ConfigLoader.parse(yaml, ENV::get);
    }

    @Test
    void scopedTokensAreRead_withEnvReferences() {
        ConfigLoader.Loaded l = parse("""
                gateway:
                  token: ${OPS_TOKEN}
                  onExcess: clamp
                  maxConnections: 200
                  headerTimeout: 5000
                  bodyTimeout: 20000
                  tokens:
                    - name: discord-bot
                      token: ${BOT_TOKEN}
                      maxPermission: admin
                      agents: [helper-*]
                      channels: [discord]
                      streams: ["discord:*"]
                """);
        assertThat(l.warnings()).isEmpty();
        GatewayConfig g = l.config().gateway();
        assertThat(g.tokens()).singleElement().satisfies(t -> {
            assertThat(t.name()).isEqualTo("discord-bot");
            assertThat(t.token()).isEqualTo("bot-secret");
            assertThat(t.maxPermission()).isEqualTo(PermissionLevel.ADMIN);
            assertThat(t.streams()).containsExactly("discord:*");
        });
        assertThat(g.onExcess()).isEqualTo("clamp");
        assertThat(g.maxConnections()).isEqualTo(200);
        assertThat(g.headerTimeoutMs()).isEqualTo(5000);
        assertThat(g.bodyTimeoutMs()).isEqualTo(20000);
        AccessTokens tokens = g.accessTokens(null);
        assertThat(tokens.size()).isEqualTo(2);
        assertThat(tokens.onExcess()).isEqualTo(AccessTokens.OnExcess.CLAMP);
        assertThat(tokens.authenticate("ops-secret")).get().satisfies(gr -> assertThat(gr.scope().unrestricted()).isTrue());
        assertThat(tokens.authenticate("bot-secret")).get()
                .satisfies(gr -> assertThat(gr.scope().maxPermission()).isEqualTo(PermissionLevel.ADMIN));
        assertThat(g.toString()).doesNotContain("secret");
        assertThat(ConfigLoader.effectiveYaml(l.config())).doesNotContain("secret").contains("discord-bot");
    }

    @Test
    void approvalOverrideIsReadOnlyFromExactlyOverride_andMakesThePrincipal() {
        ConfigLoader.Loaded l = parse("""
                gateway:
                  tokens:
                    - {name: ops-bot, token: t1, maxPermission: owner, approval: override}
                    - {name: member-bot, token: t2, maxPermission: member}
                    - {name: typo-bot, token: t3, maxPermission: admin, approval: overide}
                """);
        assertThat(l.warnings()).singleElement().satisfies(w -> assertThat(w).contains("approval").contains("overide"));
        AccessTokens tokens = l.config().gateway().accessTokens(null);
        assertThat(tokens.authenticate("t1")).get().satisfies(gr -> {
            assertThat(gr.scope().approvalOverride()).isTrue();
            assertThat(gr.scope().principal().key()).isEqualTo("token:ops-bot");
            assertThat(gr.scope().principal().maxPermission()).isEqualTo("owner");
            assertThat(gr.scope().principal().approvalOverride()).isTrue();
        });
        assertThat(tokens.authenticate("t2")).get()
                .satisfies(gr -> assertThat(gr.scope().principal().approvalOverride()).isFalse());
        assertThat(tokens.authenticate("t3")).get().as("fails closed")
                .satisfies(gr -> assertThat(gr.scope().principal().approvalOverride()).isFalse());
        assertThat(ConfigLoader.effectiveYaml(l.config())).contains("approval: override");
    }

    @Test
    void badEntriesFailClosed() {
        ConfigLoader.Loaded l = parse("""
                gateway:
                  onExcess: ignore
                  tokens:
                    - {name: unset, token: "${NOPE:-}"}
                    - {name: typo, token: t1, maxPermission: superuser}
                    - {name: again, token: t1}
                    - just-a-string
                """);
        assertThat(l.warnings()).hasSize(5);
        assertThat(l.warnings()).anyMatch(w -> w.contains("gateway.onExcess"));
        GatewayConfig g = l.config().gateway();
        assertThat(g.onExcess()).isEqualTo("refuse");
        assertThat(g.tokens()).singleElement().satisfies(t -> {
            assertThat(t.name()).isEqualTo("typo");
            assertThat(t.maxPermission()).isEqualTo(PermissionLevel.MEMBER);
        });
    }

    @Test
    void aTokenListOffLoopbackIsEnough() {
        assertThat(parse("gateway: {host: 0.0.0.0, tokens: [{token: x, maxPermission: member}]}").warnings()).isEmpty();
        assertThat(parse("gateway: {host: 0.0.0.0, tokens: []}").warnings()).singleElement().asString()
                .contains("refuses to start");
        assertThat(GatewayConfig.DEFAULTS.accessTokens(null)).isSameAs(AccessTokens.NONE);
        assertThat(GatewayConfig.DEFAULTS.accessTokens("cli").required()).isTrue();
    }
}
