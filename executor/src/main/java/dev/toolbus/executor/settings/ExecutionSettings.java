package dev.toolbus.executor.settings;

import static dev.toolbus.spi.Checks.requireArgument;
import static dev.toolbus.spi.Checks.requireMillis;
import static dev.toolbus.spi.Checks.requireRange;

import dev.toolbus.text.DescriptionLocale;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How an executor runs calls: timeouts, parallelism, retries, the result cache, result and media
 * bounds, the language of generated text. Immutable; fixed for an executor's life.
 *
 * <p>Built with a strict builder: every setter throws {@link IllegalArgumentException} for a value out
 * of its range, naming the setting and the range ({@code maxParallel(50)} is an error). Reading loose
 * values (a YAML file, command-line flags) with fallbacks and warnings is {@code toolbus-config}'s job
 * ({@code ExecutionSection}); each default is stated once, in docs/configuration.md, and in the
 * {@code DEFAULT_*} constants here.
 *
 * <pre>{@code
 * ExecutionSettings settings = ExecutionSettings.builder()
 *         .maxParallel(10)
 *         .timeout(Duration.ofSeconds(5))
 *         .retryOnError(true)
 *         .locale(DescriptionLocale.ZH)
 *         .build();
 * ToolExecutor executor = ToolExecutor.builder().settings(settings).build();
 * }</pre>
 */
public final class ExecutionSettings {

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
    public static final int MAX_CACHE_MAX_KEY_BYTES = 64 * 1024 * 1024;
    public static final long DEFAULT_CACHE_MAX_RESULT_BYTES = 256L * 1024;
    public static final int DEFAULT_MAX_CALLS_PER_TURN = 128;
    public static final int MAX_CALLS_PER_TURN_LIMIT = 100_000;
    /** The longest duration a setting takes, in ms (about 146 years: far enough from overflow in nanoseconds). */
    public static final long MAX_DURATION_MS = Long.MAX_VALUE / 2_000_000;

    private static final ExecutionSettings DEFAULTS = new Builder().build();

    private final Duration timeout;
    private final int maxParallel;
    private final boolean retryOnError;
    private final int maxRetries;
    private final boolean cacheResults;
    private final Duration cacheTtl;
    private final long cacheMaxEntries;
    private final DescriptionLocale locale;
    private final long maxMediaBytes;
    private final int maxQueuedCalls;
    private final Duration progressInterval;
    private final Duration inputTimeout;
    private final long cacheMaxBytes;
    private final int cacheMaxKeyBytes;
    private final long cacheMaxResultBytes;
    private final int maxCallsPerTurn;
    private final ResultLimits results;
    private final List<String> cacheTools;

    private ExecutionSettings(Builder b) {
        this.timeout = b.timeout;
        this.maxParallel = b.maxParallel;
        this.retryOnError = b.retryOnError;
        this.maxRetries = b.maxRetries;
        this.cacheResults = b.cacheResults;
        this.cacheTtl = b.cacheTtl;
        this.cacheMaxEntries = b.cacheMaxEntries;
        this.locale = b.locale;
        this.maxMediaBytes = b.maxMediaBytes;
        this.maxQueuedCalls = b.maxQueuedCalls;
        this.progressInterval = b.progressInterval;
        this.inputTimeout = b.inputTimeout;
        this.cacheMaxBytes = b.cacheMaxBytes;
        this.cacheMaxKeyBytes = b.cacheMaxKeyBytes;
        this.cacheMaxResultBytes = b.cacheMaxResultBytes;
        this.maxCallsPerTurn = b.maxCallsPerTurn;
        this.results = b.results.build();
        this.cacheTools = List.copyOf(b.cacheTools);
    }

    /** The defaults (one shared instance). */
    public static ExecutionSettings defaults() {
        return DEFAULTS;
    }

    /** Starts a builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder initialised from these settings. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.timeout = timeout;
        b.maxParallel = maxParallel;
        b.retryOnError = retryOnError;
        b.maxRetries = maxRetries;
        b.cacheResults = cacheResults;
        b.cacheTtl = cacheTtl;
        b.cacheMaxEntries = cacheMaxEntries;
        b.locale = locale;
        b.maxMediaBytes = maxMediaBytes;
        b.maxQueuedCalls = maxQueuedCalls;
        b.progressInterval = progressInterval;
        b.inputTimeout = inputTimeout;
        b.cacheMaxBytes = cacheMaxBytes;
        b.cacheMaxKeyBytes = cacheMaxKeyBytes;
        b.cacheMaxResultBytes = cacheMaxResultBytes;
        b.maxCallsPerTurn = maxCallsPerTurn;
        b.results = results.toBuilder();
        b.cacheTools = cacheTools;
        return b;
    }

    /** The per-call timeout (a tool's own timeout overrides it). */
    public Duration timeout() {
        return timeout;
    }

