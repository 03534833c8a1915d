package dev.toolbus.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 21's new bounds in toolbus.yaml: approval.maxWaitingBytes(PerPrincipal),
 * gateway.maxAnswerBytes(Total) and dispatch.maxConcurrent are read, clamped with a warning, printed
 * by the effective config, and read back the same.
 */
class HardeningKeysTest {

    private static ConfigLoader.Loaded parse(String yaml) {
        return ConfigLoader.parse(yaml, Map.<String, String>of()::get);
    }

    @Test
    void defaults() {
        Config c = parse("{}\n").config();
        assertThat(c.approval().maxWaitingBytes()).isEqualTo(64L << 20);
        assertThat(c.approval().maxWaitingBytesPerPrincipal()).isEqualTo(16L << 20);
        assertThat(c.gateway().maxAnswerBytes()).isEqualTo(32L << 20);
        assertThat(c.gateway().maxAnswerBytesTotal()).isEqualTo(128L << 20);
        assertThat(c.dispatch().maxConcurrent()).isEqualTo(16);
    }

    @Test
    void readClampedAndPrinted() {
        ConfigLoader.Loaded l = parse("""
                approval: {mode: auto, maxWaitingBytes: 1048576, maxWaitingBytesPerPrincipal: 10}
                gateway: {maxAnswerBytes: 262144, maxAnswerBytesTotal: 4194304}
                dispatch: {maxConcurrent: 5000}
                """);
        Config c = l.config();
        assertThat(c.approval().maxWaitingBytes()).isEqualTo(1_048_576);
        assertThat(c.approval().maxWaitingBytesPerPrincipal()).as("clamped up").isEqualTo(64 * 1024);
        assertThat(c.gateway().maxAnswerBytes()).isEqualTo(262_144);
        assertThat(c.gateway().maxAnswerBytesTotal()).isEqualTo(4_194_304);
        assertThat(c.dispatch().maxConcurrent()).as("clamped down").isEqualTo(1024);
        assertThat(l.warnings()).hasSize(2).anySatisfy(w -> assertThat(w).contains("maxWaitingBytesPerPrincipal"))
                .anySatisfy(w -> assertThat(w).contains("maxConcurrent"));
        String yaml = ConfigLoader.effectiveYaml(c);
        assertThat(yaml).contains("maxWaitingBytes: 1048576", "maxWaitingBytesPerPrincipal: 65536",
                "maxAnswerBytes: 262144", "maxAnswerBytesTotal: 4194304", "maxConcurrent: 1024");
        ConfigLoader.Loaded again = parse(yaml);
        assertThat(again.warnings()).isEmpty();
        // (the settings keep their reader's warnings, so compare the values)
        assertThat(again.config().approval().maxWaitingBytes()).isEqualTo(c.approval().maxWaitingBytes());
        assertThat(again.config().approval().maxWaitingBytesPerPrincipal())
                .isEqualTo(c.approval().maxWaitingBytesPerPrincipal());
        assertThat(again.config().gateway()).isEqualTo(c.gateway());
        assertThat(again.config().dispatch()).isEqualTo(c.dispatch());
    }
}
