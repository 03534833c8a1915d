package dev.toolbus.crossface;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;

/**
 * One {@code toolbus.yaml} and everything it names, in a folder: a real stdio plugin (Python, standard
 * library only) whose tools read their {@code plugins.notes.config}, a real MCP server process
 * (toolbus's example server {@code McpServerMain}: echo, add, draw), a skill document, a policy that
 * hides {@code draw} from members, approval that asks for the high-risk {@code note_wipe}, a rate
 * limit on {@code add}, and a gateway with scoped tokens and a connection cap. The same keys go into an
 * {@code application.yaml} under {@code toolbus:} for the Spring face.
 */
final class Fixture {

    static final String MEMBER_TOKEN = "member-secret";
    static final String OWNER_TOKEN = "owner-secret";
    /** The gateway's connection cap. */
    static final int MAX_CONNECTIONS = 4;

    final Path dir;
    final Path config;
    final Path applicationYaml;
    final Path notes;
    final Path jar;

    private static final String PLUGIN = """
            import json, os, sys

            TOOLS = [
                {"name": "note_add", "description": "Adds a note.",
                 "parameters": [{"name": "text", "type": "string", "description": "The note", "required": True}]},
                {"name": "note_wipe", "description": "Wipes every note.",
                 "inputSchema": {"type": "object", "properties": {}}},
            ]
            config = {}

            for line in sys.stdin:
                line = line.strip()
                if not line:
                    continue
                request = json.loads(line)
                method = request.get("method")
                params = request.get("params") or {}
                out = {}
                if method == "activate":
                    config = params.get("config") or {}
                    out = {"tools": TOOLS}
                elif method == "configure":
                    config = params.get("config") or {}
                elif method == "execute_tool":
                    args = json.loads(params.get("input") or "{}")
                    folder = config.get("folder", "(no folder configured)")
                    if params.get("toolName") == "note_add":
                        out = {"result": "noted %s in %s" % (args.get("text", ""), folder)}
                    elif params.get("toolName") == "note_wipe":
                        with open(os.path.join(folder, "wipes.log"), "a") as f:
                            f.write("wipe\\n")
                        out = {"result": "wiped %s" % folder}
                    else:
                        out = {"error": "unknown tool"}
                if "id" in request:
                    out["id"] = request["id"]
                    sys.stdout.write(json.dumps(out) + "\\n")
                    sys.stdout.flush()
            """;

    Fixture(Path dir) throws IOException {
        this.dir = dir;
        this.jar = Path.of(System.getProperty("toolbus.jar", "../server/target/toolbus-server.jar")).toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("the toolbus runnable jar " + jar + " is missing: build the server module first");
        }
        Path plugin = Files.createDirectories(dir.resolve("plugins/notes"));
        Files.writeString(plugin.resolve("plugin.json"), """
                {"id": "notes", "description": "Notes in a folder.", "command": "python3", "args": ["-u", "notes.py"],
                 "activationTimeoutMs": 20000, "timeoutMs": 20000}
                """);
        Files.writeString(plugin.resolve("notes.py"), PLUGIN);
        notes = Files.createDirectories(dir.resolve("notes"));
        Path skill = Files.createDirectories(dir.resolve("skills/pdf"));
        Files.writeString(skill.resolve("SKILL.md"), "---\nname: pdf-tools\ndescription: Fill and merge PDF forms\n"
                + "---\nUse pdftk to merge.\n");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path servers = dir.resolve("mcp-servers.json");
        Files.writeString(servers, "{\"mcpServers\":{\"fixture\":{\"command\":\"" + json(java) + "\",\"args\":[\"-cp\",\""
                + json(jar.toString()) + "\",\"" + mcpServerMain(jar) + "\"]}}}");
        String yaml = """
                sources:
                  custom:
                    pluginDirs: ['%s']
                  mcp:
                    serversFile: '%s'
                documents:
                  paths: ['%s']
                groups:
                  - name: admin
                    description: Owner-only tools
                    tools: [draw]
                    requiredPermission: owner
                approval:
                  mode: auto
                  timeoutMs: 30000
                  high: [note_wipe]
                  bypass: [echo, add, draw, note_add, load_skill, read_tool_result]
                limits:
                  rules:
                    - name: two-adds
                      tools: [add]
                      rate: 2
                      periodMs: 3600000
                      per: user
                plugins:
                  notes:
                    config:
                      folder: '%s'
                gateway:
                  enabled: true
                  host: 127.0.0.1
                  port: 0
                  maxConnections: %d
                  headerTimeout: 60000
                  tokens:
                    - name: member
                      token: %s
                      maxPermission: member
                      streams: ['web:*']
                    - name: owner
                      token: %s
                      maxPermission: owner
                """.formatted(dir.resolve("plugins"), servers, dir.resolve("skills"), notes, MAX_CONNECTIONS,
                MEMBER_TOKEN, OWNER_TOKEN);
        config = Files.writeString(dir.resolve("toolbus.yaml"), yaml);
        // copied into application.yaml as a Spring user would: the same keys under toolbus:
        applicationYaml = Files.writeString(dir.resolve("application.yaml"), "toolbus:\n"
                + yaml.lines().map(l -> "  " + l).collect(Collectors.joining("\n")) + "\n", StandardCharsets.UTF_8);
    }

    /** The example MCP server's main class, wherever this jar's layout keeps it. */
    private static String mcpServerMain(Path jar) throws IOException {
        try (java.util.jar.JarFile j = new java.util.jar.JarFile(jar.toFile())) {
            return j.getEntry("dev/toolbus/mcp/server/McpServerMain.class") != null
                    ? "dev.toolbus.mcp.server.McpServerMain" : "dev.toolbus.mcp.McpServerMain";
        }
    }

    /** How many times the plugin's note_wipe ran. */
    long wipes() throws IOException {
        Path log = notes.resolve("wipes.log");
        return Files.exists(log) ? Files.readAllLines(log).size() : 0;
    }

    private static String json(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