    /** Handlers running at once across all streams. */
    public int maxParallel() {
        return maxParallel;
    }

    /** Whether exceptions and timeouts of tools that are not side-effecting are retried. */
    public boolean retryOnError() {
        return retryOnError;
    }

    /** Retries after the first attempt. */
    public int maxRetries() {
        return maxRetries;
    }

    /** Whether results are cached. */
    public boolean cacheResults() {
        return cacheResults;
    }

    /** How long a cached result lives; zero disables the cache. */
    public Duration cacheTtl() {
        return cacheTtl;
    }

    /** The cache's bound in entries. */
    public long cacheMaxEntries() {
        return cacheMaxEntries;
    }

    /** The language of generated text. */
    public DescriptionLocale locale() {
        return locale;
    }

    /** The bound of one decoded media item in bytes. */
    public long maxMediaBytes() {
        return maxMediaBytes;
    }

    /** Calls waiting for a slot above which new calls are answered {@code REJECTED}. */
    public int maxQueuedCalls() {
        return maxQueuedCalls;
    }

    /** The shortest time between two {@code tool_progress} events of one call (zero: no rate limit). */
    public Duration progressInterval() {
        return progressInterval;
    }

    /** How long a tool's question ({@code input_request}) waits for an answer by default. */
    public Duration inputTimeout() {
        return inputTimeout;
    }

    /** The cache's bound in (estimated) bytes of keys and results. */
    public long cacheMaxBytes() {
        return cacheMaxBytes;
    }

    /** Calls whose cache key (tool, scope and canonical arguments) is longer are not cached. */
    public int cacheMaxKeyBytes() {
        return cacheMaxKeyBytes;
    }

    /** Results larger than this (estimated) are handed to identical waiting calls but not kept. */
    public long cacheMaxResultBytes() {
        return cacheMaxResultBytes;
    }

    /** A turn with more calls is answered with one error per call, none is run. */
    public int maxCallsPerTurn() {
        return maxCallsPerTurn;
    }

    /** The result size limit and the store of full texts that {@code read_tool_result} reads. */
    public ResultLimits results() {
        return results;
    }

    /**
     * Tools whose results may be cached although they do not declare themselves cacheable (plugin tools
     * opt in per tool, docs/plugins.md §8.7): tool names or plugin ids, case-insensitive, {@code *} globs
     * allowed; side-effecting and dangerous tools are never cached.
     */
    public List<String> cacheTools() {
        return cacheTools;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ExecutionSettings s && timeout.equals(s.timeout) && maxParallel == s.maxParallel
                && retryOnError == s.retryOnError && maxRetries == s.maxRetries && cacheResults == s.cacheResults
                && cacheTtl.equals(s.cacheTtl) && cacheMaxEntries == s.cacheMaxEntries && locale == s.locale
                && maxMediaBytes == s.maxMediaBytes && maxQueuedCalls == s.maxQueuedCalls
                && progressInterval.equals(s.progressInterval) && inputTimeout.equals(s.inputTimeout)
                && cacheMaxBytes == s.cacheMaxBytes && cacheMaxKeyBytes == s.cacheMaxKeyBytes
                && cacheMaxResultBytes == s.cacheMaxResultBytes && maxCallsPerTurn == s.maxCallsPerTurn
                && results.equals(s.results) && cacheTools.equals(s.cacheTools);
    }

    @Override
    public int hashCode() {
        return Objects.hash(timeout, maxParallel, retryOnError, maxRetries, cacheResults, cacheTtl, cacheMaxEntries,
                locale, maxMediaBytes, maxQueuedCalls, progressInterval, inputTimeout, cacheMaxBytes, cacheMaxKeyBytes,
                cacheMaxResultBytes, maxCallsPerTurn, results, cacheTools);
    }

    @Override
    public String toString() {
        return "ExecutionSettings[timeout=" + timeout + ", maxParallel=" + maxParallel + ", retryOnError="
                + retryOnError + ", maxRetries=" + maxRetries + ", cacheResults=" + cacheResults + ", cacheTtl="
                + cacheTtl + ", cacheMaxEntries=" + cacheMaxEntries + ", locale=" + locale + ", maxMediaBytes="
                + maxMediaBytes + ", maxQueuedCalls=" + maxQueuedCalls + ", progressInterval=" + progressInterval
                + ", inputTimeout=" + inputTimeout + ", cacheMaxBytes=" + cacheMaxBytes + ", cacheMaxKeyBytes="
                + cacheMaxKeyBytes + ", cacheMaxResultBytes=" + cacheMaxResultBytes + ", maxCallsPerTurn="
                + maxCallsPerTurn + ", results=" + results + ", cacheTools=" + cacheTools + "]";
    }

