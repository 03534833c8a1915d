package dev.toolbus.config;

import dev.toolbus.spi.Checks;
import java.util.Objects;

/**
 * The {@code dispatch} section: a small model at an OpenAI-compatible chat-completions endpoint narrows
 * {@code list_tools} answers that carry a conversation {@code text} to the tool groups it needs. Off by default.
 * Immutable; built with {@link #builder()}, which starts from the defaults (docs/configuration.md); its
 * {@link #toString()} masks the key.
 */
public final class DispatchConfig {

    /** The most groups a decision may pick. */
    static final int MAX_GROUPS = 20;
    /** The bounds of {@code timeoutMs}: 100 ms to 10 min. */
    static final long MIN_TIMEOUT_MS = 100;
    static final long MAX_TIMEOUT_MS = 600_000;
    /** The longest {@code cacheTtlMs}: 1 h. */
    static final long MAX_CACHE_TTL_MS = 3_600_000;
    /** The default dispatch requests in flight at once. */
    public static final int DEFAULT_MAX_CONCURRENT = 16;
    /** The most dispatch requests in flight that may be allowed. */
    static final int MAX_CONCURRENT = 1024;

    /** The defaults: off. */
    public static final DispatchConfig DEFAULTS = builder().build();

    private final boolean enabled;
    private final boolean useSummary;
    private final int maxGroups;
    private final String baseUrl;
    private final String model;
    private final String apiKey;
    private final long timeoutMs;
    private final long cacheTtlMs;
    private final int maxConcurrent;

    private DispatchConfig(Builder b) {
        boolean enabled = b.enabled;
        boolean useSummary = b.useSummary;
        int maxGroups = b.maxGroups;
        String baseUrl = b.baseUrl;
        String model = b.model;
        String apiKey = b.apiKey;
        long timeoutMs = b.timeoutMs;
        long cacheTtlMs = b.cacheTtlMs;
        Checks.requireRange(maxGroups, 1, MAX_GROUPS, "dispatch.maxGroups");
        baseUrl = baseUrl == null ? "" : baseUrl.strip();
        model = model == null ? "" : model.strip();
        apiKey = apiKey == null ? "" : apiKey.strip();
        Checks.requireRange(timeoutMs, MIN_TIMEOUT_MS, MAX_TIMEOUT_MS, "dispatch.model.timeoutMs");
        Checks.requireRange(cacheTtlMs, 0, MAX_CACHE_TTL_MS, "dispatch.cacheTtlMs");
        Checks.requireRange(b.maxConcurrent, 1, MAX_CONCURRENT, "dispatch.maxConcurrent");
        this.enabled = enabled;
        this.useSummary = useSummary;
        this.maxGroups = maxGroups;
        this.baseUrl = baseUrl;
        this.model = model;
        this.apiKey = apiKey;
        this.timeoutMs = timeoutMs;
        this.cacheTtlMs = cacheTtlMs;
        this.maxConcurrent = b.maxConcurrent;
    }

    /** Starts a builder from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this section's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.enabled = enabled;
        b.useSummary = useSummary;
        b.maxGroups = maxGroups;
        b.baseUrl = baseUrl;
        b.model = model;
        b.apiKey = apiKey;
        b.timeoutMs = timeoutMs;
        b.cacheTtlMs = cacheTtlMs;
        b.maxConcurrent = maxConcurrent;
        return b;
    }

    /** Whether dispatch runs (off by default). */
    public boolean enabled() {
        return enabled;
    }

    /** Offer groups by their descriptions (true) or by their tools' descriptions. */
    public boolean useSummary() {
        return useSummary;
    }

    /** At most this many groups. */
    public int maxGroups() {
        return maxGroups;
    }

    /** The endpoint's base URL ({@code /chat/completions} is appended). */
    public String baseUrl() {
        return baseUrl;
    }

    /** The model name. */
    public String model() {
        return model;
    }

    /** Sent as a bearer token; masked in the effective config, never logged. */
    public String apiKey() {
        return apiKey;
    }

    /** How long one decision may take. */
    public long timeoutMs() {
        return timeoutMs;
    }

    /** How long a decision is reused for the same stream and text (0: not cached). */
    public long cacheTtlMs() {
        return cacheTtlMs;
    }

    /** Dispatch requests in flight at once; more fall back to the full tool list at once. */
    public int maxConcurrent() {
        return maxConcurrent;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DispatchConfig e && enabled == e.enabled && useSummary == e.useSummary
                && maxGroups == e.maxGroups && baseUrl.equals(e.baseUrl) && model.equals(e.model)
                && apiKey.equals(e.apiKey) && timeoutMs == e.timeoutMs && cacheTtlMs == e.cacheTtlMs
                && maxConcurrent == e.maxConcurrent;
    }

    @Override
    public int hashCode() {
        return Objects.hash(enabled, useSummary, maxGroups, baseUrl, model, apiKey, timeoutMs, cacheTtlMs, maxConcurrent);
    }

    @Override
    public String toString() {
        return "DispatchConfig[enabled=" + enabled + ", useSummary=" + useSummary + ", maxGroups=" + maxGroups
                + ", baseUrl=" + baseUrl + ", model=" + model + ", apiKey=" + (apiKey.isEmpty() ? "none" : "***")
                + ", timeoutMs=" + timeoutMs + ", cacheTtlMs=" + cacheTtlMs + "]";
    }

    /**
     * Builder of {@link DispatchConfig}, starting from the defaults.
     */
    public static final class Builder {
        private boolean enabled;
        private boolean useSummary = true;
        private int maxGroups = 3;
        private String baseUrl;
        private String model;
        private String apiKey;
        private long timeoutMs = 10_000;
        private long cacheTtlMs = 30_000;
        private int maxConcurrent = DEFAULT_MAX_CONCURRENT;

        private Builder() {
        }

        /** Whether dispatch runs (off by default). */
        public Builder enabled(boolean enabled) {
            this.enabled = enabled;
            return this;
        }

        /** Offer groups by their descriptions (true) or by their tools' descriptions. */
        public Builder useSummary(boolean useSummary) {
            this.useSummary = useSummary;
            return this;
        }

        /** At most this many groups: 1..20. */
        public Builder maxGroups(int maxGroups) {
            this.maxGroups = maxGroups;
            return this;
        }

        /** The endpoint's base URL ({@code /chat/completions} is appended; {@code null}: empty). */
        public Builder baseUrl(String baseUrl) {
            this.baseUrl = baseUrl;
            return this;
        }

        /** The model name ({@code null}: empty). */
        public Builder model(String model) {
            this.model = model;
            return this;
        }

        /** Sent as a bearer token ({@code null}: empty). */
        public Builder apiKey(String apiKey) {
            this.apiKey = apiKey;
            return this;
        }

        /** How long one decision may take: 100 ms to 10 min. */
        public Builder timeoutMs(long timeoutMs) {
            this.timeoutMs = timeoutMs;
            return this;
        }

        /** How long a decision is reused for the same stream and text: 0 (not cached) to 1 h. */
        public Builder cacheTtlMs(long cacheTtlMs) {
            this.cacheTtlMs = cacheTtlMs;
            return this;
        }

        /** Dispatch requests in flight at once: 1..1024 (default 16); more fall back to the full list. */
        public Builder maxConcurrent(int maxConcurrent) {
            this.maxConcurrent = maxConcurrent;
            return this;
        }

        /**
         * The section.
         *
         * @throws IllegalArgumentException when a value is out of its range (the message names it and the
         *     range)
         */
        public DispatchConfig build() {
            return new DispatchConfig(this);
        }
    }
}
