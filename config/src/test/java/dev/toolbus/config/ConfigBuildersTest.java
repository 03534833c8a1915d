package dev.toolbus.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolbus.policy.PermissionLevel;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The sections built in code: strict builders (a bad value throws, naming the key), defaults as an empty file's. */
class ConfigBuildersTest {

    private static Config parse(String yaml) {
        ConfigLoader.Loaded l = ConfigLoader.parse(yaml, Map.<String, String>of()::get);
        assertThat(l.warnings()).isEmpty();
        return l.config();
    }

    @Test
    void theBuilderStartsFromTheConfigOfAnEmptyFile() {
        assertThat(Config.builder().build()).isEqualTo(parse("{}")).isEqualTo(Config.defaults());
        assertThat(Config.defaults().hashCode()).isEqualTo(parse("{}").hashCode());
    }

    @Test
    void sectionsBuiltInCodeEqualTheSameKeysReadFromAFile() {
        Config file = parse("""
                bus: {type: redis, url: 'redis://10.0.0.5:6379', idempotency: {windowMs: 60000}}
                gateway: {port: 9000, token: s3cret, maxConnections: 50, tokens: [{name: ro, token: t-ro, maxPermission: admin}]}
                documents: {mode: all, maxDepth: 3}
                dispatch: {enabled: true, maxGroups: 4, model: {baseUrl: 'http://127.0.0.1:9/v1', name: small}}
                """);
        Config code = Config.builder()
                .bus(BusConfig.builder("redis").url("redis://10.0.0.5:6379")
                        .idempotency(IdempotencyConfig.builder().windowMs(60_000).build()).build())
                .gateway(GatewayConfig.builder().port(9000).token("s3cret").maxConnections(50)
                        .tokens(List.of(GatewayToken.builder("ro").token("t-ro").maxPermission(PermissionLevel.ADMIN)
                                .build())).build())
                .documents(DocumentsConfig.builder().mode("all").maxDepth(3).build())
                .dispatch(DispatchConfig.builder().enabled(true).maxGroups(4).baseUrl("http://127.0.0.1:9/v1")
                        .model("small").build())
                .build();
        assertThat(code.bus()).isEqualTo(file.bus());
        assertThat(code.gateway()).isEqualTo(file.gateway());
        assertThat(code.documents()).isEqualTo(file.documents());
        assertThat(code.dispatch()).isEqualTo(file.dispatch());
        assertThat(code).isEqualTo(file);
    }

    @Test
    void toBuilderKeepsEveryValue_andWithersChangeOneSection() {
        Config c = parse("bus: {type: kafka}\ngateway: {port: 9100}");
        assertThat(c.toBuilder().build()).isEqualTo(c);
        assertThat(c.bus().toBuilder().build()).isEqualTo(c.bus());
        assertThat(c.gateway().toBuilder().port(9101).build().port()).isEqualTo(9101);
        Config other = c.toBuilder().gateway(c.gateway().toBuilder().port(9101).build()).build();
        assertThat(other).isNotEqualTo(c);
        assertThat(other.bus()).isEqualTo(c.bus());
    }

    @Test
    void aBadValueThrows_namingTheKey() {
        assertThatThrownBy(() -> BusConfig.builder("rabbit").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bus.type");
        assertThatThrownBy(() -> GatewayConfig.builder().port(70_000).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("gateway.port");
        assertThatThrownBy(() -> GatewayConfig.builder().onExcess("drop").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("gateway.onExcess");
        assertThatThrownBy(() -> DocumentsConfig.builder().mode("some").build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DispatchConfig.builder().maxGroups(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dispatch.maxGroups");
        assertThatThrownBy(() -> IdempotencyConfig.builder().windowMs(-1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bus.idempotency.windowMs");
    }

    @Test
    void secretsAreNotPrinted() {
        Config c = Config.builder().gateway(GatewayConfig.builder().token("s3cret").build())
                .dispatch(DispatchConfig.builder().apiKey("sk-abc").build()).build();
        assertThat(c.toString()).doesNotContain("s3cret").doesNotContain("sk-abc");
    }
}
