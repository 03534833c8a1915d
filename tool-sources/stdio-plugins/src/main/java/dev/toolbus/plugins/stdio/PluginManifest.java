package dev.toolbus.plugins.stdio;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.protocol.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A stdio plugin's {@code plugin.json}. Only {@code command} is required; unknown keys (a version, a
 * description, …) are ignored.
 *
 * <pre>{@code
 * {
 *   "id": "weather",                 // default: the folder name
 *   "command": "python3",            // a program on PATH, or a path relative to the folder
 *   "args": ["-u", "main.py"],
 *   "env": {"WEATHER_UNITS": "metric"},
 *   "inheritEnv": ["WEATHER_API_KEY"], // host variables passed on (besides PATH, HOME, LANG, LC_*, TMPDIR)
 *   "activationTimeoutMs": 10000,    // how long "activate" may take
 *   "timeoutMs": 30000,              // per-call timeout of its tools (default: the executor's)
 *   "optional": false,               // an optional plugin that fails to start is skipped
 *   "channels": ["web"],             // limit its tools to these channels
 *   "concurrent": false,             // true: several calls in flight, answered by id
 *   "maxLineBytes": 1048576,         // longest line accepted from the plugin
 *   "stopGraceMs": 2000,             // after "deactivate", how long before the kill
 *   "restartBackoffMs": 200,         // first restart delay after a failure, doubled per failure
 *   "restartBackoffMaxMs": 30000,    // cap of that delay
 *   "cancelGraceMs": 2000,           // after "cancel", how long the call may take to answer before the kill
 *   "stderrBytesPerSecond": 65536,   // stderr logged per second; the rest is dropped and counted
 *   "stderrLineBytes": 4096          // a longer stderr line is cut
 * }
 * }</pre>
 *
 * @param id the plugin id (letters, digits, {@code _ . -})
 * @param directory the plugin's folder; the process runs there
 * @param command the program
 * @param args its arguments
 * @param env environment variables set for the process
 * @param activationTimeout the bound on {@code activate}
 * @param callTimeout the per-call timeout of the plugin's tools, or {@code null} for the executor's
 * @param optional whether a failure to start skips the plugin instead of failing the host
 * @param channels the channels its tools are limited to; empty for all
 * @param concurrent whether the plugin takes several calls at once and answers each by its id
 * @param maxLineBytes the longest line accepted from the plugin, in bytes
 * @param stopGrace how long a stopping plugin may take to exit after {@code deactivate}
 * @param restartBackoff the first restart delay after a failure
 * @param restartBackoffMax the cap of the restart delay
 * @param inheritEnv names of host environment variables passed on to the process; only these, the
 *     variables of {@link PluginEnvironment#BASE}, {@code LC_*} and {@code env} reach it
 * @param cancelGrace how long a cancelled call may take to be answered before the process is killed
 * @param stderrBytesPerSecond the stderr bytes logged per second (a burst of as much is allowed);
 *     lines beyond it are dropped and counted
 * @param stderrLineBytes the longest stderr line logged; longer lines are cut
 */
public record PluginManifest(
        String id,
        Path directory,
        String command,
        List<String> args,
        Map<String, String> env,
        Duration activationTimeout,
        Duration callTimeout,
        boolean optional,
        Set<String> channels,
        boolean concurrent,
        int maxLineBytes,
        Duration stopGrace,
        Duration restartBackoff,
        Duration restartBackoffMax,
        List<String> inheritEnv,
        Duration cancelGrace,
        int stderrBytesPerSecond,
        int stderrLineBytes) {

    /** The manifest's file name. */
    public static final String FILE_NAME = "plugin.json";
    /** Default {@code activationTimeoutMs}. */
    public static final Duration DEFAULT_ACTIVATION_TIMEOUT = Duration.ofSeconds(10);
    /** Default {@code maxLineBytes}: 1 MiB. */
    public static final int DEFAULT_MAX_LINE_BYTES = 1 << 20;
    /** Smallest accepted {@code maxLineBytes}. */
    public static final int MIN_MAX_LINE_BYTES = 256;
    /** Default {@code stopGraceMs}. */
    public static final Duration DEFAULT_STOP_GRACE = Duration.ofSeconds(2);
    /** Default {@code restartBackoffMs}. */
    public static final Duration DEFAULT_RESTART_BACKOFF = Duration.ofMillis(200);
    /** Default {@code restartBackoffMaxMs}. */
    public static final Duration DEFAULT_RESTART_BACKOFF_MAX = Duration.ofSeconds(30);
    /** Default {@code cancelGraceMs}. */
    public static final Duration DEFAULT_CANCEL_GRACE = Duration.ofSeconds(2);
    /** Default {@code stderrBytesPerSecond}: 64 KiB. */
    public static final int DEFAULT_STDERR_BYTES_PER_SECOND = 64 * 1024;
    /** Default {@code stderrLineBytes}: 4 KiB. */
    public static final int DEFAULT_STDERR_LINE_BYTES = 4096;
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    public PluginManifest {
        Objects.requireNonNull(id, "id");
        if (!ID.matcher(id).matches()) {
            throw new IllegalArgumentException("plugin id must be 1-64 letters, digits, _ . - but was '" + id + "'");
        }
        Objects.requireNonNull(directory, "directory");
        if (command == null || command.isBlank()) {
            throw new IllegalArgumentException("plugin '" + id + "': command is required");
        }
        args = List.copyOf(args);
        env = Collections.unmodifiableMap(new LinkedHashMap<>(env));
        requirePositive(id, "activationTimeoutMs", activationTimeout);
        if (callTimeout != null) {
            requirePositive(id, "timeoutMs", callTimeout);
        }
        channels = Collections.unmodifiableSet(new LinkedHashSet<>(channels));
        if (maxLineBytes < MIN_MAX_LINE_BYTES) {
            throw new IllegalArgumentException("plugin '" + id + "': maxLineBytes must be at least "
                    + MIN_MAX_LINE_BYTES + " but was " + maxLineBytes);
        }
        requireNotNegative(id, "stopGraceMs", stopGrace);
        requireNotNegative(id, "restartBackoffMs", restartBackoff);
        requireNotNegative(id, "restartBackoffMaxMs", restartBackoffMax);
        inheritEnv = List.copyOf(inheritEnv);
        for (String name : inheritEnv) {
            if (!ENV_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("plugin '" + id + "': inheritEnv names must be variable names but one was '"
                        + name + "'");
            }
        }
        requireNotNegative(id, "cancelGraceMs", cancelGrace);
        if (stderrBytesPerSecond < 1) {
            throw new IllegalArgumentException("plugin '" + id + "': stderrBytesPerSecond must be positive");
        }
        if (stderrLineBytes < 80) {
            throw new IllegalArgumentException("plugin '" + id + "': stderrLineBytes must be at least 80 but was "
                    + stderrLineBytes);
        }
    }

    /** The manifest without the keys added in the second release (they take their defaults). */
    public PluginManifest(String id, Path directory, String command, List<String> args, Map<String, String> env,
                          Duration activationTimeout, Duration callTimeout, boolean optional, Set<String> channels,
                          boolean concurrent, int maxLineBytes, Duration stopGrace, Duration restartBackoff,
                          Duration restartBackoffMax) {
        this(id, directory, command, args, env, activationTimeout, callTimeout, optional, channels, concurrent,
                maxLineBytes, stopGrace, restartBackoff, restartBackoffMax, List.of(), DEFAULT_CANCEL_GRACE,
                DEFAULT_STDERR_BYTES_PER_SECOND, DEFAULT_STDERR_LINE_BYTES);
    }

    /**
     * Reads {@code plugin.json} from a plugin folder.
     *
     * @param directory the plugin's folder
     * @return the manifest
     * @throws IllegalArgumentException when the file is missing, not JSON, or has invalid values; the
     *     message names the file and the key
     */
    public static PluginManifest read(Path directory) {
        Path file = directory.resolve(FILE_NAME);
        JsonNode root;
        try {
            root = Json.mapper().readTree(Files.readAllBytes(file));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(file + " is not valid JSON: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e, e);
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException(file + " must hold a JSON object");
        }
        try {
            return parse(root, directory.toAbsolutePath().normalize());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    /** Whether {@code plugin.json} says {@code "optional": true}, read leniently (for a manifest that failed). */
    static boolean saysOptional(Path directory) {
        try {
            return Json.mapper().readTree(Files.readAllBytes(directory.resolve(FILE_NAME))).path("optional").asBoolean(false);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    static PluginManifest parse(JsonNode root, Path directory) {
        String id = text(root, "id", directory.getFileName() == null ? "plugin" : directory.getFileName().toString());
        return new PluginManifest(
                id,
                directory,
                text(root, "command", null),
                strings(root, "args"),
                env(root),
                millis(root, "activationTimeoutMs", DEFAULT_ACTIVATION_TIMEOUT),
                millis(root, "timeoutMs", null),
                bool(root, "optional"),
                new LinkedHashSet<>(strings(root, "channels")),
                bool(root, "concurrent"),
                (int) number(root, "maxLineBytes", DEFAULT_MAX_LINE_BYTES),
                millis(root, "stopGraceMs", DEFAULT_STOP_GRACE),
                millis(root, "restartBackoffMs", DEFAULT_RESTART_BACKOFF),
                millis(root, "restartBackoffMaxMs", DEFAULT_RESTART_BACKOFF_MAX),
                strings(root, "inheritEnv"),
                millis(root, "cancelGraceMs", DEFAULT_CANCEL_GRACE),
                (int) number(root, "stderrBytesPerSecond", DEFAULT_STDERR_BYTES_PER_SECOND),
                (int) number(root, "stderrLineBytes", DEFAULT_STDERR_LINE_BYTES));
    }

    /** The command line: the command (resolved against the folder when it is a relative path) and the args. */
    List<String> commandLine() {
        List<String> cmd = new ArrayList<>(args.size() + 1);
        boolean isPath = command.contains("/") || command.contains("\\");
        cmd.add(isPath && !Path.of(command).isAbsolute() ? directory.resolve(command).normalize().toString() : command);
        cmd.addAll(args);
        return cmd;
    }

    private static String text(JsonNode root, String key, String fallback) {
        JsonNode v = root.get(key);
        if (v == null || v.isNull()) {
            return fallback;
        }
        if (!v.isTextual()) {
            throw new IllegalArgumentException("'" + key + "' must be a string");
        }
        return v.textValue();
    }

    private static boolean bool(JsonNode root, String key) {
        JsonNode v = root.get(key);
        if (v == null || v.isNull()) {
            return false;
        }
        if (!v.isBoolean()) {
            throw new IllegalArgumentException("'" + key + "' must be true or false");
        }
        return v.booleanValue();
    }

    private static long number(JsonNode root, String key, long fallback) {
        JsonNode v = root.get(key);
        if (v == null || v.isNull()) {
            return fallback;
        }
        if (!v.canConvertToLong() || !v.isIntegralNumber() || v.longValue() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("'" + key + "' must be a whole number");
        }
        return v.longValue();
    }

    private static Duration millis(JsonNode root, String key, Duration fallback) {
        JsonNode v = root.get(key);
        return v == null || v.isNull() ? fallback : Duration.ofMillis(number(root, key, 0));
    }

    private static List<String> strings(JsonNode root, String key) {
        JsonNode v = root.get(key);
        if (v == null || v.isNull()) {
            return List.of();
        }
        if (!v.isArray()) {
            throw new IllegalArgumentException("'" + key + "' must be an array of strings");
        }
        List<String> out = new ArrayList<>();
        for (JsonNode e : v) {
            if (!e.isTextual()) {
                throw new IllegalArgumentException("'" + key + "' must be an array of strings");
            }
            out.add(e.textValue());
        }
        return out;
    }

    private static Map<String, String> env(JsonNode root) {
        JsonNode config = root.get("config");
        Map<String, String> declared = declaredEnv(root);
        if (config == null || !config.isObject() || declared.containsKey("TOOLBUS_PLUGIN_CONFIG")) {
            return declared;
        }
        // the manifest's own config, for a plugin that toolbus.yaml gives none (docs/plugins.md §3.6)
        Map<String, String> out = new LinkedHashMap<>(declared);
        out.put("TOOLBUS_PLUGIN_CONFIG", config.toString());
        return out;
    }

    private static Map<String, String> declaredEnv(JsonNode root) {
        JsonNode v = root.get("env");
        if (v == null || v.isNull()) {
            return Map.of();
        }
        if (!v.isObject()) {
            throw new IllegalArgumentException("'env' must be an object of strings");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode value = e.getValue();
            if (!value.isValueNode() || value.isNull()) {
                throw new IllegalArgumentException("'env." + e.getKey() + "' must be a string");
            }
            out.put(e.getKey(), value.asText());
        }
        return out;
    }

    private static void requirePositive(String id, String key, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("plugin '" + id + "': " + key + " must be positive");
        }
    }

    private static void requireNotNegative(String id, String key, Duration d) {
        if (d == null || d.isNegative()) {
            throw new IllegalArgumentException("plugin '" + id + "': " + key + " must not be negative");
        }
    }
}
