package dev.toolbus.plugins.stdio;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.Json;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The manifest that runs a framework plugin folder under its toolbus host (tool-sources/hosts): the
 * host program, the folder as its argument, concurrent calls, and the keys of the folder's own
 * {@code plugin.json} when it has one (timeouts, optional, channels, env …). Its {@code config}
 * object reaches the plugin as the JSON of {@code TOOLBUS_PLUGIN_CONFIG}. Framework plugins are
 * {@code optional} unless that {@code plugin.json} says otherwise: one that fails to start is skipped
 * with a warning rather than failing the load.
 *
 * <p>The hosts folder is {@code -Dtoolbus.hosts}, else {@code $TOOLBUS_HOSTS}, else
 * {@code tool-sources/hosts} of {@code $TOOLBUS_ROOT}, else the first {@code tool-sources/hosts} found
 * walking up from where this class was loaded (the server jar or the build folder of a clone), else
 * from the working directory.
 */
final class HostManifests {

    static final String HOSTS_PROPERTY = "toolbus.hosts";
    private static final String HOSTS_RELATIVE = "tool-sources/hosts";

    private HostManifests() {
    }

    /**
     * The manifest of a framework plugin.
     *
     * @param folder the plugin folder
     * @param kind its kind, not {@link PluginKind#STDIO}
     * @throws IllegalArgumentException when the hosts cannot be found or a value is invalid
     */
    static PluginManifest manifest(Path folder, PluginKind kind) {
        Path dir = folder.toAbsolutePath().normalize();
        Path hosts = hostsDir();
        ObjectNode root = Files.isRegularFile(dir.resolve(PluginManifest.FILE_NAME))
                ? ((ObjectNode) PluginKinds.readJson(dir.resolve(PluginManifest.FILE_NAME))).deepCopy()
                : Json.mapper().createObjectNode();
        if (!root.has("id")) {
            root.put("id", pluginId(dir, kind));
        }
        List<String> args = new ArrayList<>();
        switch (kind) {
            case MAIBOT -> {
                root.put("command", "python3");
                args.add("-u");
                args.add(hosts.resolve("maibot/host.py").toString());
            }
            case OPENCLAW -> {
                root.put("command", "node");
                args.add("--import");
                args.add(hosts.resolve("node/register-shims.mjs").toUri().toString());
                args.add(hosts.resolve("openclaw/host.mjs").toString());
            }
            case CHATAI -> {
                root.put("command", "node");
                args.add("--experimental-detect-module");
                args.add("--no-warnings");
                args.add(hosts.resolve("chatai/host.mjs").toString());
            }
            case STDIO -> throw new IllegalArgumentException("a stdio plugin brings its own command");
        }
        args.add(dir.toString());
        ArrayNode a = root.putArray("args");
        args.forEach(a::add);
        root.put("concurrent", true);
        if (!root.has("optional")) {
            // a framework plugin has no manifest of ours to say it is required: a bad one is skipped
            root.put("optional", true);
        }
        JsonNode config = root.remove("config");
        if (config != null && config.isObject()) {
            ObjectNode env = root.path("env").isObject() ? (ObjectNode) root.get("env") : root.putObject("env");
            env.put("TOOLBUS_PLUGIN_CONFIG", config.toString());
        }
        return PluginManifest.parse(root, dir);
    }

    /** The id from the framework's own manifest, else the folder name; made a valid plugin id. */
    static String pluginId(Path dir, PluginKind kind) {
        String id = null;
        if (kind == PluginKind.OPENCLAW) {
            JsonNode claw = PluginKinds.jsonOrEmpty(dir.resolve(PluginKinds.OPENCLAW_MANIFEST));
            JsonNode pkg = PluginKinds.jsonOrEmpty(dir.resolve("package.json"));
            id = firstText(claw.path("id"), pkg.path("openclaw").path("id"), pkg.path("name"));
        } else if (kind == PluginKind.MAIBOT) {
            JsonNode mai = PluginKinds.jsonOrEmpty(dir.resolve("_manifest.json"));
            id = firstText(mai.path("id"), mai.path("name"));
        }
        if (id == null || id.isBlank()) {
            id = dir.getFileName() == null ? "plugin" : dir.getFileName().toString();
        }
        String clean = id.replaceFirst("^@", "").replaceAll("[^A-Za-z0-9_.-]", "-");
        return clean.length() > 64 ? clean.substring(0, 64) : clean;
    }

    private static String firstText(JsonNode... nodes) {
        for (JsonNode n : nodes) {
            if (n.isTextual() && !n.textValue().isBlank()) {
                return n.textValue();
            }
        }
        return null;
    }

    /** The folder holding the hosts (maibot/, openclaw/, chatai/, node/, python/). */
    static Path hostsDir() {
        String configured = System.getProperty(HOSTS_PROPERTY);
        if (configured == null || configured.isBlank()) {
            configured = System.getenv("TOOLBUS_HOSTS");
        }
        if (configured != null && !configured.isBlank()) {
            return requireHosts(Path.of(configured));
        }
        String root = System.getenv("TOOLBUS_ROOT");
        if (root != null && !root.isBlank() && Files.isDirectory(Path.of(root).resolve(HOSTS_RELATIVE))) {
            return Path.of(root).resolve(HOSTS_RELATIVE).toAbsolutePath().normalize();
        }
        for (Path start : new Path[] {codeLocation(), Path.of("").toAbsolutePath()}) {
            for (Path d = start; d != null; d = d.getParent()) {
                if (Files.isDirectory(d.resolve(HOSTS_RELATIVE).resolve("maibot"))) {
                    return d.resolve(HOSTS_RELATIVE).normalize();
                }
            }
        }
        throw new IllegalArgumentException("the plugin hosts (" + HOSTS_RELATIVE + ") were not found: set -D"
                + HOSTS_PROPERTY + " or TOOLBUS_HOSTS to that folder of a toolbus checkout");
    }

    private static Path requireHosts(Path p) {
        if (!Files.isDirectory(p.resolve("maibot"))) {
            throw new IllegalArgumentException(p + " is not the toolbus plugin hosts folder (" + HOSTS_RELATIVE + ")");
        }
        return p.toAbsolutePath().normalize();
    }

    private static Path codeLocation() {
        try {
            var source = HostManifests.class.getProtectionDomain().getCodeSource();
            return source == null ? null : Path.of(source.getLocation().toURI()).toAbsolutePath();
        } catch (URISyntaxException | RuntimeException e) {
            return null;
        }
    }
}
