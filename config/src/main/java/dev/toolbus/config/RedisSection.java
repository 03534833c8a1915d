package dev.toolbus.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** Reads {@code bus.redis}: how soon a dead or stalled instance's turns move to another (Redis bus). */
final class RedisSection {

    private RedisSection() {
    }

    static Config.RedisFailover read(ConfigLoader.Reader in, Map<String, Object> bus) {
        Map<String, Object> m = in.section(bus, "redis", "bus", Set.of("claimMinIdleMs", "claimIntervalMs", "claimBatch"));
        Config.RedisFailover d = Config.RedisFailover.DEFAULTS;
        String p = "bus.redis";
        long idle = in.integer(m, "claimMinIdleMs", p, d.claimMinIdleMs(), 1_000, 86_400_000);
        long interval = in.integer(m, "claimIntervalMs", p, d.claimIntervalMs(), 100, 3_600_000);
        if (interval * 2 > idle) {
            // renewals slower than half the idle time let a live instance's leases lapse: its turns would move
            long fixed = Math.max(100, idle / 3);
            in.warn(p + ".claimIntervalMs", interval + " is more than half of claimMinIdleMs (" + idle
                    + "): a live instance's leases could lapse between renewals; using " + fixed);
            interval = fixed;
        }
        long batch = in.integer(m, "claimBatch", p, d.claimBatch(), 1, 10_000);
        return new Config.RedisFailover(idle, interval, (int) batch);
    }

    /** The section as the effective config prints it. */
    static Map<String, Object> effective(Config.RedisFailover r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("claimMinIdleMs", r.claimMinIdleMs());
        m.put("claimIntervalMs", r.claimIntervalMs());
        m.put("claimBatch", r.claimBatch());
        return m;
    }
}
