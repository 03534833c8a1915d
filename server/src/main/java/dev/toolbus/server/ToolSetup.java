package dev.toolbus.server;

import dev.toolbus.config.Config;
import dev.toolbus.config.LiveConfig;
import dev.toolbus.mcp.McpServerConfig;
import dev.toolbus.mcp.McpServersFile;
import dev.toolbus.mcp.McpToolSource;
import dev.toolbus.plugins.stdio.PluginConfigs;
import dev.toolbus.plugins.stdio.StdioPluginHost;
import dev.toolbus.plugins.stdio.StdioPluginReloader;
import dev.toolbus.plugins.stdio.StdioPlugins;
import dev.toolbus.policy.ConfiguredPolicy;
import dev.toolbus.policy.ToolSearch;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.server.samples.SampleTools;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.tool.BuiltInTools;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.Visibility;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Fills a registry from the tool flags and the config's {@code sources} and {@code documents}: the
 * sample tools, stdio plugin folders, skill documents, MCP servers, {@code tool_search} when some
 * tool is deferred, and {@code read_tool_result} (deferred: it reads on in cut results). Flags replace the config's lists ({@code --plugins} replaces {@code pluginDirs},
 * {@code --skills} replaces {@code documents.paths}, {@code --mcp-servers} replaces
 * {@code sources.mcp.serversFile}). Relative paths from the config are read against
 * the working directory. A folder named by a flag must exist; one named only by the config is skipped
 * when missing (the defaults usually are).
 */
final class ToolSetup {

    private static final Logger log = LoggerFactory.getLogger(ToolSetup.class);

    /** How often watched plugin folders are looked at ({@code sources.custom.autoReload}). */
    static final Duration PLUGIN_POLL = Duration.ofSeconds(1);

    private final List<StdioPluginHost> plugins;
    private final List<StdioPluginReloader> watched;
    private final McpToolSource mcp;
    private final SkillSetup skills;
    private final Disposable following;

    private ToolSetup(List<StdioPluginHost> plugins, List<StdioPluginReloader> watched, McpToolSource mcp,
                      SkillSetup skills, Disposable following) {
        this.plugins = List.copyOf(plugins);
        this.watched = List.copyOf(watched);
        this.mcp = mcp;
        this.skills = skills;
        this.following = following;
    }

    /** The skill documents, or {@code null} when none are configured (list_skills then answers mode off). */
    SkillSetup skills() {
        return skills;
    }

    /**
     * Registers the tools.
     *
     * @param config the config file's content, or {@code null} without {@code --config}
     * @param policy the policy {@code tool_search} answers under
     */
    static ToolSetup assemble(ToolRegistry registry, Config config, boolean sampleTools, Path pluginsFlag,
                              List<Path> skillsFlag, ConfiguredPolicy policy, DescriptionLocale locale) {
        return assemble(registry, config, sampleTools, pluginsFlag, skillsFlag, null, policy, locale);
    }

    /**
     * Registers the tools.
     *
     * @param config the config file's content, or {@code null} without {@code --config}
     * @param mcpFlag {@code --mcp-servers}, or {@code null}
     * @param policy the policy {@code tool_search} answers under
     */
    static ToolSetup assemble(ToolRegistry registry, Config config, boolean sampleTools, Path pluginsFlag,
                              List<Path> skillsFlag, Path mcpFlag, ConfiguredPolicy policy, DescriptionLocale locale) {
        return assemble(registry, config, sampleTools, pluginsFlag, skillsFlag, mcpFlag, policy, locale, null);
    }

