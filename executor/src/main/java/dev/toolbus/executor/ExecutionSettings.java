package dev.toolbus.executor;

import dev.toolbus.tool.DescriptionLocale;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Immutable execution settings. Out-of-range or unreadable values never fail: they fall back as
 * the table in docs/configuration.md says, and every fallback is recorded in {@link #warnings()}
 * (and logged by the executor).
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><th>setting</th><th>default</th><th>fallback</th></tr>
 *   <tr><td>timeout</td><td>30000 ms</td><td>&lt; 1000 → 1000; not a number → default</td></tr>
 *   <tr><td>maxParallel</td><td>5</td><td>&lt; 1 → 1; &gt; 20 → 20; not an integer → default</td></tr>
 *   <tr><td>retryOnError</td><td>false</td><td>not a boolean → default</td></tr>
 *   <tr><td>maxRetries</td><td>2</td><td>clamped to 0..10; not an integer → default</td></tr>
 *   <tr><td>cacheResults</td><td>true</td><td>not a boolean → default</td></tr>
 *   <tr><td>cacheTtl</td><td>60000 ms</td><td>&lt; 0 → 0 (disabled); not a number → default</td></tr>
 *   <tr><td>progressIntervalMs</td><td>100 ms</td><td>&lt; 0 → 0 (no rate limit); not a number → default</td></tr>
 *   <tr><td>inputTimeoutMs</td><td>60000 ms</td><td>&lt; 1000 → 1000; not a number → default</td></tr>
 * </table>
 *
 * @param timeout per-call timeout (a tool's own timeout overrides it)
 * @param maxParallel handlers running at once across all streams, 1..20
 * @param retryOnError whether exceptions and timeouts are retried
 * @param maxRetries retries after the first attempt, 0..10
 * @param cacheResults whether results are cached
 * @param cacheTtl how long a cached result lives; zero disables the cache
 * @param cacheMaxEntries the cache's bound
 * @param locale the language of generated text
 * @param maxMediaBytes the bound of one decoded media item
 * @param maxQueuedCalls calls waiting for a slot above which new calls are answered {@code REJECTED}
 * @param progressInterval the shortest time between two {@code tool_progress} events of one call (zero:
 *     no rate limit)
 * @param inputTimeout how long a tool's question ({@code input_request}) waits for an answer by default
 * @param warnings the fallbacks applied while building these settings
 */
public record ExecutionSettings(
        Duration timeout,
        int maxParallel,
        boolean retryOnError,
        int maxRetries,
        boolean cacheResults,
        Duration cacheTtl,
        long cacheMaxEntries,
        DescriptionLocale locale,
        long maxMediaBytes,
        int maxQueuedCalls,
        Duration progressInterval,
        Duration inputTimeout,
        List<String> warnings) {

    public static final long DEFAULT_TIMEOUT_MS = 30_000;
    public static final long MIN_TIMEOUT_MS = 1_000;
    public static final int DEFAULT_MAX_PARALLEL = 5;
    public static final int MAX_PARALLEL_LIMIT = 20;
    public static final int DEFAULT_MAX_RETRIES = 2;
    public static final int MAX_RETRIES_LIMIT = 10;
    public static final long DEFAULT_CACHE_TTL_MS = 60_000;
    public static final long DEFAULT_CACHE_MAX_ENTRIES = 10_000;
    public static final long DEFAULT_MAX_MEDIA_BYTES = 8L * 1024 * 1024;
    public static final int DEFAULT_MAX_QUEUED_CALLS = 100_000;
    public static final long DEFAULT_PROGRESS_INTERVAL_MS = 100;
    public static final long DEFAULT_INPUT_TIMEOUT_MS = 60_000;
    public static final long MIN_INPUT_TIMEOUT_MS = 1_000;

    public ExecutionSettings {
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(cacheTtl, "cacheTtl");
        Objects.requireNonNull(locale, "locale");
        Objects.requireNonNull(progressInterval, "progressInterval");
        Objects.requireNonNull(inputTimeout, "inputTimeout");
        if (progressInterval.isNegative() || inputTimeout.toMillis() < 1 || timeout.toMillis() < 1 || maxParallel < 1 || maxParallel > MAX_PARALLEL_LIMIT || maxRetries < 0
                || maxRetries > MAX_RETRIES_LIMIT || cacheTtl.isNegative() || cacheMaxEntries < 1
                || maxMediaBytes < 1 || maxQueuedCalls < 1) {
            throw new IllegalArgumentException("settings out of range; build them with ExecutionSettings.builder()");
        }
        warnings = List.copyOf(warnings);
    }

    /** The defaults. */
    public static ExecutionSettings defaults() {
        return builder().build();
    }

    /** Starts a builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder initialised from these settings (warnings are not carried over). */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.timeoutMs = timeout.toMillis();
        b.maxParallel = maxParallel;
        b.retryOnError = retryOnError;
        b.maxRetries = maxRetries;
        b.cacheResults = cacheResults;
        b.cacheTtlMs = cacheTtl.toMillis();
        b.cacheMaxEntries = cacheMaxEntries;
        b.locale = locale;
        b.maxMediaBytes = maxMediaBytes;
        b.maxQueuedCalls = maxQueuedCalls;
        b.progressIntervalMs = progressInterval.toMillis();
        b.inputTimeoutMs = inputTimeout.toMillis();
        return b;
    }

    /**
     * Settings from loosely typed values, as a config file or flags give them (numbers, strings,
     * booleans). Keys: {@code timeout}, {@code maxParallel}, {@code retryOnError}, {@code maxRetries},
     * {@code cacheResults}, {@code cacheTTL}, {@code cacheMaxEntries}, {@code locale},
     * {@code maxMediaBytes}, {@code maxQueuedCalls}, {@code progressIntervalMs}, {@code inputTimeoutMs}.
     * Unknown keys are warned about.
     */
    public static ExecutionSettings fromMap(Map<String, ?> raw) {
        Builder b = builder();
        raw.forEach((k, v) -> {
            switch (k) {
                case "timeout" -> b.timeoutMs(v);
                case "maxParallel" -> b.maxParallel(v);
                case "retryOnError" -> b.retryOnError(v);
                case "maxRetries" -> b.maxRetries(v);
                case "cacheResults" -> b.cacheResults(v);
                case "cacheTTL", "cacheTtl" -> b.cacheTtlMs(v);
                case "cacheMaxEntries" -> b.cacheMaxEntries(v);
                case "locale" -> b.locale(v);
                case "maxMediaBytes" -> b.maxMediaBytes(v);
                case "maxQueuedCalls" -> b.maxQueuedCalls(v);
                case "progressIntervalMs" -> b.progressIntervalMs(v);
                case "inputTimeoutMs" -> b.inputTimeoutMs(v);
                default -> b.warn("execution." + k + " is not a known setting; ignored");
            }
        });
        return b.build();
    }

    /**
     * Builder with fallbacks: setters accept loosely typed values and never throw for a bad value;
     * they fall back and record a warning.
     */
    public static final class Builder {
        private long timeoutMs = DEFAULT_TIMEOUT_MS;
        private int maxParallel = DEFAULT_MAX_PARALLEL;
        private boolean retryOnError;
        private int maxRetries = DEFAULT_MAX_RETRIES;
        private boolean cacheResults = true;
        private long cacheTtlMs = DEFAULT_CACHE_TTL_MS;
        private long cacheMaxEntries = DEFAULT_CACHE_MAX_ENTRIES;
        private DescriptionLocale locale = DescriptionLocale.EN;
        private long maxMediaBytes = DEFAULT_MAX_MEDIA_BYTES;
        private int maxQueuedCalls = DEFAULT_MAX_QUEUED_CALLS;
        private long progressIntervalMs = DEFAULT_PROGRESS_INTERVAL_MS;
        private long inputTimeoutMs = DEFAULT_INPUT_TIMEOUT_MS;
        private final List<String> warnings = new ArrayList<>();

        private Builder() {
        }

        void warn(String message) {
            warnings.add(message);
        }

        /** Per-call timeout in ms: below 1000 → 1000; not a number → 30000. */
        public Builder timeoutMs(Object value) {
            Double d = number(value);
            if (d == null) {
                warn("timeout '" + value + "' is not a number; using " + DEFAULT_TIMEOUT_MS + " ms");
                timeoutMs = DEFAULT_TIMEOUT_MS;
            } else if (d < MIN_TIMEOUT_MS) {
                warn("timeout " + fmt(d) + " ms is below " + MIN_TIMEOUT_MS + "; using " + MIN_TIMEOUT_MS + " ms");
                timeoutMs = MIN_TIMEOUT_MS;
            } else {
                timeoutMs = (long) Math.min(d, Long.MAX_VALUE / 2_000_000.0);
            }
            return this;
        }

        /** Per-call timeout. */
        public Builder timeout(Duration timeout) {
            return timeoutMs(timeout == null ? null : timeout.toMillis());
        }

        /** Handlers at once: below 1 → 1; above 20 → 20; not an integer → 5. */
        public Builder maxParallel(Object value) {
            Long n = integer(value);
            if (n == null) {
                warn("maxParallel '" + value + "' is not an integer; using " + DEFAULT_MAX_PARALLEL);
                maxParallel = DEFAULT_MAX_PARALLEL;
            } else if (n < 1) {
                warn("maxParallel " + n + " is below 1; using 1");
                maxParallel = 1;
            } else if (n > MAX_PARALLEL_LIMIT) {
                warn("maxParallel " + n + " is above " + MAX_PARALLEL_LIMIT + "; using " + MAX_PARALLEL_LIMIT);
                maxParallel = MAX_PARALLEL_LIMIT;
            } else {
                maxParallel = n.intValue();
            }
            return this;
        }

        /** Whether exceptions and timeouts are retried. */
        public Builder retryOnError(Object value) {
            Boolean b = bool(value);
            if (b == null) {
                warn("retryOnError '" + value + "' is not a boolean; using false");
                retryOnError = false;
            } else {
                retryOnError = b;
            }
            return this;
        }

        /** Retries after the first attempt: clamped to 0..10; not an integer → 2. */
        public Builder maxRetries(Object value) {
            Long n = integer(value);
            if (n == null) {
                warn("maxRetries '" + value + "' is not an integer; using " + DEFAULT_MAX_RETRIES);
                maxRetries = DEFAULT_MAX_RETRIES;
            } else if (n < 0) {
                warn("maxRetries " + n + " is below 0; using 0");
                maxRetries = 0;
            } else if (n > MAX_RETRIES_LIMIT) {
                warn("maxRetries " + n + " is above " + MAX_RETRIES_LIMIT + "; using " + MAX_RETRIES_LIMIT);
                maxRetries = MAX_RETRIES_LIMIT;
            } else {
                maxRetries = n.intValue();
            }
            return this;
        }

        /** Whether results are cached. */
        public Builder cacheResults(Object value) {
            Boolean b = bool(value);
            if (b == null) {
                warn("cacheResults '" + value + "' is not a boolean; using true");
                cacheResults = true;
            } else {
                cacheResults = b;
            }
            return this;
        }

        /** Cache TTL in ms: below 0 → 0 (disabled); not a number → 60000. */
        public Builder cacheTtlMs(Object value) {
            Double d = number(value);
            if (d == null) {
                warn("cacheTTL '" + value + "' is not a number; using " + DEFAULT_CACHE_TTL_MS + " ms");
                cacheTtlMs = DEFAULT_CACHE_TTL_MS;
            } else if (d < 0) {
                warn("cacheTTL " + fmt(d) + " is below 0; using 0 (cache disabled)");
                cacheTtlMs = 0;
            } else {
                cacheTtlMs = (long) Math.min(d, Long.MAX_VALUE / 2_000_000.0);
            }
            return this;
        }

        /** Cache TTL. */
        public Builder cacheTtl(Duration ttl) {
            return cacheTtlMs(ttl == null ? null : ttl.toMillis());
        }

        /** The cache's bound: below 1 → 10000. */
        public Builder cacheMaxEntries(Object value) {
            Long n = integer(value);
            if (n == null || n < 1) {
                warn("cacheMaxEntries '" + value + "' is not a positive integer; using " + DEFAULT_CACHE_MAX_ENTRIES);
                cacheMaxEntries = DEFAULT_CACHE_MAX_ENTRIES;
            } else {
                cacheMaxEntries = n;
            }
            return this;
        }

        /** The locale of generated text: en or zh; anything else → en. */
        public Builder locale(Object value) {
            if (value instanceof DescriptionLocale l) {
                locale = l;
                return this;
            }
            try {
                locale = DescriptionLocale.parse(value == null ? null : value.toString());
            } catch (IllegalArgumentException e) {
                warn("locale '" + value + "' is not en or zh; using en");
                locale = DescriptionLocale.EN;
            }
            return this;
        }

        /** The bound of one decoded media item in bytes: below 1 → 8 MiB. */
        public Builder maxMediaBytes(Object value) {
            Long n = integer(value);
            if (n == null || n < 1) {
                warn("maxMediaBytes '" + value + "' is not a positive integer; using " + DEFAULT_MAX_MEDIA_BYTES);
                maxMediaBytes = DEFAULT_MAX_MEDIA_BYTES;
            } else {
                maxMediaBytes = n;
            }
            return this;
        }

        /** Calls waiting for a slot above which new calls are rejected: below 1 → 100000. */
        public Builder maxQueuedCalls(Object value) {
            Long n = integer(value);
            if (n == null || n < 1 || n > Integer.MAX_VALUE) {
                warn("maxQueuedCalls '" + value + "' is not a positive integer; using " + DEFAULT_MAX_QUEUED_CALLS);
                maxQueuedCalls = DEFAULT_MAX_QUEUED_CALLS;
            } else {
                maxQueuedCalls = n.intValue();
            }
            return this;
        }

        /** Shortest time between two progress events of one call, in ms: below 0 → 0 (none); not a number → 100. */
        public Builder progressIntervalMs(Object value) {
            Double d = number(value);
            if (d == null) {
                warn("progressIntervalMs '" + value + "' is not a number; using " + DEFAULT_PROGRESS_INTERVAL_MS);
                progressIntervalMs = DEFAULT_PROGRESS_INTERVAL_MS;
            } else if (d < 0) {
                warn("progressIntervalMs " + fmt(d) + " is below 0; using 0 (no rate limit)");
                progressIntervalMs = 0;
            } else {
                progressIntervalMs = (long) Math.min(d, Long.MAX_VALUE / 2_000_000.0);
            }
            return this;
        }

        /** Default wait for the answer to a tool's question, in ms: below 1000 → 1000; not a number → 60000. */
        public Builder inputTimeoutMs(Object value) {
            Double d = number(value);
            if (d == null) {
                warn("inputTimeoutMs '" + value + "' is not a number; using " + DEFAULT_INPUT_TIMEOUT_MS);
                inputTimeoutMs = DEFAULT_INPUT_TIMEOUT_MS;
            } else if (d < MIN_INPUT_TIMEOUT_MS) {
                warn("inputTimeoutMs " + fmt(d) + " is below " + MIN_INPUT_TIMEOUT_MS + "; using "
                        + MIN_INPUT_TIMEOUT_MS);
                inputTimeoutMs = MIN_INPUT_TIMEOUT_MS;
            } else {
                inputTimeoutMs = (long) Math.min(d, Long.MAX_VALUE / 2_000_000.0);
            }
            return this;
        }

        public ExecutionSettings build() {
            return new ExecutionSettings(Duration.ofMillis(timeoutMs), maxParallel, retryOnError, maxRetries,
                    cacheResults, Duration.ofMillis(cacheTtlMs), cacheMaxEntries, locale, maxMediaBytes,
                    maxQueuedCalls, Duration.ofMillis(progressIntervalMs), Duration.ofMillis(inputTimeoutMs),
                    warnings);
        }

        private static String fmt(double d) {
            return d == Math.rint(d) && !Double.isInfinite(d) ? Long.toString((long) d) : Double.toString(d);
        }

        private static Double number(Object v) {
            double d;
            if (v instanceof Number n) {
                d = n.doubleValue();
            } else if (v instanceof String s && !s.isBlank()) {
                try {
                    d = Double.parseDouble(s.strip());
                } catch (NumberFormatException e) {
                    return null;
                }
            } else {
                return null;
            }
            return Double.isNaN(d) || Double.isInfinite(d) ? null : d;
        }

        private static Long integer(Object v) {
            Double d = number(v);
            if (d == null || d != Math.rint(d) || Math.abs(d) > 1e15) {
                return null;
            }
            return d.longValue();
        }

        private static Boolean bool(Object v) {
            if (v instanceof Boolean b) {
                return b;
            }
            if (v instanceof String s) {
                String t = s.strip().toLowerCase(java.util.Locale.ROOT);
                if (t.equals("true")) {
                    return true;
                }
                if (t.equals("false")) {
                    return false;
                }
            }
            return null;
        }
    }
}
