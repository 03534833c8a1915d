package dev.toolbus.executor.settings;

import dev.toolbus.internal.LooseNumbers;
import dev.toolbus.text.DescriptionLocale;
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
 *   <tr><td>cacheMaxBytes</td><td>64 MiB</td><td>&lt; 1 → default</td></tr>
 *   <tr><td>cacheMaxKeyBytes</td><td>16 KiB</td><td>&lt; 1 → default</td></tr>
 *   <tr><td>cacheMaxResultBytes</td><td>256 KiB</td><td>&lt; 1 → default</td></tr>
 *   <tr><td>maxCallsPerTurn</td><td>128</td><td>&lt; 1 → default</td></tr>
 *   <tr><td>maxResultChars</td><td>20000</td><td>0 → off; &lt; 0 or not an integer → default; 1..99 → 100</td></tr>
 *   <tr><td>maxResultCharsByTool</td><td>none</td><td>a bad entry is dropped with a warning</td></tr>
 *   <tr><td>resultStoreTtlMs</td><td>1800000 ms</td><td>&lt; 1000 → 1000; not a number → default</td></tr>
 *   <tr><td>resultStoreMaxBytes</td><td>32 MiB</td><td>&lt; 1 → default</td></tr>
 *   <tr><td>resultStoreMaxEntries</td><td>1000</td><td>&lt; 1 → default</td></tr>
 *   <tr><td>cacheTools</td><td>none</td><td>not a list → ignored; a blank or non-string entry is dropped</td></tr>
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
 * @param cacheMaxBytes the cache's bound in (estimated) bytes of keys and results
 * @param cacheMaxKeyBytes calls whose cache key (tool, scope and canonical arguments) is longer are not
 *     cached
 * @param cacheMaxResultBytes results larger than this (estimated) are handed to identical waiting calls
 *     but not kept
 * @param maxCallsPerTurn a turn with more calls is answered with one error per call, none is run
 * @param results the result size limit and the store of full texts that {@code read_tool_result} reads
 * @param cacheTools tools whose results may be cached although they do not declare themselves cacheable
 *     (plugin tools opt in per tool, docs/plugins.md §8.7): tool names or plugin ids, case-insensitive,
 *     {@code *} globs allowed; side-effecting and dangerous tools are never cached
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
        long cacheMaxBytes,
        int cacheMaxKeyBytes,
        long cacheMaxResultBytes,
        int maxCallsPerTurn,
        ResultLimits results,
        List<String> cacheTools,
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
    public static final long DEFAULT_CACHE_MAX_BYTES = 64L * 1024 * 1024;
    public static final int DEFAULT_CACHE_MAX_KEY_BYTES = 16 * 1024;
    public static final long DEFAULT_CACHE_MAX_RESULT_BYTES = 256L * 1024;
    public static final int DEFAULT_MAX_CALLS_PER_TURN = 128;
    /** The longest duration a setting takes, in ms (about 146 years: far enough from overflow in nanoseconds). */
    public static final long MAX_DURATION_MS = Long.MAX_VALUE / 2_000_000;

    public ExecutionSettings {
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(cacheTtl, "cacheTtl");
        Objects.requireNonNull(locale, "locale");
        Objects.requireNonNull(progressInterval, "progressInterval");
        Objects.requireNonNull(inputTimeout, "inputTimeout");
        Objects.requireNonNull(results, "results");
        cacheTools = List.copyOf(cacheTools);
        if (progressInterval.isNegative() || inputTimeout.toMillis() < 1 || timeout.toMillis() < 1 || maxParallel < 1 || maxParallel > MAX_PARALLEL_LIMIT || maxRetries < 0
                || maxRetries > MAX_RETRIES_LIMIT || cacheTtl.isNegative() || cacheMaxEntries < 1
                || maxMediaBytes < 1 || maxQueuedCalls < 1 || cacheMaxBytes < 1 || cacheMaxKeyBytes < 1
                || cacheMaxResultBytes < 1 || maxCallsPerTurn < 1) {
            throw new IllegalArgumentException("settings out of range; build them with ExecutionSettings.builder()");
        }
        warnings = List.copyOf(warnings);
    }

    /** Settings without {@code cacheTools} (the components before the config could opt tools in to caching). */
    public ExecutionSettings(Duration timeout, int maxParallel, boolean retryOnError, int maxRetries,
                             boolean cacheResults, Duration cacheTtl, long cacheMaxEntries, DescriptionLocale locale,
                             long maxMediaBytes, int maxQueuedCalls, Duration progressInterval, Duration inputTimeout,
                             long cacheMaxBytes, int cacheMaxKeyBytes, long cacheMaxResultBytes, int maxCallsPerTurn,
                             ResultLimits results, List<String> warnings) {
        this(timeout, maxParallel, retryOnError, maxRetries, cacheResults, cacheTtl, cacheMaxEntries, locale,
                maxMediaBytes, maxQueuedCalls, progressInterval, inputTimeout, cacheMaxBytes, cacheMaxKeyBytes,
                cacheMaxResultBytes, maxCallsPerTurn, results, List.of(), warnings);
    }

    /** Settings with the default {@link ResultLimits} (the components before result limits existed). */
    public ExecutionSettings(Duration timeout, int maxParallel, boolean retryOnError, int maxRetries,
                             boolean cacheResults, Duration cacheTtl, long cacheMaxEntries, DescriptionLocale locale,
                             long maxMediaBytes, int maxQueuedCalls, Duration progressInterval, Duration inputTimeout,
                             long cacheMaxBytes, int cacheMaxKeyBytes, long cacheMaxResultBytes, int maxCallsPerTurn,
                             List<String> warnings) {
        this(timeout, maxParallel, retryOnError, maxRetries, cacheResults, cacheTtl, cacheMaxEntries, locale,
                maxMediaBytes, maxQueuedCalls, progressInterval, inputTimeout, cacheMaxBytes, cacheMaxKeyBytes,
                cacheMaxResultBytes, maxCallsPerTurn, ResultLimits.DEFAULTS, warnings);
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
        b.cacheMaxBytes = cacheMaxBytes;
        b.cacheMaxKeyBytes = cacheMaxKeyBytes;
        b.cacheMaxResultBytes = cacheMaxResultBytes;
        b.maxCallsPerTurn = maxCallsPerTurn;
        b.results = results.toBuilder();
        b.cacheTools = cacheTools;
        return b;
    }

    /**
     * Settings from loosely typed values, as a config file or flags give them (numbers, strings,
     * booleans). Keys: {@code timeout}, {@code maxParallel}, {@code retryOnError}, {@code maxRetries},
     * {@code cacheResults}, {@code cacheTTL}, {@code cacheMaxEntries}, {@code locale},
     * {@code maxMediaBytes}, {@code maxQueuedCalls}, {@code progressIntervalMs}, {@code inputTimeoutMs},
     * {@code cacheMaxBytes}, {@code cacheMaxKeyBytes}, {@code cacheMaxResultBytes}, {@code maxCallsPerTurn},
     * {@code maxResultChars}, {@code maxResultCharsByTool}, {@code resultStoreTtlMs}, {@code resultStoreMaxBytes},
     * {@code resultStoreMaxEntries}, {@code cacheTools}. Unknown keys are warned about.
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
                case "cacheMaxBytes" -> b.cacheMaxBytes(v);
                case "cacheMaxKeyBytes" -> b.cacheMaxKeyBytes(v);
                case "cacheMaxResultBytes" -> b.cacheMaxResultBytes(v);
                case "maxCallsPerTurn" -> b.maxCallsPerTurn(v);
                case "maxResultChars" -> b.maxResultChars(v);
                case "maxResultCharsByTool" -> b.maxResultCharsByTool(v);
                case "resultStoreTtlMs" -> b.resultStoreTtlMs(v);
                case "resultStoreMaxBytes" -> b.resultStoreMaxBytes(v);
                case "resultStoreMaxEntries" -> b.resultStoreMaxEntries(v);
                case "cacheTools" -> b.cacheTools(v);
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
        private long cacheMaxBytes = DEFAULT_CACHE_MAX_BYTES;
        private int cacheMaxKeyBytes = DEFAULT_CACHE_MAX_KEY_BYTES;
        private long cacheMaxResultBytes = DEFAULT_CACHE_MAX_RESULT_BYTES;
        private int maxCallsPerTurn = DEFAULT_MAX_CALLS_PER_TURN;
        private ResultLimits.Builder results = ResultLimits.builder();
        private List<String> cacheTools = List.of();
        private final List<String> warnings = new ArrayList<>();

        private Builder() {
        }

        void warn(String message) {
            warnings.add(message);
        }

        /** Per-call timeout in ms: below 1000 → 1000; not a number → 30000. */
        public Builder timeoutMs(Object value) {
            Double d = LooseNumbers.number(value);
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
            Long n = LooseNumbers.integer(value);
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
            Long n = LooseNumbers.integer(value);
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
            Double d = LooseNumbers.number(value);
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
            Long n = LooseNumbers.integer(value);
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
            Long n = LooseNumbers.integer(value);
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
            Long n = LooseNumbers.integer(value);
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
            Double d = LooseNumbers.number(value);
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
            Double d = LooseNumbers.number(value);
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

        /** The cache's bound in estimated bytes of keys and kept results: below 1 → 64 MiB. */
        public Builder cacheMaxBytes(Object value) {
            cacheMaxBytes = positive("cacheMaxBytes", value, DEFAULT_CACHE_MAX_BYTES, Long.MAX_VALUE);
            return this;
        }

        /** Calls with a longer cache key (tool, scope, canonical arguments) are not cached: below 1 → 16 KiB. */
        public Builder cacheMaxKeyBytes(Object value) {
            cacheMaxKeyBytes = (int) positive("cacheMaxKeyBytes", value, DEFAULT_CACHE_MAX_KEY_BYTES, 64L * 1024 * 1024);
            return this;
        }

        /** Results estimated larger than this are not kept: below 1 → 256 KiB. */
        public Builder cacheMaxResultBytes(Object value) {
            cacheMaxResultBytes = positive("cacheMaxResultBytes", value, DEFAULT_CACHE_MAX_RESULT_BYTES, Long.MAX_VALUE);
            return this;
        }

        /** Calls one turn may carry; a longer turn is answered with one error per call: below 1 → 128. */
        public Builder maxCallsPerTurn(Object value) {
            maxCallsPerTurn = (int) positive("maxCallsPerTurn", value, DEFAULT_MAX_CALLS_PER_TURN, 100_000);
            return this;
        }

        /**
         * The most characters of a result's text the model gets (0: no limit): negative or not an
         * integer → 20000; 1..99 → 100. See {@link ResultLimits}.
         */
        public Builder maxResultChars(Object value) {
            Long n = LooseNumbers.integer(value);
            if (n == null || n < 0) {
                warn("maxResultChars '" + value + "' is not a whole number >= 0; using "
                        + ResultLimits.DEFAULT_MAX_CHARS);
                results.maxChars(ResultLimits.DEFAULT_MAX_CHARS);
            } else if (n > 0 && n < ResultLimits.MIN_MAX_CHARS) {
                warn("maxResultChars " + n + " is below " + ResultLimits.MIN_MAX_CHARS + "; using "
                        + ResultLimits.MIN_MAX_CHARS);
                results.maxChars(ResultLimits.MIN_MAX_CHARS);
            } else {
                results.maxChars((int) Math.min(n, Integer.MAX_VALUE));
            }
            return this;
        }

        /**
         * Per-tool limits, tool name (or a {@code *} glob) → characters (0: never cut). Entries that are
         * not a name with a whole number >= 0 are dropped with a warning; 1..99 → 100.
         */
        public Builder maxResultCharsByTool(Object value) {
            java.util.Map<String, Integer> out = new java.util.LinkedHashMap<>();
            if (!(value instanceof java.util.Map<?, ?> m)) {
                warn("maxResultCharsByTool must be a mapping of tool name to characters, got '" + value
                        + "'; ignored");
                results.byTool(out);
                return this;
            }
            m.forEach((k, v) -> {
                String name = k == null ? "" : k.toString().strip();
                Long n = LooseNumbers.integer(v);
                if (name.isEmpty()) {
                    warn("maxResultCharsByTool has an empty tool name; ignored");
                } else if (n == null || n < 0) {
                    warn("maxResultCharsByTool." + name + " '" + v + "' is not a whole number >= 0; ignored");
                } else if (n > 0 && n < ResultLimits.MIN_MAX_CHARS) {
                    warn("maxResultCharsByTool." + name + " " + n + " is below " + ResultLimits.MIN_MAX_CHARS
                            + "; using " + ResultLimits.MIN_MAX_CHARS);
                    out.put(name, ResultLimits.MIN_MAX_CHARS);
                } else {
                    out.put(name, (int) Math.min(n, Integer.MAX_VALUE));
                }
            });
            results.byTool(out);
            return this;
        }

        /** How long a cut result's full text stays readable, in ms: below 1000 → 1000; not a number → 30 min. */
        public Builder resultStoreTtlMs(Object value) {
            Double d = LooseNumbers.number(value);
            if (d == null) {
                warn("resultStoreTtlMs '" + value + "' is not a number; using " + ResultLimits.DEFAULT_STORE_TTL_MS);
                results.storeTtl(Duration.ofMillis(ResultLimits.DEFAULT_STORE_TTL_MS));
            } else if (d < MIN_TIMEOUT_MS) {
                warn("resultStoreTtlMs " + fmt(d) + " is below 1000; using 1000");
                results.storeTtl(Duration.ofMillis(1_000));
            } else {
                results.storeTtl(Duration.ofMillis((long) Math.min(d, Long.MAX_VALUE / 2_000_000.0)));
            }
            return this;
        }

        /** The store of full texts in estimated bytes: below 1 → 32 MiB. */
        public Builder resultStoreMaxBytes(Object value) {
            results.storeMaxBytes(positive("resultStoreMaxBytes", value, ResultLimits.DEFAULT_STORE_MAX_BYTES,
                    Long.MAX_VALUE));
            return this;
        }

        /** The store of full texts in entries: below 1 → 1000. */
        public Builder resultStoreMaxEntries(Object value) {
            results.storeMaxEntries(positive("resultStoreMaxEntries", value, ResultLimits.DEFAULT_STORE_MAX_ENTRIES,
                    10_000_000));
            return this;
        }

        /**
         * Tools whose results may be cached without declaring themselves cacheable: tool names or plugin
         * ids ({@code *} globs, case-insensitive). Not a list → warning, ignored; a blank or non-string
         * entry → warning, dropped.
         */
        public Builder cacheTools(Object value) {
            List<String> out = new ArrayList<>();
            if (!(value instanceof java.util.Collection<?> c)) {
                warn("cacheTools must be a list of tool names or plugin ids, got '" + value + "'; ignored");
                cacheTools = List.of();
                return this;
            }
            for (Object x : c) {
                if (x instanceof String t && !t.isBlank()) {
                    out.add(t.strip());
                } else {
                    warn("cacheTools entry '" + x + "' is not a tool name or plugin id; dropped");
                }
            }
            cacheTools = List.copyOf(out);
            return this;
        }

        /** The result limits as a whole. */
        public Builder results(ResultLimits limits) {
            this.results = Objects.requireNonNull(limits, "limits").toBuilder();
            return this;
        }

        private long positive(String key, Object value, long fallback, long max) {
            Long n = LooseNumbers.integer(value);
            if (n == null || n < 1) {
                warn(key + " '" + value + "' is not a positive integer; using " + fallback);
                return fallback;
            }
            if (n > max) {
                warn(key + " " + n + " is above " + max + "; using " + max);
                return max;
            }
            return n;
        }

        public ExecutionSettings build() {
            return new ExecutionSettings(Duration.ofMillis(timeoutMs), maxParallel, retryOnError, maxRetries,
                    cacheResults, Duration.ofMillis(cacheTtlMs), cacheMaxEntries, locale, maxMediaBytes,
                    maxQueuedCalls, Duration.ofMillis(progressIntervalMs), Duration.ofMillis(inputTimeoutMs),
                    cacheMaxBytes, cacheMaxKeyBytes, cacheMaxResultBytes, maxCallsPerTurn, results.build(), cacheTools,
                    warnings);
        }

        private static String fmt(double d) {
            return d == Math.rint(d) && !Double.isInfinite(d) ? Long.toString((long) d) : Double.toString(d);
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
