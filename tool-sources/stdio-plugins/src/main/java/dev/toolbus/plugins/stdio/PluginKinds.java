package dev.toolbus.plugins.stdio;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.protocol.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Tells what kind of plugin a folder holds, checking in this order: {@code plugin.json} (its
 * {@code "runtime"}, default {@code stdio}); {@code openclaw.plugin.json} or a {@code package.json}
 * with an {@code openclaw} key; a {@code plugin.py} defining {@code create_plugin()}; any {@code *.js}
 * or {@code *.mjs} file. A folder with none of these is not a plugin.
 */
final class PluginKinds {

    static final String OPENCLAW_MANIFEST = "openclaw.plugin.json";
    private static final Pattern CREATE_PLUGIN = Pattern.compile("(?m)^def\\s+create_plugin\\s*\\(");
    /** plugin.py is read to find create_plugin(); a larger file is not taken for a MaiBot plugin. */
    private static final long MAX_PLUGIN_PY_BYTES = 4L << 20;

    private PluginKinds() {
    }

    /**
     * The kind of a folder, or empty when it is not a plugin.
     *
     * @throws IllegalArgumentException when {@code plugin.json} names an unknown runtime or is unreadable
     */
    static Optional<PluginKind> detect(Path folder) {
        Path manifest = folder.resolve(PluginManifest.FILE_NAME);
        if (Files.isRegularFile(manifest)) {
            JsonNode runtime = readJson(manifest).path("runtime");
            return Optional.of(runtime.isTextual() ? PluginKind.ofRuntime(runtime.textValue()) : PluginKind.STDIO);
        }
        if (Files.isRegularFile(folder.resolve(OPENCLAW_MANIFEST))) {
            return Optional.of(PluginKind.OPENCLAW);
        }
        Path pkg = folder.resolve("package.json");
        if (Files.isRegularFile(pkg) && jsonOrEmpty(pkg).has("openclaw")) {
            return Optional.of(PluginKind.OPENCLAW);
        }
        if (definesCreatePlugin(folder.resolve("plugin.py"))) {
            return Optional.of(PluginKind.MAIBOT);
        }
        if (hasScripts(folder)) {
            return Optional.of(PluginKind.CHATAI);
        }
        return Optional.empty();
    }

    /**
     * The manifest that runs a folder: its {@code plugin.json} for a stdio plugin, the host's for a
     * framework plugin; empty when the folder is not a plugin.
     *
     * @throws IllegalArgumentException when a manifest is invalid
     */
    static Optional<PluginManifest> manifest(Path folder) {
        return detect(folder).map(kind -> kind == PluginKind.STDIO ? PluginManifest.read(folder)
                : HostManifests.manifest(folder, kind));
    }

    static JsonNode readJson(Path file) {
        try {
            JsonNode n = Json.mapper().readTree(Files.readAllBytes(file));
            if (n == null || !n.isObject()) {
                throw new IllegalArgumentException(file + " must hold a JSON object");
            }
            return n;
        } catch (IOException e) {
            throw new IllegalArgumentException(file + " is not readable JSON: " + e.getMessage(), e);
        }
    }

    /** The file's JSON object, or an empty object when it is missing or invalid (its host reports that). */
    static JsonNode jsonOrEmpty(Path file) {
        try {
            return readJson(file);
        } catch (IllegalArgumentException e) {
            return Json.mapper().createObjectNode();
        }
    }

    private static boolean definesCreatePlugin(Path file) {
        try {
            return Files.isRegularFile(file) && Files.size(file) <= MAX_PLUGIN_PY_BYTES
                    && CREATE_PLUGIN.matcher(Files.readString(file)).find();
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static boolean hasScripts(Path folder) {
        try (Stream<Path> s = Files.list(folder)) {
            return s.anyMatch(p -> Files.isRegularFile(p) && isScript(p.getFileName().toString()));
        } catch (IOException e) {
            return false;
        }
    }

    static boolean isScript(String name) {
        return name.endsWith(".js") || name.endsWith(".mjs");
    }
}
