package dev.toolbus.executor.settings;

import static dev.toolbus.spi.Checks.requireArgument;
import static dev.toolbus.spi.Checks.requireMillis;
import static dev.toolbus.spi.Checks.requireRange;

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
 * friends); immutable, built by a builder that throws on an out-of-range value.
 *
 * <p>A call's limit is, first match wins: {@link #byTool()} under the tool's name, {@code byTool} under
 * the first {@code *} glob (in order, case-insensitive) matching it, the tool's own
 * {@link ToolDefinition#maxResultChars()}, then {@link #maxChars()}. Zero means "never cut".
 * Characters are UTF-16 code units ({@code String.length()}, JavaScript's {@code length}).
 *
 * <pre>{@code
 * ResultLimits limits = ResultLimits.builder().maxChars(8_000).byTool(Map.of("web_*", 2_000)).build();
 * ExecutionSettings settings = ExecutionSettings.builder().results(limits).build();
 * }</pre>
 */
public final class ResultLimits {

    public static final int DEFAULT_MAX_CHARS = 20_000;
    /** The smallest positive limit: below it the marker alone would be longer than the text kept. */
    public static final int MIN_MAX_CHARS = 100;
    public static final long DEFAULT_STORE_TTL_MS = 30 * 60_000L;
    /** The shortest time a cut text stays readable. */
    public static final long MIN_STORE_TTL_MS = 1_000;
    public static final long DEFAULT_STORE_MAX_BYTES = 32L * 1024 * 1024;
    public static final long DEFAULT_STORE_MAX_ENTRIES = 1_000;
    public static final long MAX_STORE_MAX_ENTRIES = 10_000_000;

    /** The defaults: 20,000 characters, kept 30 minutes, at most 32 MiB and 1,000 texts. */
    public static final ResultLimits DEFAULTS = builder().build();

    private final int maxChars;
    private final Map<String, Integer> byTool;
    private final Duration storeTtl;
    private final long storeMaxBytes;
    private final long storeMaxEntries;

    private ResultLimits(Builder b) {
        this.maxChars = b.maxChars;
        this.byTool = Collections.unmodifiableMap(new LinkedHashMap<>(b.byTool));
        this.storeTtl = b.storeTtl;
        this.storeMaxBytes = b.storeMaxBytes;
        this.storeMaxEntries = b.storeMaxEntries;
    }

    /** Starts a builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder initialised from these limits. */
    public Builder toBuilder() {
        return new Builder().maxChars(maxChars).byTool(byTool).storeTtl(storeTtl).storeMaxBytes(storeMaxBytes)
                .storeMaxEntries(storeMaxEntries);
    }

    /** The global limit in characters; 0: off. */
    public int maxChars() {
        return maxChars;
    }

    /** Per-tool limits by tool name or {@code *} glob, in the order given; 0: never cut that tool. */
    public Map<String, Integer> byTool() {
        return byTool;
    }

    /** How long a cut result's full text stays readable after it was cut. */
    public Duration storeTtl() {
        return storeTtl;
    }

    /**
     * The store's bound in estimated bytes (2 per character plus keys and overhead); one text may take
     * at most a quarter of it, a larger one is cut without being kept.
     */
    public long storeMaxBytes() {
        return storeMaxBytes;
    }

    /** The store's bound in entries. */
    public long storeMaxEntries() {
        return storeMaxEntries;
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

    @Override
    public boolean equals(Object o) {
        return o instanceof ResultLimits r && maxChars == r.maxChars && byTool.equals(r.byTool)
                && storeTtl.equals(r.storeTtl) && storeMaxBytes == r.storeMaxBytes && storeMaxEntries == r.storeMaxEntries;
    }

    @Override
    public int hashCode() {
        return Objects.hash(maxChars, byTool, storeTtl, storeMaxBytes, storeMaxEntries);
    }

    @Override
    public String toString() {
        return "ResultLimits[maxChars=" + maxChars + ", byTool=" + byTool + ", storeTtl=" + storeTtl
                + ", storeMaxBytes=" + storeMaxBytes + ", storeMaxEntries=" + storeMaxEntries + "]";
    }

    /**
     * A limit of result characters: 0 (never cut) or {@value #MIN_MAX_CHARS} and more.
     *
     * @throws IllegalArgumentException otherwise, naming {@code name}
     */
    static int requireCharLimit(int value, String name) {
        requireArgument(value == 0 || value >= MIN_MAX_CHARS, name + " must be 0 (never cut) or "
                + MIN_MAX_CHARS + ".." + Integer.MAX_VALUE + ", got " + value);
        return value;
    }

    /** Builder of {@link ResultLimits}; every setter throws {@link IllegalArgumentException} on a value out of range. */
    public static final class Builder {
        private int maxChars = DEFAULT_MAX_CHARS;
        private Map<String, Integer> byTool = Map.of();
        private Duration storeTtl = Duration.ofMillis(DEFAULT_STORE_TTL_MS);
        private long storeMaxBytes = DEFAULT_STORE_MAX_BYTES;
        private long storeMaxEntries = DEFAULT_STORE_MAX_ENTRIES;

        private Builder() {
        }

        /** The global limit: 0 (off) or 100 and more (default 20000). */
        public Builder maxChars(int v) {
            maxChars = requireCharLimit(v, "maxChars");
            return this;
        }

        /** Per-tool limits by tool name or {@code *} glob: non-blank names, each 0 (never cut) or 100 and more. */
        public Builder byTool(Map<String, Integer> v) {
            Objects.requireNonNull(v, "byTool");
            Map<String, Integer> copy = new LinkedHashMap<>();
            v.forEach((name, limit) -> {
                requireArgument(name != null && !name.isBlank(), "byTool needs non-blank tool names");
                requireArgument(limit != null, "byTool." + name + " needs a limit");
                copy.put(name, requireCharLimit(limit, "byTool." + name));
            });
            byTool = copy;
            return this;
        }

        /** How long a cut text stays readable: at least 1 s (default 30 min). */
        public Builder storeTtl(Duration v) {
            storeTtl = requireMillis(v, MIN_STORE_TTL_MS, ExecutionSettings.MAX_DURATION_MS, "storeTtl");
            return this;
        }

        /** The store's bound in estimated bytes: at least 1 (default 32 MiB). */
        public Builder storeMaxBytes(long v) {
            storeMaxBytes = requireRange(v, 1, Long.MAX_VALUE, "storeMaxBytes");
            return this;
        }

        /** The store's bound in entries: 1..10000000 (default 1000). */
        public Builder storeMaxEntries(long v) {
            storeMaxEntries = requireRange(v, 1, MAX_STORE_MAX_ENTRIES, "storeMaxEntries");
            return this;
        }

        /** The limits. */
        public ResultLimits build() {
            return new ResultLimits(this);
        }
    }
}
