package dev.toolbus.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.config.Config;
import dev.toolbus.config.KafkaConfig;
import dev.toolbus.config.ConfigLoader;
import dev.toolbus.executor.approval.ApprovalMode;
import dev.toolbus.policy.PermissionLevel;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.ByteArrayResource;

/**
 * {@link ToolbusProperties}: {@code toolbus.*} from Spring's property sources (an application.yaml,
 * properties with kebab-case and camelCase names, environment variables, the command line) read as the
 * same {@code toolbus.yaml} gives, every section included; unknown keys are warnings.
 */
class ToolbusPropertiesTest {

    private static final String YAML = """
            approval:
              mode: auto
              high: [wipe]
            dispatch:
              enabled: true
              maxGroups: 2
              model: {baseUrl: 'http://127.0.0.1:9/v1', name: tiny}
            sources:
              custom: {pluginDirs: [plugins-a, plugins-b], autoReload: false}
              mcp: {serversFile: servers.json, disabledServers: [slow]}
            documents: {paths: [skills], mode: explicit}
            plugins:
              weather: {config: {units: metric, depth: 2}}
            limits:
              store: redis
              rules:
                - {name: two, tools: [add], maxCallsPerTool: 2}
            bus:
              type: redis
              url: redis://127.0.0.1:6390
              idempotency: {windowMs: 5000, maxEntries: 10}
              redis: {claimMinIdleMs: 4000, claimIntervalMs: 1000}
            gateway:
              enabled: true
              port: 0
              maxConnections: 7
              headerTimeout: 2000
              bodyTimeout: 3000
              tokens:
                - {name: member, token: m-secret, maxPermission: member, streams: ['web:*']}
            """;

