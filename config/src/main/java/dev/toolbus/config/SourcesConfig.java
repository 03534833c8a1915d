package dev.toolbus.config;

import java.util.List;
import java.util.Objects;

/**
 * The {@code sources} section: the tool sources' switches, disabled tools, plugin directories and MCP
 * servers file.
 *
 * @param builtin core and in-process Java plugin tools
 * @param custom stdio plugins
 * @param mcp MCP servers
 */
public record SourcesConfig(Builtin builtin, Custom custom, Mcp mcp) {

    /** Every source on, with its defaults. */
    public static final SourcesConfig DEFAULTS = new SourcesConfig(Builtin.DEFAULTS, Custom.DEFAULTS, Mcp.DEFAULTS);

    public SourcesConfig {
        Objects.requireNonNull(builtin, "builtin");
        Objects.requireNonNull(custom, "custom");
        Objects.requireNonNull(mcp, "mcp");
    }

    /**
     * The built-in source ({@code sources.builtin}).
     *
     * @param enabled whether core and Java plugin tools are offered
     * @param disabledTools tools disabled everywhere
     */
    public record Builtin(boolean enabled, List<String> disabledTools) {
        /** Enabled, nothing disabled. */
        public static final Builtin DEFAULTS = new Builtin(true, List.of());

        public Builtin {
            disabledTools = List.copyOf(disabledTools);
        }
    }

    /**
     * The stdio plugin source ({@code sources.custom}).
     *
     * @param enabled whether stdio plugin tools are offered
     * @param pluginDirs directories of stdio plugins (read by the stdio plugin source)
     * @param autoReload whether plugin directories are watched (for the stdio plugin source)
     * @param disabledTools tools disabled everywhere
     */
    public record Custom(boolean enabled, List<String> pluginDirs, boolean autoReload, List<String> disabledTools) {
        /** Enabled, {@code plugins}, watched, nothing disabled. */
        public static final Custom DEFAULTS = new Custom(true, List.of("plugins"), true, List.of());

        public Custom {
            pluginDirs = List.copyOf(pluginDirs);
            disabledTools = List.copyOf(disabledTools);
        }
    }

    /**
     * The MCP source ({@code sources.mcp}). Immutable; built with {@link #builder()}, which starts from
     * the defaults.
     */
    public static final class Mcp {

        /** Enabled, {@code mcp-servers.json}, every server of the file. */
        public static final Mcp DEFAULTS = builder().build();

        private final boolean enabled;
        private final String serversFile;
        private final List<String> servers;
        private final List<String> disabledServers;
        private final List<String> disabledTools;

        private Mcp(Builder b) {
            boolean enabled = b.enabled;
            String serversFile = b.serversFile;
            List<String> servers = b.servers;
            List<String> disabledServers = b.disabledServers;
            List<String> disabledTools = b.disabledTools;
            Objects.requireNonNull(serversFile, "serversFile");
            servers = List.copyOf(servers);
            disabledServers = List.copyOf(disabledServers);
            disabledTools = List.copyOf(disabledTools);
            this.enabled = enabled;
            this.serversFile = serversFile;
            this.servers = servers;
            this.disabledServers = disabledServers;
            this.disabledTools = disabledTools;
        }

        /** Starts a builder from the defaults. */
        public static Builder builder() {
            return new Builder();
        }

        /** A builder holding this source's values. */
        public Builder toBuilder() {
            Builder b = new Builder();
            b.enabled = enabled;
            b.serversFile = serversFile;
            b.servers = servers;
            b.disabledServers = disabledServers;
            b.disabledTools = disabledTools;
            return b;
        }

        /** Whether MCP tools are offered. */
        public boolean enabled() {
            return enabled;
        }

        /** The MCP servers file (read by the MCP source). */
        public String serversFile() {
            return serversFile;
        }

        /** The servers to start (empty: all in the file). */
        public List<String> servers() {
            return servers;
        }

        /** The servers not to start. */
        public List<String> disabledServers() {
            return disabledServers;
        }

        /** Tools disabled everywhere. */
        public List<String> disabledTools() {
            return disabledTools;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Mcp e && enabled == e.enabled && serversFile.equals(e.serversFile)
                    && servers.equals(e.servers) && disabledServers.equals(e.disabledServers)
                    && disabledTools.equals(e.disabledTools);
        }

        @Override
        public int hashCode() {
            return Objects.hash(enabled, serversFile, servers, disabledServers, disabledTools);
        }

        @Override
        public String toString() {
            return "Mcp[enabled=" + enabled + ", serversFile=" + serversFile + ", servers=" + servers
                    + ", disabledServers=" + disabledServers + ", disabledTools=" + disabledTools + "]";
        }

        /**
         * Builder of {@link Mcp}, starting from the defaults.
         */
        public static final class Builder {
            private boolean enabled = true;
            private String serversFile = "mcp-servers.json";
            private List<String> servers = List.of();
            private List<String> disabledServers = List.of();
            private List<String> disabledTools = List.of();

            private Builder() {
            }

            /** Whether MCP tools are offered. */
            public Builder enabled(boolean enabled) {
                this.enabled = enabled;
                return this;
            }

            /** The MCP servers file (read by the MCP source). */
            public Builder serversFile(String serversFile) {
                this.serversFile = serversFile;
                return this;
            }

            /** The servers to start (empty: all in the file). */
            public Builder servers(List<String> servers) {
                this.servers = servers;
                return this;
            }

            /** The servers not to start. */
            public Builder disabledServers(List<String> disabledServers) {
                this.disabledServers = disabledServers;
                return this;
            }

            /** Tools disabled everywhere. */
            public Builder disabledTools(List<String> disabledTools) {
                this.disabledTools = disabledTools;
                return this;
            }

            /**
             * The source.
             *
             * @throws NullPointerException when {@code serversFile} or a list is {@code null}
             */
            public Mcp build() {
                return new Mcp(this);
            }
        }
    }
}
