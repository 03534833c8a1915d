package dev.toolbus.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.state.TurnLedgerSettings;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class IdempotencySectionTest {

    @Test
    void on_by_default_with_the_executors_defaults() {
        Config c = ConfigLoader.parse("{}", k -> null).config();
        assertThat(c.bus().idempotency()).isEqualTo(Config.Idempotency.DEFAULTS);
        assertThat(c.bus().idempotency().settings()).isEqualTo(TurnLedgerSettings.DEFAULTS);
    }

    @Test
    void reads_the_window_and_bounds_and_prints_them_in_the_effective_config() {
        ConfigLoader.Loaded l = ConfigLoader.parse("""
                bus:
                  type: stdio
                  idempotency: {windowMs: 600000, maxBytes: 1048576, maxEntries: 500, maxRecordedBytes: 4096}
                """, k -> null);
        assertThat(l.warnings()).isEmpty();
        TurnLedgerSettings s = l.config().bus().idempotency().settings();
        assertThat(s).isEqualTo(TurnLedgerSettings.builder().window(Duration.ofMinutes(10)).maxBytes(1_048_576).maxEntries(500)
                .maxRecordedBytes(4096).build());
        assertThat(ConfigLoader.effectiveYaml(l.config())).contains("windowMs: 600000").contains("maxEntries: 500");
    }

    @Test
    void zero_turns_it_off_and_nonsense_falls_back_with_warnings() {
        ConfigLoader.Loaded off = ConfigLoader.parse("bus: {idempotency: {windowMs: 0}}", k -> null);
        assertThat(off.config().bus().idempotency().settings().enabled()).isFalse();
        ConfigLoader.Loaded bad = ConfigLoader.parse("""
                bus:
                  idempotency: {windowMs: soon, maxEntries: 0, maxByte: 5}
                """, k -> null);
        Config.Idempotency i = bad.config().bus().idempotency();
        assertThat(i.windowMs()).isEqualTo(Config.Idempotency.DEFAULTS.windowMs());
        assertThat(i.maxEntries()).isEqualTo(1);
        assertThat(bad.warnings()).anySatisfy(w -> assertThat(w).contains("bus.idempotency.windowMs"));
        assertThat(bad.warnings()).anySatisfy(w -> assertThat(w).contains("bus.idempotency.maxEntries"));
        assertThat(bad.warnings()).anySatisfy(w -> assertThat(w).contains("maxByte"));
    }
}