    private static StandardEnvironment environment(List<PropertySource<?>> sources) {
        StandardEnvironment env = new StandardEnvironment();
        env.getPropertySources().remove(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
        env.getPropertySources().remove(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
        sources.forEach(env.getPropertySources()::addLast);
        return env;
    }

    private static PropertySource<?> applicationYaml(String toolbus) throws IOException {
        String doc = "toolbus:\n" + String.join("\n", toolbus.lines().map(l -> "  " + l).toList()) + "\n";
        return new YamlPropertySourceLoader().load("application.yaml", new ByteArrayResource(doc.getBytes())).get(0);
    }

    private static Config file(String yaml) {
        return ConfigLoader.parse(yaml, n -> null).config();
    }

    @Test
    void anApplicationYamlWithEverySection_givesTheConfigOfTheSameToolbusYaml() throws IOException {
        ToolbusProperties p = ToolbusProperties.from(environment(List.of(applicationYaml(YAML))));
        assertThat(p.warnings()).isEmpty();
        Config c = p.config();
        Config f = file(YAML);
        assertThat(c.approval()).isEqualTo(f.approval());
        assertThat(c.approval().mode()).isEqualTo(ApprovalMode.AUTO);
        assertThat(c.dispatch()).isEqualTo(f.dispatch());
        assertThat(c.dispatch().enabled()).isTrue();
        assertThat(c.sources()).isEqualTo(f.sources());
        assertThat(c.documents()).isEqualTo(f.documents());
        assertThat(c.limits()).isEqualTo(f.limits());
        assertThat(c.bus()).isEqualTo(f.bus());
        assertThat(c.bus().idempotency().windowMs()).isEqualTo(5000);
        assertThat(c.bus().redis().claimMinIdleMs()).isEqualTo(4000);
        assertThat(c.gateway()).isEqualTo(f.gateway());
        assertThat(c.gateway().tokens()).singleElement().satisfies(t -> {
            assertThat(t.maxPermission()).isEqualTo(PermissionLevel.MEMBER);
            assertThat(t.streams()).containsExactly("web:*");
        });
        assertThat(c.gateway().maxConnections()).isEqualTo(7);
        assertThat(c.plugins().config("weather")).containsEntry("units", "metric");
        assertThat(p.gatewayEnabled()).isTrue();
    }

    @Test
    void kebabCaseProperties_environmentVariables_andCommaLists_bindRelaxed() {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("toolbus.execution.max-parallel", "8");
        props.put("toolbus.tools.deny", "exec,shell");
        props.put("toolbus.approval.session-max-risk", "low");
        props.put("toolbus.gateway.tokens[0].name", "member");
        props.put("toolbus.gateway.tokens[0].token", "m-secret");
        props.put("toolbus.gateway.tokens[0].max-permission", "admin");
        props.put("toolbus.bus.idempotency.max-recorded-bytes", "1024");
        Map<String, Object> env = new LinkedHashMap<>();
        env.put("TOOLBUS_EXECUTION_TIMEOUT", "9000");
        env.put("TOOLBUS_EXECUTION_MAXPARALLEL", "3");    // the properties come first: 8 wins
        env.put("TOOLBUS_LIMITS_RULES_0_NAME", "two");
        env.put("TOOLBUS_LIMITS_RULES_0_TOOLS", "add");
        env.put("TOOLBUS_LIMITS_RULES_0_MAXCALLSPERTOOL", "2");
        env.put("TOOLBUS_TOKEN", "a CLI token, not config");
        env.put("TOOLBUS_URL", "http://127.0.0.1:1");
        ToolbusProperties p = ToolbusProperties.from(environment(List.of(new MapPropertySource("props", props),
                new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, env))));
        assertThat(p.warnings()).as("TOOLBUS_TOKEN and TOOLBUS_URL are not config").isEmpty();
        Config c = p.config();
        assertThat(c.execution().maxParallel()).isEqualTo(8);
        assertThat(c.execution().timeout()).isEqualTo(Duration.ofMillis(9000));
        assertThat(c.tools().deny()).containsExactly("exec", "shell");
        assertThat(c.approval().sessionMaxRisk().wireName()).isEqualTo("low");
        assertThat(c.gateway().tokens()).singleElement()
                .satisfies(t -> assertThat(t.maxPermission()).isEqualTo(PermissionLevel.ADMIN));
        assertThat(c.bus().idempotency().maxRecordedBytes()).isEqualTo(1024);
        assertThat(c.limits().rules()).singleElement().satisfies(r -> {
            assertThat(r.name()).isEqualTo("two");
            assertThat(r.tools()).containsExactly("add");
            assertThat(r.maxCallsPerTool()).isEqualTo(2);
        });
    }

    @Test
    void kafkaFailoverTiming_andClientSettings_bindFromPropertiesYamlAndEnvironment() throws IOException {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("toolbus.bus.type", "kafka");
        props.put("toolbus.bus.kafka.session-timeout-ms", "9000");
        props.put("toolbus.bus.kafka.hanging-transaction-sweep-ms", "0");
        props.put("toolbus.bus.kafka.consumer.max.poll.interval.ms", "600000");
        props.put("toolbus.bus.kafka.producer[linger.ms]", "5");
        Map<String, Object> env = new LinkedHashMap<>();
        env.put("TOOLBUS_BUS_KAFKA_HEARTBEATINTERVALMS", "1500");
        env.put("TOOLBUS_BUS_KAFKA_ADMIN_REQUEST_TIMEOUT_MS", "9000");
        ToolbusProperties p = ToolbusProperties.from(environment(List.of(new MapPropertySource("props", props),
                new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, env))));
        assertThat(p.warnings()).isEmpty();
        KafkaConfig k = p.config().bus().kafka();
        assertThat(k.sessionTimeoutMs()).isEqualTo(9000);
        assertThat(k.heartbeatIntervalMs()).isEqualTo(1500);
        assertThat(k.hangingTransactionSweepMs()).as("off").isZero();
        assertThat(k.consumer()).containsEntry("max.poll.interval.ms", "600000");
        assertThat(k.producer()).containsEntry("linger.ms", "5");
        assertThat(k.admin()).containsEntry("request.timeout.ms", "9000");

        String yaml = """
                bus:
                  type: kafka
                  kafka:
                    sessionTimeoutMs: 9000
                    consumer: {max.poll.interval.ms: 600000}
                """;
        ToolbusProperties fromYaml = ToolbusProperties.from(environment(List.of(applicationYaml(yaml))));
        assertThat(fromYaml.warnings()).isEmpty();
        assertThat(fromYaml.config().bus().kafka()).isEqualTo(file(yaml).bus().kafka());
        assertThat(fromYaml.config().bus().kafka().hangingTransactionSweepMs()).as("not set: the bus's default")
                .isEqualTo(KafkaConfig.BUS_DEFAULT);
        env.put("TOOLBUS_BUS_KAFKA_HANGINGTRANSACTIONSWEEPMS", "5000");
        assertThat(ToolbusProperties.from(environment(List.of(new SystemEnvironmentPropertySource(
                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, env)))).config().bus().kafka()
                .hangingTransactionSweepMs()).isEqualTo(5000);
    }

    @Test
    void aKeyTheStarterDoesNotKnow_isAWarning_andBadValuesFallBackAsInAFile() {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("toolbus.approval.mod", "auto");
        props.put("toolbus.gatway.port", "1");
        props.put("toolbus.execution.max-parallel", "50");
        props.put("toolbus.shutdown-timeout", "5s");
        props.put("toolbus.enabled", "true");
        ToolbusProperties p = ToolbusProperties.from(environment(List.of(new MapPropertySource("props", props))));
        assertThat(p.warnings()).anyMatch(w -> w.startsWith("approval.mod: is not a known setting"))
                .anyMatch(w -> w.startsWith("gatway: is not a known setting"))
                .anyMatch(w -> w.contains("maxParallel 50 is above 20"))
                .noneMatch(w -> w.contains("shutdown") || w.contains("enabled"));
        assertThat(p.config().approval().mode()).isEqualTo(ApprovalMode.OFF);
        assertThat(p.shutdownTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(p.gatewayEnabled()).as("off in an application unless asked").isFalse();
    }

    @Test
    void aListComesWholeFromTheFirstSourceThatGivesIt() {
        ToolbusProperties p = ToolbusProperties.from(environment(List.of(
                new MapPropertySource("high", Map.of("toolbus.tools.deny[0]", "a")),
                new MapPropertySource("low", Map.of("toolbus.tools.deny[0]", "x", "toolbus.tools.deny[1]", "y",
                        "toolbus.tools.allow[0]", "z")))));
        assertThat(p.config().tools().deny()).containsExactly("a");
        assertThat(p.config().tools().allow()).containsExactly("z");
    }
}
