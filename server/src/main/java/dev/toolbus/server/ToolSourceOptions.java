package dev.toolbus.server;

import dev.toolbus.assembly.ToolbusAssembly;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The tool-source flags shared by {@code serve}, {@code mcp} and {@code tools --local}: each one,
 * when given, replaces the matching key of {@code toolbus.yaml} ({@code sources.custom.pluginDirs},
 * {@code documents.paths}, {@code sources.mcp.serversFile}).
 */
final class ToolSourceOptions {

    @Option(names = "--sample-tools",
            description = "Register the sample tools echo, add, sleep, fail, draw, progress, greet, ask_city, wipe and count.")
    boolean sampleTools;

    @Option(names = "--plugins", paramLabel = "DIR",
            description = "Load the plugins of DIR, one folder per plugin (toolbus stdio, MaiBot, OpenClaw or ChatAI, "
                    + "detected per folder); replaces sources.custom.pluginDirs.")
    Path pluginsDir;

    @Option(names = "--skills", paramLabel = "PATH", split = ",",
            description = "Scan these folders for skill documents (SKILL.md, *.skill.yaml, *.skill.json) "
                    + "and offer them through the load_skill tool; replaces documents.paths.")
    List<Path> skills;

    @Option(names = "--mcp-servers", paramLabel = "FILE",
            description = "Connect the MCP servers of this mcp-servers.json; replaces sources.mcp.serversFile.")
    Path mcpServers;

    /** Gives the flags to an assembly: each one given replaces the config's key. */
    void applyTo(ToolbusAssembly.Builder b) {
        b.sampleTools(sampleTools);
        if (pluginsDir != null) {
            b.pluginDir(pluginsDir);
        }
        if (skills != null && !skills.isEmpty()) {
            b.skillPaths(skills);
        }
        if (mcpServers != null) {
            b.mcpServersFile(mcpServers);
        }
    }

    /** Whether any of these flags was given. */
    boolean any() {
        return sampleTools || pluginsDir != null || skills != null || mcpServers != null;
    }
}
