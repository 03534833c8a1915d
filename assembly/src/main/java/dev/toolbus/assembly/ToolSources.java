package dev.toolbus.assembly;

import dev.toolbus.assembly.samples.SampleTools;
import dev.toolbus.config.Config;
import dev.toolbus.config.LiveConfig;
import dev.toolbus.mcp.client.McpServerConfig;
import dev.toolbus.mcp.client.McpServersFile;
import dev.toolbus.mcp.client.McpToolSource;
import dev.toolbus.plugins.stdio.PluginConfigs;
import dev.toolbus.plugins.stdio.StdioPluginHost;
import dev.toolbus.plugins.stdio.StdioPluginReloader;
import dev.toolbus.plugins.stdio.StdioPlugins;
import dev.toolbus.policy.ConfiguredPolicy;
import dev.toolbus.policy.ToolSearch;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.tool.BuiltInTools;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
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
 * The tool sources of an assembly: the caller's Java tools, the sample tools, stdio plugin folders,
 * skill documents, MCP servers, {@code tool_search} when some tool is deferred, and
 * {@code read_tool_result} (deferred: it reads on in cut results). An override replaces the config's
 * list ({@code pluginDir} replaces {@code pluginDirs}, {@code skillPaths} replaces
 * {@code documents.paths}, {@code mcpServersFile} replaces {@code sources.mcp.serversFile}). Relative
 * paths from the config are read against the working directory. A folder named by an override must
 * exist; one named only by the config is skipped when missing (the defaults usually are). Without a
 * config file ({@code configPaths == false}) only the overrides name sources.
 */
final class ToolSources {

    private static final Logger log = LoggerFactory.getLogger(ToolSources.class);

    /** How often watched plugin folders are looked at ({@code sources.custom.autoReload}). */
    static final Duration PLUGIN_POLL = Duration.ofSeconds(1);

    private final List<StdioPluginHost> plugins;
    private final List<StdioPluginReloader> watched;
    private final McpToolSource mcp;
    private final SkillSetup skills;
    private final Disposable following;

    private ToolSources(List<StdioPluginHost> plugins, List<StdioPluginReloader> watched, McpToolSource mcp,
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
     * What to load.
     *
     * @param configPaths whether the config's paths name sources (false without a config file)
     * @param javaTools the caller's tools, registered as plugin tools
     * @param sampleTools whether to register the sample tools
     * @param pluginDir replaces {@code sources.custom.pluginDirs}, or {@code null}
     * @param skillPaths replace {@code documents.paths}, or {@code null}
     * @param mcpServersFile replaces {@code sources.mcp.serversFile}, or {@code null}
     */
    record Plan(boolean configPaths, List<ToolSpec> javaTools, boolean sampleTools, Path pluginDir,
                List<Path> skillPaths, Path mcpServersFile) {
        Plan {
            javaTools = List.copyOf(javaTools);
            skillPaths = skillPaths == null ? null : List.copyOf(skillPaths);
        }
    }

    /**
     * Registers the tools.
     *
     * @param live the config whose {@code plugins} section the plugins get (and follow on reload)
     * @param policy the policy {@code tool_search} answers under
     * @throws RuntimeException when a source named by an override cannot be loaded; whatever was
     *     started before is stopped
     */
    static ToolSources load(ToolRegistry registry, Plan plan, LiveConfig live, ConfiguredPolicy policy,
                            DescriptionLocale locale) {
        Config config = plan.configPaths() ? live.current() : null;
        if (!plan.javaTools().isEmpty()) {
            registry.registerAll(plan.javaTools(), ToolSource.PLUGIN);
        }
        if (plan.sampleTools()) {
            registry.registerAll(new SampleTools().specs(), ToolSource.PLUGIN);
        }
        List<StdioPluginHost> hosts = new ArrayList<>();
        List<StdioPluginReloader> watched = new ArrayList<>();
        McpToolSource mcp = null;
        SkillSetup skills = null;
        boolean autoReload = config == null || config.sources().custom().autoReload();
        // toolbus.yaml's plugins.<id>.config; on a config reload the running plugins get "configure"
        PluginConfigs configs = PluginConfigs.of(live.current().plugins().configs());
        Disposable following = live.onReload(r -> configs.update(r.config().plugins().configs()));
        try {
            for (Path dir : pluginDirs(config, plan.pluginDir())) {
                // the assembly stops the plugins itself, after the running calls: no kill-at-once
                // shutdown hook racing that stop (the plugins' watchdog still covers a killed JVM)
                if (autoReload) {
                    watched.add(StdioPluginReloader.start(dir, registry, PLUGIN_POLL, Duration.ofMinutes(2), configs));
                } else {
                    hosts.add(StdioPlugins.load(dir, configs).withoutShutdownHook().registerInto(registry));
                }
            }
            List<Path> skillPaths = skillPaths(config, plan.skillPaths());
            if (!skillPaths.isEmpty()) {
                // an override asks for load_skill; config defaults only offer it when they found something
                skills = SkillSetup.start(skillPaths, live.current().documents(),
                        plan.skillPaths() != null && !plan.skillPaths().isEmpty(), registry);
            }
            mcp = mcp(registry, config, plan.mcpServersFile());
            offerSearch(registry, policy, locale);
        } catch (RuntimeException e) {
            following.dispose();
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
        return new ToolSources(hosts, watched, mcp, skills, following);
    }

    /** Warns when no tool but {@code read_tool_result} is registered. */
    static void warnIfEmpty(ToolRegistry registry) {
        if (registry.entries().stream().allMatch(e -> e.tool().name().equals(BuiltInTools.READ_TOOL_RESULT))) {
            log.warn("no tools registered: every call will be answered UNKNOWN_TOOL (pass --sample-tools or --plugins)");
        }
    }

    /** Registers {@code tool_search} once some tool is deferred (again at start: later Java tools count too). */
    static void offerSearch(ToolRegistry registry, ConfiguredPolicy policy, DescriptionLocale locale) {
        // read_tool_result is deferred only so that it is not listed: it does not make tool_search appear
        if (registry.find(ToolSearch.NAME) == null && registry.entries().stream()
                .anyMatch(e -> e.tool().definition().visibility() == Visibility.DEFERRED
                        && !e.tool().name().equals(BuiltInTools.READ_TOOL_RESULT))) {
            registry.register(ToolSearch.spec(registry, policy, locale), ToolSource.CORE);
            log.info("deferred tools are registered: tool_search is offered");
        }
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
        following.dispose();
        return Flux.fromIterable(plugins).concatMap(StdioPluginHost::closeGracefully)
                .thenMany(Flux.fromIterable(watched).concatMap(StdioPluginReloader::closeGracefully))
                .then(mcp == null ? Mono.empty() : mcp.closeGracefully());
    }
}
