package dev.toolbus.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** Reads {@code bus.idempotency}: the window and bounds of the executor's ledger of idempotent turns. */
final class IdempotencySection {

    private IdempotencySection() {
    }

    static IdempotencyConfig read(ConfigLoader.Reader in, Map<String, Object> bus) {
        Map<String, Object> m = in.section(bus, "idempotency", "bus",
                Set.of("windowMs", "maxBytes", "maxEntries", "maxRecordedBytes"));
        IdempotencyConfig d = IdempotencyConfig.DEFAULTS;
        String p = "bus.idempotency";
        return IdempotencyConfig.builder()
                .windowMs(in.integer(m, "windowMs", p, d.windowMs(), 0, IdempotencyConfig.MAX_WINDOW_MS))
                .maxBytes(in.integer(m, "maxBytes", p, d.maxBytes(), IdempotencyConfig.MIN_MAX_BYTES,
                        IdempotencyConfig.MAX_MAX_BYTES))
                .maxEntries(in.integer(m, "maxEntries", p, d.maxEntries(), 1, IdempotencyConfig.MAX_MAX_ENTRIES))
                .maxRecordedBytes(in.integer(m, "maxRecordedBytes", p, d.maxRecordedBytes(), 0,
                        IdempotencyConfig.MAX_RECORDED_BYTES))
                .build();
    }

    /** The section as the effective config prints it. */
    static Map<String, Object> effective(IdempotencyConfig i) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("windowMs", i.windowMs());
        m.put("maxBytes", i.maxBytes());
        m.put("maxEntries", i.maxEntries());
        m.put("maxRecordedBytes", i.maxRecordedBytes());
        return m;
    }
}
