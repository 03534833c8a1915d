package dev.toolbus.rules;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * What the rules know of the tool being called: its names (for the {@code tools} lists) and the facts
 * the {@code tool} variable shows. The engine builds one per tool definition (and risk); it is a value,
 * usable as a cache key.
 *
 * <pre>{@code
 * ToolFacts t = ToolFacts.builder("transfer").source("core").risk("high").sideEffecting(true).build();
 * }</pre>
 */
public final class ToolFacts {

    /** The sources, as the {@code tool.source} variable shows them. */
    public static final List<String> SOURCES = List.of("core", "plugin", "stdio", "mcp");
    /** The risks, as the {@code tool.risk} variable shows them. */
    public static final List<String> RISKS = List.of("low", "medium", "high");

    private final String name;
    private final String originalName;
    private final String pluginId;
    private final String source;
    private final String risk;
    private final boolean sideEffecting;
    private final boolean dangerous;
    private final Set<String> groups;
    private final int hash;

    private ToolFacts(Builder b) {
        this.name = b.name;
        this.originalName = b.originalName;
        this.pluginId = b.pluginId;
        this.source = b.source;
        this.risk = b.risk;
        this.sideEffecting = b.sideEffecting;
        this.dangerous = b.dangerous;
        this.groups = Collections.unmodifiableSet(new LinkedHashSet<>(b.groups));
        this.hash = Objects.hash(name, originalName, pluginId, source, risk, sideEffecting, dangerous, groups);
    }

    /** A builder for the tool registered under {@code name}. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** The name the tool is registered and called by. */
    public String name() {
        return name;
    }

    /** The name its source gave it when it was registered under another one, else {@code null}. */
    public String originalName() {
        return originalName;
    }

    /** Its plugin id (stdio plugin, MCP server, Java plugin), else {@code null}. */
    public String pluginId() {
        return pluginId;
    }

    /** {@code core}, {@code plugin}, {@code stdio} or {@code mcp}. */
    public String source() {
        return source;
    }

    /** {@code low}, {@code medium} or {@code high}: as the approval step classifies it. */
    public String risk() {
        return risk;
    }

    /** Whether the tool changes something outside (declared). */
    public boolean sideEffecting() {
        return sideEffecting;
    }

    /** Whether it is dangerous (declared, or on {@code security.dangerousTools}). */
    public boolean dangerous() {
        return dangerous;
    }

    /** The groups it declares itself (configured groups are added by the {@link RuleSet}). */
    public Set<String> groups() {
        return groups;
    }

    /** Whether it counts as a plugin tool ({@code group:plugins}): a plugin id, or a stdio or MCP source. */
    public boolean plugin() {
        return pluginId != null || source.equals("stdio") || source.equals("mcp");
    }

    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof ToolFacts t && hash == t.hash && name.equals(t.name)
                && Objects.equals(originalName, t.originalName) && Objects.equals(pluginId, t.pluginId)
                && source.equals(t.source) && risk.equals(t.risk) && sideEffecting == t.sideEffecting
                && dangerous == t.dangerous && groups.equals(t.groups);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "ToolFacts[" + name + (originalName == null ? "" : " (" + originalName + ")")
                + (pluginId == null ? "" : ", plugin " + pluginId) + ", " + source + ", risk " + risk
                + (sideEffecting ? ", side-effecting" : "") + (dangerous ? ", dangerous" : "")
                + (groups.isEmpty() ? "" : ", groups " + groups) + "]";
    }

    /** Builds {@link ToolFacts}; every setter validates. */
    public static final class Builder {
        private final String name;
        private String originalName;
        private String pluginId;
        private String source = "core";
        private String risk = "medium";
        private boolean sideEffecting;
        private boolean dangerous;
        private final List<String> groups = new ArrayList<>();

        private Builder(String name) {
            Objects.requireNonNull(name, "name");
            if (name.isBlank()) {
                throw new IllegalArgumentException("a tool name is blank");
            }
            this.name = name.strip();
        }

        /** The name its source gave it, when it is registered under another; {@code null} or blank for none. */
        public Builder originalName(String value) {
            this.originalName = value == null || value.isBlank() ? null : value.strip();
            return this;
        }

        /** Its plugin id; {@code null} or blank for none. */
        public Builder pluginId(String value) {
            this.pluginId = value == null || value.isBlank() ? null : value.strip();
            return this;
        }

        /**
         * Its source.
         *
         * @throws IllegalArgumentException unless one of {@link #SOURCES} (case ignored)
         */
        public Builder source(String value) {
            this.source = oneOf(value, SOURCES, "source");
            return this;
        }

        /**
         * Its risk as the approval step classifies it.
         *
         * @throws IllegalArgumentException unless one of {@link #RISKS} (case ignored)
         */
        public Builder risk(String value) {
            this.risk = oneOf(value, RISKS, "risk");
            return this;
        }

        /** Whether it is side-effecting. */
        public Builder sideEffecting(boolean value) {
            this.sideEffecting = value;
            return this;
        }

        /** Whether it is dangerous. */
        public Builder dangerous(boolean value) {
            this.dangerous = value;
            return this;
        }

        /** Groups it declares (blank names are skipped; compared in lower case). */
        public Builder groups(Iterable<String> names) {
            for (String g : names) {
                if (g != null && !g.isBlank()) {
                    groups.add(g.strip().toLowerCase(Locale.ROOT));
                }
            }
            return this;
        }

        public ToolFacts build() {
            return new ToolFacts(this);
        }

        private static String oneOf(String value, List<String> allowed, String what) {
            String v = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
            if (!allowed.contains(v)) {
                throw new IllegalArgumentException(what + " must be one of " + allowed + ", got '" + value + "'");
            }
            return v;
        }
    }
}