    /**
     * Builder of {@link ExecutionSettings}, starting from the defaults. Every setter throws
     * {@link IllegalArgumentException} for a value out of its range, naming the setting and the range.
     */
    public static final class Builder {
        private Duration timeout = Duration.ofMillis(DEFAULT_TIMEOUT_MS);
        private int maxParallel = DEFAULT_MAX_PARALLEL;
        private boolean retryOnError;
        private int maxRetries = DEFAULT_MAX_RETRIES;
        private boolean cacheResults = true;
        private Duration cacheTtl = Duration.ofMillis(DEFAULT_CACHE_TTL_MS);
        private long cacheMaxEntries = DEFAULT_CACHE_MAX_ENTRIES;
        private DescriptionLocale locale = DescriptionLocale.EN;
        private long maxMediaBytes = DEFAULT_MAX_MEDIA_BYTES;
        private int maxQueuedCalls = DEFAULT_MAX_QUEUED_CALLS;
        private Duration progressInterval = Duration.ofMillis(DEFAULT_PROGRESS_INTERVAL_MS);
        private Duration inputTimeout = Duration.ofMillis(DEFAULT_INPUT_TIMEOUT_MS);
        private long cacheMaxBytes = DEFAULT_CACHE_MAX_BYTES;
        private int cacheMaxKeyBytes = DEFAULT_CACHE_MAX_KEY_BYTES;
        private long cacheMaxResultBytes = DEFAULT_CACHE_MAX_RESULT_BYTES;
        private int maxCallsPerTurn = DEFAULT_MAX_CALLS_PER_TURN;
        private ResultLimits.Builder results = ResultLimits.builder();
        private List<String> cacheTools = List.of();

        private Builder() {
        }

        /** The per-call timeout: at least 1 s (default 30 s). */
        public Builder timeout(Duration value) {
            timeout = requireMillis(value, MIN_TIMEOUT_MS, MAX_DURATION_MS, "timeout");
            return this;
        }

        /** The per-call timeout in ms: at least 1000 (default 30000). */
        public Builder timeoutMs(long value) {
            requireRange(value, MIN_TIMEOUT_MS, MAX_DURATION_MS, "timeoutMs");
            timeout = Duration.ofMillis(value);
            return this;
        }

        /** Handlers running at once across all streams: 1..20 (default 5). */
        public Builder maxParallel(int value) {
            maxParallel = requireRange(value, 1, MAX_PARALLEL_LIMIT, "maxParallel");
            return this;
        }

        /** Whether exceptions and timeouts of tools that are not side-effecting are retried (default false). */
        public Builder retryOnError(boolean value) {
            retryOnError = value;
            return this;
        }

        /** Retries after the first attempt: 0..10 (default 2). */
        public Builder maxRetries(int value) {
            maxRetries = requireRange(value, 0, MAX_RETRIES_LIMIT, "maxRetries");
            return this;
        }

        /** Whether results are cached (default true). */
        public Builder cacheResults(boolean value) {
            cacheResults = value;
            return this;
        }

        /** How long a cached result lives; zero disables the cache (default 60 s). */
        public Builder cacheTtl(Duration value) {
            cacheTtl = requireMillis(value, 0, MAX_DURATION_MS, "cacheTtl");
            return this;
        }

        /** How long a cached result lives in ms; zero disables the cache (default 60000). */
        public Builder cacheTtlMs(long value) {
            requireRange(value, 0, MAX_DURATION_MS, "cacheTtlMs");
            cacheTtl = Duration.ofMillis(value);
            return this;
        }

        /** The cache's bound in entries: 1 and more (default 10000). */
        public Builder cacheMaxEntries(long value) {
            cacheMaxEntries = requireRange(value, 1, Long.MAX_VALUE, "cacheMaxEntries");
            return this;
        }

        /** The language of generated text (default en). */
        public Builder locale(DescriptionLocale value) {
            locale = Objects.requireNonNull(value, "locale");
            return this;
        }

        /** The bound of one decoded media item in bytes: 1 and more (default 8 MiB). */
        public Builder maxMediaBytes(long value) {
            maxMediaBytes = requireRange(value, 1, Long.MAX_VALUE, "maxMediaBytes");
            return this;
        }

        /** Calls waiting for a slot above which new calls are answered {@code REJECTED}: 1 and more (default 100000). */
        public Builder maxQueuedCalls(int value) {
            maxQueuedCalls = requireRange(value, 1, Integer.MAX_VALUE, "maxQueuedCalls");
            return this;
        }

        /** The shortest time between two progress events of one call; zero: no rate limit (default 100 ms). */
        public Builder progressInterval(Duration value) {
            progressInterval = requireMillis(value, 0, MAX_DURATION_MS, "progressInterval");
            return this;
        }

