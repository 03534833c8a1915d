package dev.toolbus.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** Reads {@code bus.redis}: how soon a dead or stalled instance's turns move to another (Redis bus). */
final class RedisSection {

    private RedisSection() {
    }

    static RedisFailoverConfig read(ConfigLoader.Reader in, Map<String, Object> bus) {
        Map<String, Object> m = in.section(bus, "redis", "bus", Set.of("claimMinIdleMs", "claimIntervalMs", "claimBatch"));
        RedisFailoverConfig d = RedisFailoverConfig.DEFAULTS;
        String p = "bus.redis";
        long idle = in.integer(m, "claimMinIdleMs", p, d.claimMinIdleMs(),
                RedisFailoverConfig.MIN_IDLE_MS, RedisFailoverConfig.MAX_IDLE_MS);
        long interval = in.integer(m, "claimIntervalMs", p, d.claimIntervalMs(),
                RedisFailoverConfig.MIN_INTERVAL_MS, RedisFailoverConfig.MAX_INTERVAL_MS);
        if (interval * 2 > idle) {
            // renewals slower than half the idle time let a live instance's leases lapse: its turns would move
            long fixed = Math.max(RedisFailoverConfig.MIN_INTERVAL_MS, idle / 3);
            in.warn(p + ".claimIntervalMs", interval + " is more than half of claimMinIdleMs (" + idle
                    + "): a live instance's leases could lapse between renewals; using " + fixed);
            interval = fixed;
        }
        long batch = in.integer(m, "claimBatch", p, d.claimBatch(), 1, RedisFailoverConfig.MAX_BATCH);
        return RedisFailoverConfig.builder().claimMinIdleMs(idle).claimIntervalMs(interval).claimBatch((int) batch)
                .build();
    }

    /** The section as the effective config prints it. */
    static Map<String, Object> effective(RedisFailoverConfig r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("claimMinIdleMs", r.claimMinIdleMs());
        m.put("claimIntervalMs", r.claimIntervalMs());
        m.put("claimBatch", r.claimBatch());
        return m;
    }
}
