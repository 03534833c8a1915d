package dev.toolbus.assembly;

import dev.toolbus.executor.limits.Limits;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shared bucket store of {@code limits.store: redis} (or rules with {@code shared: true}): on
 * {@code limits.redisUrl}, else on the Redis bus. Without either, shared rules count per instance (warned).
 */
final class SharedLimits {

    private static final Logger log = LoggerFactory.getLogger(SharedLimits.class);

    private SharedLimits() {
    }

    /** The store, or {@code null} when no rule is shared or there is no Redis to share on. */
    static Buses.SharedBuckets open(Limits limits, BusAddress bus, Consumer<String> warnings) {
        if (!limits.anyShared() && !limits.store().equals("redis")) {
            return null;
        }
        String url = !limits.redisUrl().isEmpty() ? limits.redisUrl()
                : BusAddress.REDIS.equals(bus.scheme()) ? bus.address() : null;
        if (url == null) {
            warnings.accept("limits: shared buckets need a Redis (limits.redisUrl or a Redis bus); each instance counts "
                    + "alone");
            return null;
        }
        log.info("limits: shared token buckets on {}", mask(url));
        return Buses.Brokers.rateLimitStore(url);
    }

    private static String mask(String url) {
        return url.replaceAll("//([^@/]*)@", "//***@");
    }
}