        /** {@link #progressInterval(Duration)} in ms. */
        public Builder progressIntervalMs(long value) {
            requireRange(value, 0, MAX_DURATION_MS, "progressIntervalMs");
            progressInterval = Duration.ofMillis(value);
            return this;
        }

        /** How long a tool's question waits for its answer by default: at least 1 s (default 60 s). */
        public Builder inputTimeout(Duration value) {
            inputTimeout = requireMillis(value, MIN_INPUT_TIMEOUT_MS, MAX_DURATION_MS, "inputTimeout");
            return this;
        }

        /** {@link #inputTimeout(Duration)} in ms: at least 1000. */
        public Builder inputTimeoutMs(long value) {
            requireRange(value, MIN_INPUT_TIMEOUT_MS, MAX_DURATION_MS, "inputTimeoutMs");
            inputTimeout = Duration.ofMillis(value);
            return this;
        }

        /** The cache's bound in estimated bytes of keys and kept results: 1 and more (default 64 MiB). */
        public Builder cacheMaxBytes(long value) {
            cacheMaxBytes = requireRange(value, 1, Long.MAX_VALUE, "cacheMaxBytes");
            return this;
        }

        /** Calls with a longer cache key are not cached: 1..67108864 (default 16 KiB). */
        public Builder cacheMaxKeyBytes(int value) {
            cacheMaxKeyBytes = requireRange(value, 1, MAX_CACHE_MAX_KEY_BYTES, "cacheMaxKeyBytes");
            return this;
        }

        /** Results estimated larger than this are not kept: 1 and more (default 256 KiB). */
        public Builder cacheMaxResultBytes(long value) {
            cacheMaxResultBytes = requireRange(value, 1, Long.MAX_VALUE, "cacheMaxResultBytes");
            return this;
        }

        /** Calls one turn may carry; a longer turn is answered with one error per call: 1..100000 (default 128). */
        public Builder maxCallsPerTurn(int value) {
            maxCallsPerTurn = requireRange(value, 1, MAX_CALLS_PER_TURN_LIMIT, "maxCallsPerTurn");
            return this;
        }

        /**
         * The most characters of a result's text the model gets: 0 (no limit) or 100 and more (default
         * 20000). See {@link ResultLimits}.
         */
        public Builder maxResultChars(int value) {
            results.maxChars(ResultLimits.requireCharLimit(value, "maxResultChars"));
            return this;
        }

        /**
         * Per-tool limits, tool name (or a {@code *} glob) to characters: each 0 (never cut) or 100 and more,
         * names non-blank.
         */
        public Builder maxResultCharsByTool(Map<String, Integer> value) {
            Objects.requireNonNull(value, "maxResultCharsByTool");
            value.forEach((name, limit) -> {
                requireArgument(name != null && !name.isBlank(), "maxResultCharsByTool needs non-blank tool names");
                requireArgument(limit != null, "maxResultCharsByTool." + name + " needs a limit");
                ResultLimits.requireCharLimit(limit, "maxResultCharsByTool." + name);
            });
            results.byTool(value);
            return this;
        }

        /** How long a cut result's full text stays readable: at least 1 s (default 30 min). */
        public Builder resultStoreTtl(Duration value) {
            requireMillis(value, ResultLimits.MIN_STORE_TTL_MS, MAX_DURATION_MS, "resultStoreTtl");
            results.storeTtl(value);
            return this;
        }

        /** The store of full texts in estimated bytes: 1 and more (default 32 MiB). */
        public Builder resultStoreMaxBytes(long value) {
            results.storeMaxBytes(requireRange(value, 1, Long.MAX_VALUE, "resultStoreMaxBytes"));
            return this;
        }

        /** The store of full texts in entries: 1..10000000 (default 1000). */
        public Builder resultStoreMaxEntries(long value) {
            results.storeMaxEntries(requireRange(value, 1, ResultLimits.MAX_STORE_MAX_ENTRIES, "resultStoreMaxEntries"));
            return this;
        }

        /** The result limits as a whole. */
        public Builder results(ResultLimits limits) {
            this.results = Objects.requireNonNull(limits, "limits").toBuilder();
            return this;
        }

        /**
         * Tools whose results may be cached without declaring themselves cacheable: tool names or plugin
         * ids ({@code *} globs, case-insensitive), each non-blank (stripped).
         */
        public Builder cacheTools(List<String> value) {
            Objects.requireNonNull(value, "cacheTools");
            List<String> out = new ArrayList<>(value.size());
            for (String t : value) {
                requireArgument(t != null && !t.isBlank(), "cacheTools entries must be tool names or plugin ids, got '"
                        + t + "'");
                out.add(t.strip());
            }
            cacheTools = List.copyOf(out);
            return this;
        }

        /** The settings. */
        public ExecutionSettings build() {
            return new ExecutionSettings(this);
        }
    }
}
