package dev.toolbus.config;

import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.executor.settings.ResultLimits;
import dev.toolbus.text.DescriptionLocale;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Reads the {@code execution} section of {@code toolbus.yaml} (and the execution flags of the CLI) into
 * {@link ExecutionSettings}, leniently: a value out of range or of the wrong kind never fails, it falls
 * back as docs/configuration.md says and the fallback is reported as a warning. The settings' own
 * builder is strict; this is the one place that turns loose values into valid ones.
 *
 * <pre>{@code
 * List<String> warnings = new ArrayList<>();
 * ExecutionSettings s = ExecutionSection.read(Map.of("maxParallel", 50, "timeout", "5000"), warnings);
 * // s.maxParallel() == 20, s.timeout() == 5 s; warnings: ["maxParallel 50 is above 20; using 20"]
 * }</pre>
 */
public final class ExecutionSection {

    private ExecutionSection() {
    }

    /**
     * Settings from loosely typed values (numbers, strings, booleans, lists, maps) over the defaults.
     * Keys: {@code timeout}, {@code maxParallel}, {@code retryOnError}, {@code maxRetries},
     * {@code cacheResults}, {@code cacheTTL}, {@code cacheMaxEntries}, {@code locale},
     * {@code maxMediaBytes}, {@code maxQueuedCalls}, {@code progressIntervalMs}, {@code inputTimeoutMs},
     * {@code cacheMaxBytes}, {@code cacheMaxKeyBytes}, {@code cacheMaxResultBytes}, {@code maxCallsPerTurn},
     * {@code maxResultChars}, {@code maxResultCharsByTool}, {@code resultStoreTtlMs}, {@code resultStoreMaxBytes},
     * {@code resultStoreMaxEntries}, {@code cacheTools}. Unknown keys are warned about.
     *
     * @param warnings where each fallback is added (its text names the key, without the {@code execution.} prefix
     *     except for an unknown key)
     */
    public static ExecutionSettings read(Map<String, ?> raw, List<String> warnings) {
        return read(ExecutionSettings.defaults(), raw, warnings);
    }

