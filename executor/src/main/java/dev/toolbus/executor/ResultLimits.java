package dev.toolbus.executor;

import dev.toolbus.tool.ToolDefinition;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * How long a result's text may be, and how the full text of a cut one is kept for
 * {@code read_tool_result}. Part of {@link ExecutionSettings} ({@code execution.maxResultChars} and
 * friends); build it through {@link ExecutionSettings.Builder}, whose setters fall back with warnings.
 *
 * <p>A call's limit is, first match wins: {@code byTool} under the tool's name, {@code byTool} under the
 * first {@code *} glob (in order, case-insensitive) matching it, the tool's own
 * {@link ToolDefinition#maxResultChars()}, then {@code maxChars}. Zero means "never cut".
 * Characters are UTF-16 code units ({@code String.length()}, JavaScript's {@code length}).
 *
 * @param maxChars the global limit; 0: off
 * @param byTool per-tool limits by tool name or glob, in config order; 0: never cut that tool
 * @param storeTtl how long a cut result's full text stays readable after it was cut
 * @param storeMaxBytes the store's bound in estimated bytes (2 per character plus keys and overhead);
 *     one text may take at most a quarter of it, a larger one is cut without being kept
 * @param storeMaxEntries the store's bound in entries
 */
public record ResultLimits(int maxChars, Map<String, Integer> byTool, Duration storeTtl, long storeMaxBytes,
                           long storeMaxEntries) {

    public static final int DEFAULT_MAX_CHARS = 20_000;
    /** The smallest positive limit: below it the marker alone would be longer than the text kept. */
    public static final int MIN_MAX_CHARS = 100;
    public static final long DEFAULT_STORE_TTL_MS = 30 * 60_000L;
    public static final long DEFAULT_STORE_MAX_BYTES = 32L * 1024 * 1024;
    public static final long DEFAULT_STORE_MAX_ENTRIES = 1_000;

    /** The defaults: 20,000 characters, kept 30 minutes, at most 32 MiB and 1,000 texts. */
    public static final ResultLimits DEFAULTS = builder().build();

    public ResultLimits {
        Objects.requireNonNull(byTool, "byTool");
        Objects.requireNonNull(storeTtl, "storeTtl");
        if (maxChars < 0 || storeTtl.isNegative() || storeTtl.isZero() || storeMaxBytes < 1 || storeMaxEntries < 1) {
            throw new IllegalArgumentException("result limits out of range; build them with ExecutionSettings.builder()");
        }
        for (Map.Entry<String, Integer> e : byTool.entrySet()) {
            if (e.getKey() == null || e.getKey().isBlank() || e.getValue() == null || e.getValue() < 0) {
                throw new IllegalArgumentException("maxResultCharsByTool needs names and limits >= 0");
            }
        }
        byTool = Collections.unmodifiableMap(new LinkedHashMap<>(byTool));
    }

    /** Starts a builder with the defaults (no fallbacks: prefer {@link ExecutionSettings.Builder}). */
    static Builder builder() {
        return new Builder();
    }

    Builder toBuilder() {
        return new Builder().maxChars(maxChars).byTool(byTool).storeTtl(storeTtl).storeMaxBytes(storeMaxBytes)
                .storeMaxEntries(storeMaxEntries);
    }

    /** The limit of one tool's results in characters; 0: never cut. */
    public int limitFor(ToolDefinition def) {
        if (!byTool.isEmpty()) {
            Integer exact = byTool.get(def.name());
            if (exact != null) {
                return exact;
            }
            String name = def.name().toLowerCase(Locale.ROOT);
            for (Map.Entry<String, Integer> e : byTool.entrySet()) {
                if (glob(e.getKey().toLowerCase(Locale.ROOT), name)) {
                    return e.getValue();
                }
            }
        }
        Integer own = def.maxResultChars();
        return own != null ? own : maxChars;
    }

    /** Whether a {@code *} glob matches the whole name (iterative, no regular expression). */
    static boolean glob(String glob, String name) {
        int g = 0;
        int n = 0;
        int star = -1;
        int mark = 0;
        while (n < name.length()) {
            if (g < glob.length() && glob.charAt(g) != '*' && glob.charAt(g) == name.charAt(n)) {
                g++;
                n++;
            } else if (g < glob.length() && glob.charAt(g) == '*') {
                star = g++;
                mark = n;
            } else if (star >= 0) {
                g = star + 1;
                n = ++mark;
            } else {
                return false;
            }
        }
        while (g < glob.length() && glob.charAt(g) == '*') {
            g++;
        }
        return g == glob.length();
    }

    /** Builder without fallbacks (package use; {@link ExecutionSettings.Builder} validates the values). */
    static final class Builder {
        private int maxChars = DEFAULT_MAX_CHARS;
        private Map<String, Integer> byTool = Map.of();
        private Duration storeTtl = Duration.ofMillis(DEFAULT_STORE_TTL_MS);
        private long storeMaxBytes = DEFAULT_STORE_MAX_BYTES;
        private long storeMaxEntries = DEFAULT_STORE_MAX_ENTRIES;

        Builder maxChars(int v) {
            maxChars = v;
            return this;
        }

        Builder byTool(Map<String, Integer> v) {
            byTool = v;
            return this;
        }

        Builder storeTtl(Duration v) {
            storeTtl = v;
            return this;
        }

        Builder storeMaxBytes(long v) {
            storeMaxBytes = v;
            return this;
        }

        Builder storeMaxEntries(long v) {
            storeMaxEntries = v;
            return this;
        }

        ResultLimits build() {
            return new ResultLimits(maxChars, byTool, storeTtl, storeMaxBytes, storeMaxEntries);
        }
    }
}
