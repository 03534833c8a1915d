package dev.toolbus.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** Reads {@code bus.idempotency}: the window and bounds of the executor's ledger of idempotent turns. */
final class IdempotencySection {

    private IdempotencySection() {
    }

    static Config.Idempotency read(ConfigLoader.Reader in, Map<String, Object> bus) {
        Map<String, Object> m = in.section(bus, "idempotency", "bus",
                Set.of("windowMs", "maxBytes", "maxEntries", "maxRecordedBytes"));
        Config.Idempotency d = Config.Idempotency.DEFAULTS;
        String p = "bus.idempotency";
        return new Config.Idempotency(
                in.integer(m, "windowMs", p, d.windowMs(), 0, 7L * 24 * 3_600_000),
                in.integer(m, "maxBytes", p, d.maxBytes(), 1024, 16L * 1024 * 1024 * 1024),
                in.integer(m, "maxEntries", p, d.maxEntries(), 1, 100_000_000),
                in.integer(m, "maxRecordedBytes", p, d.maxRecordedBytes(), 0, 64L * 1024 * 1024));
    }

    /** The section as the effective config prints it. */
    static Map<String, Object> effective(Config.Idempotency i) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("windowMs", i.windowMs());
        m.put("maxBytes", i.maxBytes());
        m.put("maxEntries", i.maxEntries());
        m.put("maxRecordedBytes", i.maxRecordedBytes());
        return m;
    }
}