    /** {@link #read(Map, List)} over {@code base}: each key given replaces the base value. */
    public static ExecutionSettings read(ExecutionSettings base, Map<String, ?> raw, List<String> warnings) {
        Objects.requireNonNull(base, "base");
        Objects.requireNonNull(raw, "raw");
        Objects.requireNonNull(warnings, "warnings");
        Loose b = new Loose(base, warnings);
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
                default -> warnings.add("execution." + k + " is not a known setting; ignored");
            }
        });
        return b.out.build();
    }

    /** Reads the section of a file; its warnings are reported with the {@code execution.} prefix. */
    static ExecutionSettings read(ConfigLoader.Reader in, Map<String, Object> root) {
        Object v = root.get("execution");
        if (v == null) {
            if (root.containsKey("execution")) {
                in.warn("execution", "is empty; using the defaults");
            }
            return ExecutionSettings.defaults();
        }
        if (!(v instanceof Map<?, ?> m)) {
            in.warn("execution", "must be a mapping, got " + ConfigLoader.Reader.describe(v) + "; using the defaults");
            return ExecutionSettings.defaults();
        }
        Map<String, Object> raw = new LinkedHashMap<>();
        m.forEach((k, x) -> raw.put(String.valueOf(k), x));
        List<String> warnings = new ArrayList<>();
        ExecutionSettings s = read(in.relaxed ? relaxed(in, raw) : raw, warnings);
        for (String w : warnings) {
            in.warnings.add(w.startsWith("execution.") ? w : "execution." + w);
        }
        return s;
    }

    /** The longest duration in ms a loose value is taken as (longer ones are cut to it). */
    private static final double MAX_MS = ExecutionSettings.MAX_DURATION_MS;

    /** The lenient setters: each falls back and warns, then sets a valid value on the strict builder. */
    private static final class Loose {
        final ExecutionSettings.Builder out;
        private final List<String> warnings;

        Loose(ExecutionSettings base, List<String> warnings) {
            this.out = base.toBuilder();
            this.warnings = warnings;
        }

        private void warn(String message) {
            warnings.add(message);
        }

        /** Per-call timeout in ms: below 1000 → 1000; not a number → 30000. */
        void timeoutMs(Object value) {
            Double d = LooseNumbers.number(value);
            long ms;
            if (d == null) {
                warn("timeout '" + value + "' is not a number; using " + ExecutionSettings.DEFAULT_TIMEOUT_MS + " ms");
                ms = ExecutionSettings.DEFAULT_TIMEOUT_MS;
            } else if (d < ExecutionSettings.MIN_TIMEOUT_MS) {
                warn("timeout " + fmt(d) + " ms is below " + ExecutionSettings.MIN_TIMEOUT_MS + "; using "
                        + ExecutionSettings.MIN_TIMEOUT_MS + " ms");
                ms = ExecutionSettings.MIN_TIMEOUT_MS;
            } else {
                ms = (long) Math.min(d, MAX_MS);
            }
            out.timeoutMs(ms);
        }

        /** Handlers at once: below 1 → 1; above 20 → 20; not an integer → 5. */
        void maxParallel(Object value) {
            Long n = LooseNumbers.integer(value);
            int v;
            if (n == null) {
                warn("maxParallel '" + value + "' is not an integer; using " + ExecutionSettings.DEFAULT_MAX_PARALLEL);
                v = ExecutionSettings.DEFAULT_MAX_PARALLEL;
            } else if (n < 1) {
                warn("maxParallel " + n + " is below 1; using 1");
                v = 1;
            } else if (n > ExecutionSettings.MAX_PARALLEL_LIMIT) {
                warn("maxParallel " + n + " is above " + ExecutionSettings.MAX_PARALLEL_LIMIT + "; using "
                        + ExecutionSettings.MAX_PARALLEL_LIMIT);
                v = ExecutionSettings.MAX_PARALLEL_LIMIT;
            } else {
                v = n.intValue();
            }
            out.maxParallel(v);
        }

        void retryOnError(Object value) {
            Boolean b = bool(value);
            if (b == null) {
                warn("retryOnError '" + value + "' is not a boolean; using false");
            }
            out.retryOnError(b != null && b);
        }

        /** Retries after the first attempt: clamped to 0..10; not an integer → 2. */
        void maxRetries(Object value) {
            Long n = LooseNumbers.integer(value);
            int v;
            if (n == null) {
                warn("maxRetries '" + value + "' is not an integer; using " + ExecutionSettings.DEFAULT_MAX_RETRIES);
                v = ExecutionSettings.DEFAULT_MAX_RETRIES;
            } else if (n < 0) {
                warn("maxRetries " + n + " is below 0; using 0");
                v = 0;
            } else if (n > ExecutionSettings.MAX_RETRIES_LIMIT) {
                warn("maxRetries " + n + " is above " + ExecutionSettings.MAX_RETRIES_LIMIT + "; using "
                        + ExecutionSettings.MAX_RETRIES_LIMIT);
                v = ExecutionSettings.MAX_RETRIES_LIMIT;
            } else {
                v = n.intValue();
            }
            out.maxRetries(v);
        }

        void cacheResults(Object value) {
            Boolean b = bool(value);
            if (b == null) {
                warn("cacheResults '" + value + "' is not a boolean; using true");
            }
            out.cacheResults(b == null || b);
        }

        /** Cache TTL in ms: below 0 → 0 (disabled); not a number → 60000. */
        void cacheTtlMs(Object value) {
            Double d = LooseNumbers.number(value);
            long ms;
            if (d == null) {
                warn("cacheTTL '" + value + "' is not a number; using " + ExecutionSettings.DEFAULT_CACHE_TTL_MS + " ms");
                ms = ExecutionSettings.DEFAULT_CACHE_TTL_MS;
            } else if (d < 0) {
                warn("cacheTTL " + fmt(d) + " is below 0; using 0 (cache disabled)");
                ms = 0;
            } else {
                ms = (long) Math.min(d, MAX_MS);
            }
            out.cacheTtlMs(ms);
        }

        /** The cache's bound: below 1 → 10000. */
        void cacheMaxEntries(Object value) {
            Long n = LooseNumbers.integer(value);
            if (n == null || n < 1) {
                warn("cacheMaxEntries '" + value + "' is not a positive integer; using "
                        + ExecutionSettings.DEFAULT_CACHE_MAX_ENTRIES);
                out.cacheMaxEntries(ExecutionSettings.DEFAULT_CACHE_MAX_ENTRIES);
            } else {
                out.cacheMaxEntries(n);
            }
        }

        /** The locale of generated text: en or zh; anything else → en. */
        void locale(Object value) {
            if (value instanceof DescriptionLocale l) {
                out.locale(l);
                return;
            }
            try {
                out.locale(DescriptionLocale.parse(value == null ? null : value.toString()));
            } catch (IllegalArgumentException e) {
                warn("locale '" + value + "' is not en or zh; using en");
                out.locale(DescriptionLocale.EN);
            }
        }

        /** The bound of one decoded media item in bytes: below 1 → 8 MiB. */
        void maxMediaBytes(Object value) {
            Long n = LooseNumbers.integer(value);
            if (n == null || n < 1) {
                warn("maxMediaBytes '" + value + "' is not a positive integer; using "
                        + ExecutionSettings.DEFAULT_MAX_MEDIA_BYTES);
                out.maxMediaBytes(ExecutionSettings.DEFAULT_MAX_MEDIA_BYTES);
            } else {
                out.maxMediaBytes(n);
            }
        }

        /** Calls waiting for a slot above which new calls are rejected: below 1 → 100000. */
        void maxQueuedCalls(Object value) {
            Long n = LooseNumbers.integer(value);
            if (n == null || n < 1 || n > Integer.MAX_VALUE) {
                warn("maxQueuedCalls '" + value + "' is not a positive integer; using "
                        + ExecutionSettings.DEFAULT_MAX_QUEUED_CALLS);
                out.maxQueuedCalls(ExecutionSettings.DEFAULT_MAX_QUEUED_CALLS);
            } else {
                out.maxQueuedCalls(n.intValue());
            }
        }

        /** Shortest time between two progress events of one call, in ms: below 0 → 0 (none); not a number → 100. */
        void progressIntervalMs(Object value) {
            Double d = LooseNumbers.number(value);
            long ms;
            if (d == null) {
                warn("progressIntervalMs '" + value + "' is not a number; using "
                        + ExecutionSettings.DEFAULT_PROGRESS_INTERVAL_MS);
                ms = ExecutionSettings.DEFAULT_PROGRESS_INTERVAL_MS;
            } else if (d < 0) {
                warn("progressIntervalMs " + fmt(d) + " is below 0; using 0 (no rate limit)");
                ms = 0;
            } else {
                ms = (long) Math.min(d, MAX_MS);
            }
            out.progressIntervalMs(ms);
        }

        /** Default wait for the answer to a tool's question, in ms: below 1000 → 1000; not a number → 60000. */
        void inputTimeoutMs(Object value) {
            Double d = LooseNumbers.number(value);
            long ms;
            if (d == null) {
                warn("inputTimeoutMs '" + value + "' is not a number; using " + ExecutionSettings.DEFAULT_INPUT_TIMEOUT_MS);
                ms = ExecutionSettings.DEFAULT_INPUT_TIMEOUT_MS;
            } else if (d < ExecutionSettings.MIN_INPUT_TIMEOUT_MS) {
                warn("inputTimeoutMs " + fmt(d) + " is below " + ExecutionSettings.MIN_INPUT_TIMEOUT_MS + "; using "
                        + ExecutionSettings.MIN_INPUT_TIMEOUT_MS);
                ms = ExecutionSettings.MIN_INPUT_TIMEOUT_MS;
            } else {
                ms = (long) Math.min(d, MAX_MS);
            }
            out.inputTimeoutMs(ms);
        }

        /** The cache's bound in estimated bytes of keys and kept results: below 1 → 64 MiB. */
        void cacheMaxBytes(Object value) {
            out.cacheMaxBytes(positive("cacheMaxBytes", value, ExecutionSettings.DEFAULT_CACHE_MAX_BYTES, Long.MAX_VALUE));
        }

        /** Calls with a longer cache key (tool, scope, canonical arguments) are not cached: below 1 → 16 KiB. */
        void cacheMaxKeyBytes(Object value) {
            out.cacheMaxKeyBytes((int) positive("cacheMaxKeyBytes", value, ExecutionSettings.DEFAULT_CACHE_MAX_KEY_BYTES,
                    ExecutionSettings.MAX_CACHE_MAX_KEY_BYTES));
        }

        /** Results estimated larger than this are not kept: below 1 → 256 KiB. */
        void cacheMaxResultBytes(Object value) {
            out.cacheMaxResultBytes(positive("cacheMaxResultBytes", value,
                    ExecutionSettings.DEFAULT_CACHE_MAX_RESULT_BYTES, Long.MAX_VALUE));
        }

        /** Calls one turn may carry; a longer turn is answered with one error per call: below 1 → 128. */
        void maxCallsPerTurn(Object value) {
            out.maxCallsPerTurn((int) positive("maxCallsPerTurn", value, ExecutionSettings.DEFAULT_MAX_CALLS_PER_TURN,
                    ExecutionSettings.MAX_CALLS_PER_TURN_LIMIT));
        }

        /** The most characters of a result's text the model gets (0: no limit): negative or not an integer → 20000; 1..99 → 100. */
        void maxResultChars(Object value) {
            Long n = LooseNumbers.integer(value);
            if (n == null || n < 0) {
                warn("maxResultChars '" + value + "' is not a whole number >= 0; using " + ResultLimits.DEFAULT_MAX_CHARS);
                out.maxResultChars(ResultLimits.DEFAULT_MAX_CHARS);
            } else if (n > 0 && n < ResultLimits.MIN_MAX_CHARS) {
                warn("maxResultChars " + n + " is below " + ResultLimits.MIN_MAX_CHARS + "; using "
                        + ResultLimits.MIN_MAX_CHARS);
                out.maxResultChars(ResultLimits.MIN_MAX_CHARS);
            } else {
                out.maxResultChars((int) Math.min(n, Integer.MAX_VALUE));
            }
        }

        /**
         * Per-tool limits, tool name (or a {@code *} glob) → characters (0: never cut). Entries that are
         * not a name with a whole number >= 0 are dropped with a warning; 1..99 → 100.
         */
        void maxResultCharsByTool(Object value) {
            Map<String, Integer> limits = new LinkedHashMap<>();
            if (!(value instanceof Map<?, ?> m)) {
                warn("maxResultCharsByTool must be a mapping of tool name to characters, got '" + value + "'; ignored");
                out.maxResultCharsByTool(limits);
                return;
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
                    limits.put(name, ResultLimits.MIN_MAX_CHARS);
                } else {
                    limits.put(name, (int) Math.min(n, Integer.MAX_VALUE));
                }
            });
            out.maxResultCharsByTool(limits);
        }

        /** How long a cut result's full text stays readable, in ms: below 1000 → 1000; not a number → 30 min. */
        void resultStoreTtlMs(Object value) {
            Double d = LooseNumbers.number(value);
            long ms;
            if (d == null) {
                warn("resultStoreTtlMs '" + value + "' is not a number; using " + ResultLimits.DEFAULT_STORE_TTL_MS);
                ms = ResultLimits.DEFAULT_STORE_TTL_MS;
            } else if (d < ResultLimits.MIN_STORE_TTL_MS) {
                warn("resultStoreTtlMs " + fmt(d) + " is below 1000; using 1000");
                ms = ResultLimits.MIN_STORE_TTL_MS;
            } else {
                ms = (long) Math.min(d, MAX_MS);
            }
            out.resultStoreTtl(Duration.ofMillis(ms));
        }

        /** The store of full texts in estimated bytes: below 1 → 32 MiB. */
        void resultStoreMaxBytes(Object value) {
            out.resultStoreMaxBytes(positive("resultStoreMaxBytes", value, ResultLimits.DEFAULT_STORE_MAX_BYTES,
                    Long.MAX_VALUE));
        }

        /** The store of full texts in entries: below 1 → 1000. */
        void resultStoreMaxEntries(Object value) {
            out.resultStoreMaxEntries(positive("resultStoreMaxEntries", value, ResultLimits.DEFAULT_STORE_MAX_ENTRIES,
                    ResultLimits.MAX_STORE_MAX_ENTRIES));
        }

        /**
         * Tools whose results may be cached without declaring themselves cacheable. Not a list → warning,
         * ignored; a blank or non-string entry → warning, dropped.
         */
        void cacheTools(Object value) {
            List<String> tools = new ArrayList<>();
            if (!(value instanceof Collection<?> c)) {
                warn("cacheTools must be a list of tool names or plugin ids, got '" + value + "'; ignored");
                out.cacheTools(List.of());
                return;
            }
            for (Object x : c) {
                if (x instanceof String t && !t.isBlank()) {
                    tools.add(t.strip());
                } else {
                    warn("cacheTools entry '" + x + "' is not a tool name or plugin id; dropped");
                }
            }
            out.cacheTools(tools);
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

        private static String fmt(double d) {
            return d == Math.rint(d) && !Double.isInfinite(d) ? Long.toString((long) d) : Double.toString(d);
        }

        private static Boolean bool(Object v) {
            if (v instanceof Boolean b) {
                return b;
            }
            if (v instanceof String s) {
                String t = s.strip().toLowerCase(Locale.ROOT);
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

    /** The keys {@link #read(Map, List)} reads. */
    static final java.util.Set<String> KEYS = java.util.Set.of("timeout", "maxParallel", "retryOnError", "maxRetries",
            "cacheResults", "cacheTTL", "cacheMaxEntries", "locale", "maxMediaBytes", "maxQueuedCalls",
            "progressIntervalMs", "inputTimeoutMs", "cacheMaxBytes", "cacheMaxKeyBytes", "cacheMaxResultBytes",
            "maxCallsPerTurn", "maxResultChars", "maxResultCharsByTool", "resultStoreTtlMs", "resultStoreMaxBytes",
            "resultStoreMaxEntries", "cacheTools");

    /** Relaxed keys renamed to these (unknown ones are left for {@link #read} to warn about), a comma list split. */
    private static Map<String, Object> relaxed(ConfigLoader.Reader in, Map<String, Object> raw) {
        Map<String, Object> out = new LinkedHashMap<>();
        raw.forEach((k, v) -> out.put(ConfigLoader.Reader.canonical(k, KEYS), v));
        if (out.containsKey("cacheTools")) {
            out.put("cacheTools", in.listValue(out.get("cacheTools")));
        }
        return out;
    }
}