    /**
     * Registers the tools.
     *
     * @param config the config file's content, or {@code null} without {@code --config}
     * @param mcpFlag {@code --mcp-servers}, or {@code null}
     * @param policy the policy {@code tool_search} answers under
     * @param live the live config whose {@code plugins} section the plugins get (and follow on reload),
     *     or {@code null}: then {@code config}'s, fixed
     */
    static ToolSetup assemble(ToolRegistry registry, Config config, boolean sampleTools, Path pluginsFlag,
                              List<Path> skillsFlag, Path mcpFlag, ConfiguredPolicy policy, DescriptionLocale locale,
                              LiveConfig live) {
        if (sampleTools) {
            registry.registerAll(new SampleTools().specs(), ToolSource.PLUGIN);
        }
        List<StdioPluginHost> hosts = new ArrayList<>();
        List<StdioPluginReloader> watched = new ArrayList<>();
        McpToolSource mcp = null;
        SkillSetup skills = null;
        boolean autoReload = config == null || config.sources().custom().autoReload();
        // toolbus.yaml's plugins.<id>.config; on a config reload the running plugins get "configure"
        Config.Plugins section = live != null ? live.current().plugins() : config != null ? config.plugins()
                : Config.Plugins.NONE;
        PluginConfigs configs = PluginConfigs.of(section.configs());
        Disposable following = live == null ? null
                : live.onReload(r -> configs.update(r.config().plugins().configs()));
        try {
            for (Path dir : pluginDirs(config, pluginsFlag)) {
                // the commands stop the plugins themselves, after the running calls: no kill-at-once
                // shutdown hook racing that stop (the plugins' watchdog still covers a killed JVM)
                if (autoReload) {
                    watched.add(StdioPluginReloader.start(dir, registry, PLUGIN_POLL, Duration.ofMinutes(2), configs));
                } else {
                    hosts.add(StdioPlugins.load(dir, configs).withoutShutdownHook().registerInto(registry));
                }
            }
            List<Path> skillPaths = skillPaths(config, skillsFlag);
            if (!skillPaths.isEmpty()) {
                // a flag asks for load_skill; config defaults only offer it when they found something
                skills = SkillSetup.start(skillPaths, config, skillsFlag != null && !skillsFlag.isEmpty(), registry);
            }
            mcp = mcp(registry, config, mcpFlag);
            if (registry.entries().stream().anyMatch(e -> e.tool().definition().visibility() == Visibility.DEFERRED)) {
                registry.register(ToolSearch.spec(registry, policy, locale), ToolSource.CORE);
                log.info("deferred tools are registered: tool_search is offered");
            }
        } catch (RuntimeException e) {
            if (following != null) {
                following.dispose();
            }
            hosts.forEach(StdioPluginHost::close);
            watched.forEach(StdioPluginReloader::close);
            if (mcp != null) {
                mcp.close();
            }
            if (skills != null) {
                skills.close();
            }
            throw e;
        }
        if (registry.entries().stream().allMatch(e -> e.tool().name().equals(BuiltInTools.READ_TOOL_RESULT))) {
            log.warn("no tools registered: every call will be answered UNKNOWN_TOOL (pass --sample-tools or --plugins)");
        }
        return new ToolSetup(hosts, watched, mcp, skills, following);
    }

    /**
     * Connects the MCP servers of the servers file: all of them, or the config's {@code servers}
     * list, minus {@code disabledServers}. A server that fails is logged and left out; the others
     * still register their tools.
     */
    private static McpToolSource mcp(ToolRegistry registry, Config config, Path flag) {
        Path file = flag;
        if (file == null) {
            if (config == null || !config.sources().mcp().enabled()) {
                return null;
            }
            List<Path> found = existing(List.of(config.sources().mcp().serversFile()), "MCP servers file");
            if (found.isEmpty()) {
                return null;
            }
            file = found.get(0);
        }
        McpServersFile.Parsed parsed;
        try {
            parsed = McpServersFile.read(file);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("MCP servers file " + file + ": " + e.getMessage(), e);
        }
        for (String problem : parsed.problems()) {
            log.warn("MCP servers file {}: {}", file, problem);
        }
        List<String> only = config == null ? List.of() : config.sources().mcp().servers();
        List<String> off = config == null ? List.of() : config.sources().mcp().disabledServers();
        List<McpServerConfig> servers = parsed.servers().stream()
                .filter(s -> only.isEmpty() || only.contains(s.name()))
                .filter(s -> !off.contains(s.name()))
                .toList();
        if (servers.isEmpty()) {
            log.info("MCP servers file {} names no server to start", file);
            return null;
        }
        McpToolSource source = McpToolSource.builder().servers(servers).build();
        try {
            source.connect(registry).block();
        } catch (RuntimeException e) {
            source.close();
            throw e;
        }
        source.diagnostics().forEach(d -> log.warn("MCP {}: {}", d.kind(), d.message()));
        log.info("MCP: {} tools from {} servers", source.tools().size(), servers.size());
        return source;
    }

    private static List<Path> pluginDirs(Config config, Path flag) {
        if (flag != null) {
            return List.of(flag);
        }
        if (config == null || !config.sources().custom().enabled()) {
            return List.of();
        }
        return existing(config.sources().custom().pluginDirs(), "plugin folder");
    }

    private static List<Path> skillPaths(Config config, List<Path> flag) {
        if (flag != null && !flag.isEmpty()) {
            return flag;
        }
        if (config == null || !config.documents().enabled()) {
            return List.of();
        }
        return existing(config.documents().paths(), "skill path");
    }

    private static List<Path> existing(List<String> paths, String what) {
        List<Path> found = new ArrayList<>();
        for (String p : paths) {
            Path path = Path.of(p);
            if (Files.exists(path)) {
                found.add(path);
            } else {
                log.info("{} {} from the config does not exist; skipped", what, path.toAbsolutePath().normalize());
            }
        }
        return found;
    }

    /** Stops every plugin process and MCP server. */
    Mono<Void> closeGracefully() {
        if (skills != null) {
            skills.close();
        }
        if (following != null) {
            following.dispose();
        }
        return Flux.fromIterable(plugins).concatMap(StdioPluginHost::closeGracefully)
                .thenMany(Flux.fromIterable(watched).concatMap(StdioPluginReloader::closeGracefully))
                .then(mcp == null ? Mono.empty() : mcp.closeGracefully());
    }
}
