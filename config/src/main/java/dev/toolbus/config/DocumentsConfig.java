package dev.toolbus.config;

import dev.toolbus.spi.Checks;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code documents} section: skill documents ({@code SKILL.md}, {@code *.skill.yaml}, {@code *.skill.json}).
 * Immutable; built with {@link #builder()}, which starts from the defaults (docs/configuration.md).
 */
public final class DocumentsConfig {

    /** The documents modes. */
    public static final List<String> MODES = List.of("auto", "all", "explicit");
    /** The folders scanned by default. */
    public static final List<String> DEFAULT_PATHS =
            List.of("data/skills", ".cursor/skills", ".claude/skills", ".codex/skills");
    /** The deepest scan. */
    static final int MAX_DEPTH = 64;
    /** The bounds of {@code maxFileBytes}: 1 KiB to 64 MiB. */
    static final long MIN_FILE_BYTES = 1024;
    static final long MAX_FILE_BYTES = 64L * 1024 * 1024;
    /** The bounds of {@code maxPromptChars}. */
    static final int MIN_PROMPT_CHARS = 1000;
    static final int MAX_PROMPT_CHARS = 10_000_000;

    /** The defaults. */
    public static final DocumentsConfig DEFAULTS = builder().build();

    private final boolean enabled;
    private final String mode;
    private final List<String> paths;
    private final int maxDepth;
    private final long maxFileBytes;
    private final int maxPromptChars;
    private final boolean fileAutoActivate;
    private final List<String> autoActivate;
    private final Map<String, List<String>> triggers;

    private DocumentsConfig(Builder b) {
        boolean enabled = b.enabled;
        String mode = b.mode;
        List<String> paths = b.paths;
        int maxDepth = b.maxDepth;
        long maxFileBytes = b.maxFileBytes;
        int maxPromptChars = b.maxPromptChars;
        boolean fileAutoActivate = b.fileAutoActivate;
        List<String> autoActivate = b.autoActivate;
        Map<String, List<String>> triggers = b.triggers;
        Objects.requireNonNull(mode, "mode");
        Checks.requireArgument(MODES.contains(mode),
                "documents.mode must be auto, all or explicit, got '" + mode + "'");
        paths = List.copyOf(paths);
        Checks.requireRange(maxDepth, 0, MAX_DEPTH, "documents.maxDepth");
        Checks.requireRange(maxFileBytes, MIN_FILE_BYTES, MAX_FILE_BYTES, "documents.maxFileBytes");
        Checks.requireRange(maxPromptChars, MIN_PROMPT_CHARS, MAX_PROMPT_CHARS, "documents.maxPromptChars");
        autoActivate = autoActivate == null ? List.of() : List.copyOf(autoActivate);
        Map<String, List<String>> t = new LinkedHashMap<>();
        if (triggers != null) {
            triggers.forEach((k, v) -> t.put(k, List.copyOf(v)));
        }
        triggers = Collections.unmodifiableMap(t);
        this.enabled = enabled;
        this.mode = mode;
        this.paths = paths;
        this.maxDepth = maxDepth;
        this.maxFileBytes = maxFileBytes;
        this.maxPromptChars = maxPromptChars;
        this.fileAutoActivate = fileAutoActivate;
        this.autoActivate = autoActivate;
        this.triggers = triggers;
    }

    /** Starts a builder from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this section's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.enabled = enabled;
        b.mode = mode;
        b.paths = paths;
        b.maxDepth = maxDepth;
        b.maxFileBytes = maxFileBytes;
        b.maxPromptChars = maxPromptChars;
        b.fileAutoActivate = fileAutoActivate;
        b.autoActivate = autoActivate;
        b.triggers = triggers;
        return b;
    }

    /** Whether they are scanned. */
    public boolean enabled() {
        return enabled;
    }

    /** auto, all or explicit. */
    public String mode() {
        return mode;
    }

    /** The directories scanned. */
    public List<String> paths() {
        return paths;
    }

    /** The directory depth. */
    public int maxDepth() {
        return maxDepth;
    }

    /** The largest file read. */
    public long maxFileBytes() {
        return maxFileBytes;
    }

    /** The most characters injected into a prompt. */
    public int maxPromptChars() {
        return maxPromptChars;
    }

    /** Whether a skill file's own {@code autoActivate: true} counts ({@code autoActivate: false} turns it off). */
    public boolean fileAutoActivate() {
        return fileAutoActivate;
    }

    /** Skill names the config auto-activates ({@code autoActivate: [names]}). */
    public List<String> autoActivate() {
        return autoActivate;
    }

    /** Per skill name, more words that activate it in {@code auto} mode. */
    public Map<String, List<String>> triggers() {
        return triggers;
    }

    /**
     * Whether the settings read at scan time (enabled, paths, depth, sizes) differ; mode, activation
     * and triggers apply at the next {@code list_skills} without a restart.
     */
    public boolean scanDiffers(DocumentsConfig o) {
        return enabled != o.enabled || !paths.equals(o.paths) || maxDepth != o.maxDepth
                || maxFileBytes != o.maxFileBytes || maxPromptChars != o.maxPromptChars;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DocumentsConfig e && enabled == e.enabled && mode.equals(e.mode) && paths.equals(e.paths)
                && maxDepth == e.maxDepth && maxFileBytes == e.maxFileBytes && maxPromptChars == e.maxPromptChars
                && fileAutoActivate == e.fileAutoActivate && autoActivate.equals(e.autoActivate)
                && triggers.equals(e.triggers);
    }

    @Override
    public int hashCode() {
        return Objects.hash(enabled, mode, paths, maxDepth, maxFileBytes, maxPromptChars, fileAutoActivate,
                autoActivate, triggers);
    }

    @Override
    public String toString() {
        return "DocumentsConfig[enabled=" + enabled + ", mode=" + mode + ", paths=" + paths + ", maxDepth=" + maxDepth
                + ", maxFileBytes=" + maxFileBytes + ", maxPromptChars=" + maxPromptChars + ", fileAutoActivate="
                + fileAutoActivate + ", autoActivate=" + autoActivate + ", triggers=" + triggers + "]";
    }

    /**
     * Builder of {@link DocumentsConfig}, starting from the defaults.
     */
    public static final class Builder {
        private boolean enabled = true;
        private String mode = "auto";
        private List<String> paths = DEFAULT_PATHS;
        private int maxDepth = 6;
        private long maxFileBytes = 65_536;
        private int maxPromptChars = 20_000;
        private boolean fileAutoActivate = true;
        private List<String> autoActivate;
        private Map<String, List<String>> triggers;

        private Builder() {
        }

        /** Whether they are scanned. */
        public Builder enabled(boolean enabled) {
            this.enabled = enabled;
            return this;
        }

        /** auto, all or explicit. */
        public Builder mode(String mode) {
            this.mode = mode;
            return this;
        }

        /** The directories scanned. */
        public Builder paths(List<String> paths) {
            this.paths = paths;
            return this;
        }

        /** The directory depth: 0..64. */
        public Builder maxDepth(int maxDepth) {
            this.maxDepth = maxDepth;
            return this;
        }

        /** The largest file read: 1 KiB to 64 MiB. */
        public Builder maxFileBytes(long maxFileBytes) {
            this.maxFileBytes = maxFileBytes;
            return this;
        }

        /** The most characters injected into a prompt: 1,000..10,000,000. */
        public Builder maxPromptChars(int maxPromptChars) {
            this.maxPromptChars = maxPromptChars;
            return this;
        }

        /** Whether a skill file's own {@code autoActivate: true} counts ({@code autoActivate: false} turns it off). */
        public Builder fileAutoActivate(boolean fileAutoActivate) {
            this.fileAutoActivate = fileAutoActivate;
            return this;
        }

        /** Skill names the config auto-activates ({@code null}: none). */
        public Builder autoActivate(List<String> autoActivate) {
            this.autoActivate = autoActivate;
            return this;
        }

        /** Per skill name, more words that activate it in {@code auto} mode ({@code null}: none). */
        public Builder triggers(Map<String, List<String>> triggers) {
            this.triggers = triggers;
            return this;
        }

        /**
         * The section.
         *
         * @throws NullPointerException when {@code mode} or {@code paths} is {@code null}
         * @throws IllegalArgumentException when a value is out of its range (the message names it and the
         *     range)
         */
        public DocumentsConfig build() {
            return new DocumentsConfig(this);
        }
    }
}
