package dev.toolbus.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.toolbus.executor.ExecutionSettings;
import dev.toolbus.policy.PolicyConfig;
import dev.toolbus.policy.SourceMode;
import dev.toolbus.policy.ToolPolicies;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Loads {@code toolbus.yaml}. Only an unreadable file or invalid YAML is an error
 * ({@link ConfigException}); every bad value falls back to its default with a warning, unknown keys
 * are warned about at every level, and {@code ${ENV}} / {@code ${ENV:-default}} references in string
 * values are expanded. docs/configuration.md lists every key, default and fallback.
 *
 * <pre>{@code
 * ConfigLoader.Loaded loaded = ConfigLoader.load(Path.of("toolbus.yaml"));
 * loaded.warnings().forEach(log::warn);
 * System.out.print(ConfigLoader.effectiveYaml(loaded.config()));
 * }</pre>
 */
public final class ConfigLoader {

    private static final YAMLMapper YAML = YAMLMapper.builder(YAMLFactory.builder()
                    .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                    .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                    .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
                    .build())
            .build();

    /** Parsers that resolve aliases and merge keys. */
    private static final AnchorYamlFactory PARSERS = new AnchorYamlFactory();

    private static final Set<String> TOP = Set.of("mode", "sources", "groups", "security", "tools", "execution", "bus",
            "gateway", "documents");

    private ConfigLoader() {
    }

    /**
     * A loaded config and the fallbacks applied while loading it.
     *
     * @param config the effective config
     * @param warnings one message per fallback, ignored key or problem of the rules, in file order
     * @param policyErrors the fallbacks in sections the tool policy reads ({@code mode}, {@code sources},
     *     {@code groups}, {@code security}, {@code tools}) that replaced a value of the wrong type or
     *     shape by its default: falling back there could allow what the file meant to forbid, so
     *     {@link ConfigWatcher} refuses such a file (at start and on reload) and keeps the last good one
     * @param empty whether the file held no YAML content at all (0 bytes, blanks or comments)
     */
    public record Loaded(Config config, List<String> warnings, List<String> policyErrors, boolean empty) {
        public Loaded {
            Objects.requireNonNull(config, "config");
            warnings = List.copyOf(warnings);
            policyErrors = List.copyOf(policyErrors);
        }

        /** A config loaded without policy errors. */
        public Loaded(Config config, List<String> warnings) {
            this(config, warnings, List.of(), false);
        }

        /**
         * Why this file may not replace a running config, or an empty list: its policy errors, and an
         * empty file (most often one caught mid-write; write {@code {}} to mean "all defaults").
         */
        public List<String> reloadProblems() {
            if (!empty) {
                return policyErrors;
            }
            List<String> out = new ArrayList<>(policyErrors);
            out.add(0, "the file is empty; write {} to reset every setting to its default");
            return out;
        }
    }

    /** Loads a file, expanding references from the process environment. */
    public static Loaded load(Path file) {
        return load(file, System::getenv);
    }

    /**
     * Loads a file.
     *
     * @param env looks up environment variables
     * @throws ConfigException when the file cannot be read or is not valid YAML
     */
    public static Loaded load(Path file, Function<String, String> env) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            throw new ConfigException("cannot read config file " + file + ": " + e, e);
        }
        try {
            return parse(text, env);
        } catch (ConfigException e) {
            throw new ConfigException(file + ": " + e.getMessage(), e.getCause());
        }
    }

    /**
     * Parses YAML text.
     *
     * @throws ConfigException when the text is not valid YAML
     */
    public static Loaded parse(String yaml, Function<String, String> env) {
        Reader r = new Reader(env);
        Object tree;
        boolean empty;
        try (JsonParser p = PARSERS.createParser(yaml)) {
            empty = p.nextToken() == null;
            tree = empty ? null : r.read(p, "");
        } catch (JsonProcessingException e) {
            throw new ConfigException("invalid YAML: " + e.getOriginalMessage()
                    + (e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr()
                    + ", column " + e.getLocation().getColumnNr()), e);
        } catch (IOException e) {
            throw new ConfigException("invalid YAML: " + e.getMessage(), e);
        }
        return new Loaded(r.config(tree), r.warnings, r.errors, empty);
    }

    /** The config as YAML, every key present, secrets ({@code gateway.token}, passwords in {@code bus.url}) masked. */
    public static String effectiveYaml(Config c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("mode", c.mode().wireName());
        Map<String, Object> sources = new LinkedHashMap<>();
        sources.put("builtin", map("enabled", c.sources().builtin().enabled(),
                "disabledTools", c.sources().builtin().disabledTools()));
        sources.put("custom", map("enabled", c.sources().custom().enabled(), "pluginDirs", c.sources().custom().pluginDirs(),
                "autoReload", c.sources().custom().autoReload(), "disabledTools", c.sources().custom().disabledTools()));
        sources.put("mcp", map("enabled", c.sources().mcp().enabled(), "serversFile", c.sources().mcp().serversFile(),
                "servers", c.sources().mcp().servers(), "disabledServers", c.sources().mcp().disabledServers(),
                "disabledTools", c.sources().mcp().disabledTools()));
        m.put("sources", sources);
        List<Object> groups = new ArrayList<>();
        for (PolicyConfig.Group g : c.groups()) {
            groups.add(map("name", g.name(), "description", g.description(), "tools", g.tools(), "enabled", g.enabled(),
                    "requiredPermission", g.requiredPermission()));
        }
        m.put("groups", groups);
        m.put("security", map("dangerousTools", c.security().dangerousTools(),
                "allowDangerous", c.security().allowDangerous(),
                "dangerousRequiredPermission", c.security().dangerousRequiredPermission()));
        Map<String, Object> tools = new LinkedHashMap<>(rules(new PolicyConfig.Rules(c.tools().allow(),
                c.tools().alsoAllow(), c.tools().deny(), c.tools().profile()), true));
        Map<String, Object> profiles = new TreeMap<>();
        c.tools().profiles().forEach((k, v) -> profiles.put(k, rules(v, false)));
        tools.put("profiles", profiles);
        Map<String, Object> byProvider = new TreeMap<>();
        c.tools().byProvider().forEach((k, v) -> byProvider.put(k, rules(v, true)));
        tools.put("byProvider", byProvider);
        Map<String, Object> agents = new TreeMap<>();
        c.tools().agents().forEach((id, a) -> {
            Map<String, Object> am = new LinkedHashMap<>(rules(a.rules(), true));
            Map<String, Object> ab = new TreeMap<>();
            a.byProvider().forEach((k, v) -> ab.put(k, rules(v, true)));
            am.put("byProvider", ab);
            agents.put(id, am);
        });
        tools.put("agents", agents);
        PolicyConfig.Search s = c.tools().search();
        tools.put("search", map("requireDiscovery", s.requireDiscovery(), "discoveryTtl", s.discoveryTtl().toMillis(),
                "maxStreams", s.maxStreams(), "maxResults", s.maxResults()));
        m.put("tools", tools);
        ExecutionSettings e = c.execution();
        Map<String, Object> ex = map("timeout", e.timeout().toMillis(), "maxParallel", e.maxParallel(),
                "retryOnError", e.retryOnError(), "maxRetries", e.maxRetries(), "cacheResults", e.cacheResults(),
                "cacheTTL", e.cacheTtl().toMillis());
        ex.putAll(map("cacheMaxEntries", e.cacheMaxEntries(), "locale", e.locale().name().toLowerCase(Locale.ROOT),
                "maxMediaBytes", e.maxMediaBytes(), "maxQueuedCalls", e.maxQueuedCalls()));
        ex.putAll(map("cacheMaxBytes", e.cacheMaxBytes(), "cacheMaxKeyBytes", e.cacheMaxKeyBytes(),
                "cacheMaxResultBytes", e.cacheMaxResultBytes(), "maxCallsPerTurn", e.maxCallsPerTurn()));
        m.put("execution", ex);
        Config.Bus b = c.bus();
        Map<String, Object> bus = map("type", b.type(), "url", maskUrl(b.url()), "calls", b.calls(), "results", b.results());
        bus.putAll(map("deadLetter", b.deadLetter(), "group", b.group(), "consumer", b.consumer()));
        m.put("bus", bus);
        Config.Gateway g = c.gateway();
        Map<String, Object> gw = map("enabled", g.enabled(), "host", g.host(), "port", g.port(),
                "token", g.token().isEmpty() ? "" : "***");
        gw.putAll(map("maxRequestBytes", g.maxRequestBytes(), "maxOutboundEvents", g.maxOutboundEvents()));
        m.put("gateway", gw);
        Config.Documents d = c.documents();
        Map<String, Object> docs = map("enabled", d.enabled(), "mode", d.mode(), "paths", d.paths(),
                "maxDepth", d.maxDepth());
        docs.putAll(map("maxFileBytes", d.maxFileBytes(), "maxPromptChars", d.maxPromptChars()));
        m.put("documents", docs);
        try {
            return YAML.writeValueAsString(m);
        } catch (JsonProcessingException ex2) {
            throw new IllegalStateException(ex2);
        }
    }

    private static Map<String, Object> rules(PolicyConfig.Rules r, boolean withProfile) {
        Map<String, Object> m = map("allow", r.allow(), "alsoAllow", r.alsoAllow(), "deny", r.deny());
        if (withProfile) {
            m.put("profile", r.profile() == null ? "" : r.profile());
        }
        return m;
    }

    private static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1] == null ? "" : kv[i + 1]);
        }
        return m;
    }

    static String maskUrl(String url) {
        return url.replaceAll("(://[^:/@]*:)[^@/]+@", "$1***@");
    }

    // ---- reading with fallbacks -------------------------------------------------------------------

    /** Where a message goes: a plain warning or a fallback. */
    @FunctionalInterface
    interface Warn {
        void emit(String path, String message);
    }

    /** Reads a plain tree (maps, lists, strings, numbers, booleans, nulls) into a Config. */
    static final class Reader {
        final List<String> warnings = new ArrayList<>();
        final List<String> errors = new ArrayList<>();
        private final Function<String, String> env;
        /** Whether the section being read is one the tool policy reads (fallbacks there are errors). */
        boolean policy;

        Reader(Function<String, String> env) {
            this.env = env;
        }

        void warn(String path, String message) {
            warnings.add(path + ": " + message);
        }

        /** A value of the wrong type or shape replaced by its default: an error in a policy section. */
        void fallback(String path, String message) {
            warn(path, message);
            if (policy) {
                errors.add(path + ": " + message);
            }
        }

        /**
         * The YAML document as plain Java values (maps, lists, strings, numbers, booleans, nulls),
         * expanding ${ENV} in strings. Floats are read from their text, so {@code .nan} or
         * {@code .inf} stay strings and fall back later like any other non-number; a duplicate key is
         * warned about and its last value used.
         */
        Object read(JsonParser p, String path) throws IOException {
            JsonToken t = p.currentToken();
            switch (t) {
                case START_OBJECT -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String key = p.currentName();
                        String kp = join(path, key);
                        p.nextToken();
                        Object v = read(p, kp);
                        if (m.containsKey(key)) {
                            warn(kp, "is given twice; the last value is used");
                            m.remove(key);
                        }
                        m.put(key, v);
                    }
                    return m;
                }
                case START_ARRAY -> {
                    List<Object> l = new ArrayList<>();
                    int i = 0;
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        l.add(read(p, path + "[" + i++ + "]"));
                    }
                    return l;
                }
                case VALUE_STRING -> {
                    return Env.expand(p.getText(), env, path, warnings);
                }
                case VALUE_NUMBER_INT -> {
                    return p.getNumberValue();
                }
                case VALUE_NUMBER_FLOAT -> {
                    String text = p.getText();
                    try {
                        double d = Double.parseDouble(text);
                        return Double.isNaN(d) || Double.isInfinite(d) ? text : d;
                    } catch (NumberFormatException e) {
                        return text;
                    }
                }
                case VALUE_TRUE -> {
                    return Boolean.TRUE;
                }
                case VALUE_FALSE -> {
                    return Boolean.FALSE;
                }
                case VALUE_NULL -> {
                    return null;
                }
                default -> {
                    return p.getText();
                }
            }
        }

        static String join(String path, String key) {
            return path.isEmpty() ? key : path + "." + key;
        }

        /** A nested mapping; {@code known == null} when its keys are names (profiles, agents) rather than settings. */
        @SuppressWarnings("unchecked")
        Map<String, Object> section(Map<String, Object> parent, String key, String path, Set<String> known) {
            Object v = parent.get(key);
            String p = join(path, key);
            if (v == null) {
                if (parent.containsKey(key)) {
                    warn(p, "is empty; using the defaults");
                }
                return Map.of();
            }
            if (!(v instanceof Map)) {
                fallback(p, "must be a mapping, got " + describe(v) + "; using the defaults");
                return Map.of();
            }
            Map<String, Object> m = (Map<String, Object>) v;
            if (known != null) {
                unknown(m, p, known);
            }
            return m;
        }

        void unknown(Map<String, Object> m, String path, Set<String> known) {
            for (String k : m.keySet()) {
                if (!known.contains(k)) {
                    warn(join(path, k), "is not a known setting; ignored");
                }
            }
        }

        static String describe(Object v) {
            if (v instanceof Map) {
                return "a mapping";
            }
            if (v instanceof List) {
                return "a list";
            }
            if (v instanceof String s) {
                return "'" + s + "'";
            }
            return String.valueOf(v);
        }

        boolean bool(Map<String, Object> m, String key, String path, boolean def) {
            if (!m.containsKey(key)) {
                return def;
            }
            Object v = m.get(key);
            if (v instanceof Boolean b) {
                return b;
            }
            if (v instanceof String s) {
                String t = s.strip().toLowerCase(Locale.ROOT);
                if (t.equals("true") || t.equals("false")) {
                    return t.equals("true");
                }
            }
            fallback(join(path, key), describe(v) + " is not true or false; using " + def);
            return def;
        }

        String string(Map<String, Object> m, String key, String path, String def) {
            if (!m.containsKey(key)) {
                return def;
            }
            Object v = m.get(key);
            if (v instanceof String s) {
                return s;
            }
            if (v instanceof Number || v instanceof Boolean) {
                return String.valueOf(v);
            }
            (v == null ? (Warn) this::warn : (Warn) this::fallback).emit(join(path, key),
                    (v == null ? "is empty" : describe(v) + " is not a string") + "; using "
                    + (def == null || def.isEmpty() ? "none" : "'" + def + "'"));
            return def;
        }

        String choice(Map<String, Object> m, String key, String path, List<String> allowed, String def) {
            String s = string(m, key, path, def);
            if (s == null) {
                return def;
            }
            String t = s.strip().toLowerCase(Locale.ROOT);
            if (!allowed.contains(t)) {
                fallback(join(path, key), "'" + s + "' is not one of " + String.join(", ", allowed) + "; using " + def);
                return def;
            }
            return t;
        }

        /** An integer in [min, max]: below → min, above → max (warned); not an integer → default (warned). */
        long integer(Map<String, Object> m, String key, String path, long def, long min, long max) {
            if (!m.containsKey(key)) {
                return def;
            }
            Object v = m.get(key);
            Double d = null;
            if (v instanceof Number n) {
                d = n.doubleValue();
            } else if (v instanceof String s && !s.isBlank()) {
                try {
                    d = Double.parseDouble(s.strip());
                } catch (NumberFormatException e) {
                    d = null;
                }
            }
            String p = join(path, key);
            if (d == null || d.isNaN() || d.isInfinite() || d != Math.rint(d)) {
                (v == null ? (Warn) this::warn : (Warn) this::fallback).emit(p,
                        (v == null ? "is empty" : describe(v) + " is not an integer") + "; using " + def);
                return def;
            }
            if (d < min) {
                warn(p, fmt(d) + " is below " + min + "; using " + min);
                return min;
            }
            if (d > max) {
                warn(p, fmt(d) + " is above " + max + "; using " + max);
                return max;
            }
            return d.longValue();
        }

        private static String fmt(double d) {
            return Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
        }

        /** A list of strings; a single scalar is read as a one-element list (warned). */
        List<String> strings(Map<String, Object> m, String key, String path, List<String> def) {
            if (!m.containsKey(key)) {
                return def;
            }
            Object v = m.get(key);
            String p = join(path, key);
            if (v == null) {
                warn(p, "is empty; using " + (def.isEmpty() ? "an empty list" : def));
                return def;
            }
            if (v instanceof String || v instanceof Number || v instanceof Boolean) {
                String s = String.valueOf(v);
                warn(p, "should be a list; read as [" + s + "]");
                return s.isBlank() ? List.of() : List.of(s.strip());
            }
            if (!(v instanceof List<?> l)) {
                fallback(p, "must be a list, got " + describe(v) + "; using " + (def.isEmpty() ? "an empty list" : def));
                return def;
            }
            List<String> out = new ArrayList<>();
            for (int i = 0; i < l.size(); i++) {
                Object e = l.get(i);
                if (e instanceof String || e instanceof Number || e instanceof Boolean) {
                    String s = String.valueOf(e).strip();
                    if (!s.isEmpty()) {
                        out.add(s);
                    }
                } else {
                    (e == null ? (Warn) this::warn : (Warn) this::fallback).emit(p + "[" + i + "]",
                            (e == null ? "is empty" : describe(e) + " is not a string") + "; skipped");
                }
            }
            return out;
        }

        @SuppressWarnings("unchecked")
        Config config(Object tree) {
            if (tree == null) {
                return Config.defaults();
            }
            if (!(tree instanceof Map)) {
                warn("(root)", "the file must hold a mapping, got " + describe(tree) + "; using the defaults");
                errors.add("(root): the file must hold a mapping, got " + describe(tree));
                return Config.defaults();
            }
            Map<String, Object> root = (Map<String, Object>) tree;
            if (root.size() == 1 && root.get("skills") instanceof Map) {
                warn("skills", "read as the top level (ChatAI skills.yaml layout)");
                root = (Map<String, Object>) root.get("skills");
                Map<String, Object> copy = new LinkedHashMap<>(root);
                for (String k : List.of("enabled", "dispatch")) {
                    if (copy.remove(k) != null) {
                        warn("skills." + k, "is a ChatAI setting toolbus does not have; ignored");
                    }
                }
                root = copy;
            }
            unknown(root, "", TOP);
            policy = true;
            SourceMode mode = SourceMode.HYBRID;
            if (root.containsKey("mode")) {
                String s = string(root, "mode", "", "hybrid");
                mode = SourceMode.parse(s);
                if (mode == null) {
                    fallback("mode", "'" + s + "' is not hybrid, skills-only or mcp-only; using hybrid");
                    mode = SourceMode.HYBRID;
                }
            }
            Config.Sources sources = sources(root);
            List<PolicyConfig.Group> groups = groups(root);
            PolicyConfig.Security security = security(root);
            Config.Tools tools = tools(root);
            policy = false;
            ExecutionSettings execution = execution(root);
            Config.Bus bus = bus(root);
            Config.Gateway gateway = gateway(root);
            Config.Documents documents = documents(root);
            Config c = new Config(mode, sources, groups, security, tools, execution, bus, gateway, documents);
            for (String w : ToolPolicies.check(c.policy())) {
                warnings.add(w);
            }
            return c;
        }

        private Config.Sources sources(Map<String, Object> root) {
            Map<String, Object> s = section(root, "sources", "", Set.of("builtin", "custom", "mcp"));
            Map<String, Object> b = section(s, "builtin", "sources", Set.of("enabled", "disabledTools"));
            Map<String, Object> c = section(s, "custom", "sources",
                    Set.of("enabled", "pluginDirs", "path", "autoReload", "disabledTools"));
            Map<String, Object> m = section(s, "mcp", "sources",
                    Set.of("enabled", "serversFile", "servers", "disabledServers", "disabledTools"));
            Config.Builtin builtin = new Config.Builtin(bool(b, "enabled", "sources.builtin", true),
                    strings(b, "disabledTools", "sources.builtin", List.of()));
            List<String> dirs = Config.Custom.DEFAULTS.pluginDirs();
            if (c.containsKey("pluginDirs")) {
                dirs = strings(c, "pluginDirs", "sources.custom", dirs);
                if (c.containsKey("path")) {
                    warn("sources.custom.path", "is ignored because pluginDirs is set");
                }
            } else if (c.containsKey("path")) {
                String p = string(c, "path", "sources.custom", null);
                dirs = p == null || p.isBlank() ? dirs : List.of(p);
            }
            Config.Custom custom = new Config.Custom(bool(c, "enabled", "sources.custom", true), dirs,
                    bool(c, "autoReload", "sources.custom", true), strings(c, "disabledTools", "sources.custom", List.of()));
            String file = string(m, "serversFile", "sources.mcp", Config.Mcp.DEFAULTS.serversFile());
            if (file == null || file.isBlank()) {
                file = Config.Mcp.DEFAULTS.serversFile();
            }
            Config.Mcp mcp = new Config.Mcp(bool(m, "enabled", "sources.mcp", true), file,
                    strings(m, "servers", "sources.mcp", List.of()), strings(m, "disabledServers", "sources.mcp", List.of()),
                    strings(m, "disabledTools", "sources.mcp", List.of()));
            return new Config.Sources(builtin, custom, mcp);
        }

        @SuppressWarnings("unchecked")
        private List<PolicyConfig.Group> groups(Map<String, Object> root) {
            if (!root.containsKey("groups")) {
                return List.of();
            }
            Object v = root.get("groups");
            if (!(v instanceof List<?> list)) {
                (v == null ? (Warn) this::warn : (Warn) this::fallback).emit("groups",
                        (v == null ? "is empty" : "must be a list, got " + describe(v)) + "; no groups");
                return List.of();
            }
            List<PolicyConfig.Group> out = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                String p = "groups[" + i + "]";
                if (!(list.get(i) instanceof Map)) {
                    fallback(p, "must be a mapping, got " + describe(list.get(i)) + "; skipped");
                    continue;
                }
                Map<String, Object> g = (Map<String, Object>) list.get(i);
                unknown(g, p, Set.of("index", "name", "description", "tools", "enabled", "requiredPermission"));
                String name = string(g, "name", p, null);
                if (name == null || name.isBlank()) {
                    name = "#" + i;
                    warn(p, "has no name; called '" + name + "' (group:" + name + " cannot be referenced)");
                }
                if (g.containsKey("index")) {
                    integer(g, "index", p, 0, Long.MIN_VALUE / 2, Long.MAX_VALUE / 2);
                }
                List<String> tools = strings(g, "tools", p, List.of());
                String req = string(g, "requiredPermission", p, null);
                out.add(new PolicyConfig.Group(name, string(g, "description", p, ""), tools,
                        bool(g, "enabled", p, true), req));
            }
            return out;
        }

        private PolicyConfig.Security security(Map<String, Object> root) {
            Map<String, Object> s = section(root, "security", "",
                    Set.of("dangerousTools", "allowDangerous", "dangerousRequiredPermission"));
            PolicyConfig.Security d = PolicyConfig.Security.DEFAULTS;
            return new PolicyConfig.Security(strings(s, "dangerousTools", "security", d.dangerousTools()),
                    bool(s, "allowDangerous", "security", false),
                    string(s, "dangerousRequiredPermission", "security", "admin"));
        }

        private static final Set<String> RULE_KEYS = Set.of("allow", "alsoAllow", "deny", "profile");

        private PolicyConfig.Rules rules(Map<String, Object> m, String path, boolean profileAllowed) {
            String profile = null;
            if (m.containsKey("profile")) {
                if (profileAllowed) {
                    profile = string(m, "profile", path, null);
                } else {
                    warn(join(path, "profile"), "a profile cannot select another profile; ignored");
                }
            }
            return new PolicyConfig.Rules(strings(m, "allow", path, List.of()), strings(m, "alsoAllow", path, List.of()),
                    strings(m, "deny", path, List.of()), profile);
        }

        @SuppressWarnings("unchecked")
        private Map<String, PolicyConfig.Rules> rulesMap(Map<String, Object> parent, String key, String path,
                                                         boolean profileAllowed, boolean lowerKeys) {
            Map<String, Object> m = section(parent, key, path, null);
            Map<String, PolicyConfig.Rules> out = new LinkedHashMap<>();
            m.forEach((name, v) -> {
                String p = join(join(path, key), name);
                if (!(v instanceof Map)) {
                    (v == null ? (Warn) this::warn : (Warn) this::fallback).emit(p,
                            (v == null ? "is empty" : "must be a mapping, got " + describe(v)) + "; ignored");
                    return;
                }
                Map<String, Object> r = (Map<String, Object>) v;
                unknown(r, p, RULE_KEYS);
                String k = lowerKeys ? name.strip().toLowerCase(Locale.ROOT) : name;
                if (out.putIfAbsent(k, rules(r, p, profileAllowed)) != null) {
                    warn(p, "duplicates '" + k + "' (keys are case-insensitive); ignored");
                }
            });
            return out;
        }

        @SuppressWarnings("unchecked")
        private Config.Tools tools(Map<String, Object> root) {
            Map<String, Object> t = section(root, "tools", "", Set.of("allow", "alsoAllow", "deny", "profile", "profiles",
                    "byProvider", "agents", "search"));
            PolicyConfig.Rules global = rules(t, "tools", true);
            Map<String, PolicyConfig.Rules> profiles = rulesMap(t, "profiles", "tools", false, false);
            Map<String, PolicyConfig.Rules> byProvider = rulesMap(t, "byProvider", "tools", true, true);
            Map<String, Object> a = section(t, "agents", "tools", null);
            Map<String, PolicyConfig.AgentRules> agents = new LinkedHashMap<>();
            a.forEach((id, v) -> {
                String p = "tools.agents." + id;
                if (!(v instanceof Map)) {
                    (v == null ? (Warn) this::warn : (Warn) this::fallback).emit(p,
                            (v == null ? "is empty" : "must be a mapping, got " + describe(v)) + "; ignored");
                    return;
                }
                Map<String, Object> am = (Map<String, Object>) v;
                unknown(am, p, Set.of("allow", "alsoAllow", "deny", "profile", "byProvider"));
                String key = id.strip().toLowerCase(Locale.ROOT);
                if (agents.putIfAbsent(key, new PolicyConfig.AgentRules(rules(am, p, true),
                        rulesMap(am, "byProvider", p, true, true))) != null) {
                    fallback(p, "duplicates '" + key + "' (agent ids are case-insensitive); ignored");
                }
            });
            Map<String, Object> s = section(t, "search", "tools",
                    Set.of("requireDiscovery", "discoveryTtl", "maxStreams", "maxResults"));
            PolicyConfig.Search d = PolicyConfig.Search.DEFAULTS;
            PolicyConfig.Search search = new PolicyConfig.Search(bool(s, "requireDiscovery", "tools.search", true),
                    Duration.ofMillis(integer(s, "discoveryTtl", "tools.search", d.discoveryTtl().toMillis(), 1_000,
                            7L * 24 * 3600 * 1000)),
                    (int) integer(s, "maxStreams", "tools.search", d.maxStreams(), 1, 10_000_000),
                    (int) integer(s, "maxResults", "tools.search", d.maxResults(), 1, 50));
            return new Config.Tools(global.allow(), global.alsoAllow(), global.deny(), global.profile(), profiles,
                    byProvider, agents, search);
        }

        private ExecutionSettings execution(Map<String, Object> root) {
            Object v = root.get("execution");
            if (v == null) {
                if (root.containsKey("execution")) {
                    warn("execution", "is empty; using the defaults");
                }
                return ExecutionSettings.defaults();
            }
            if (!(v instanceof Map<?, ?> m)) {
                warn("execution", "must be a mapping, got " + describe(v) + "; using the defaults");
                return ExecutionSettings.defaults();
            }
            Map<String, Object> raw = new LinkedHashMap<>();
            m.forEach((k, x) -> raw.put(String.valueOf(k), x));
            ExecutionSettings s = ExecutionSettings.fromMap(raw);
            for (String w : s.warnings()) {
                warnings.add(w.startsWith("execution.") ? w : "execution." + w);
            }
            return s;
        }

        private Config.Bus bus(Map<String, Object> root) {
            Map<String, Object> b = section(root, "bus", "",
                    Set.of("type", "url", "calls", "results", "deadLetter", "group", "consumer"));
            String type = choice(b, "type", "bus", Config.Bus.TYPES, "in-memory");
            Config.Bus d = Config.Bus.defaults(type);
            return new Config.Bus(type, nonBlank(string(b, "url", "bus", d.url()), d.url()),
                    nonBlank(string(b, "calls", "bus", d.calls()), d.calls()),
                    nonBlank(string(b, "results", "bus", d.results()), d.results()),
                    nonBlank(string(b, "deadLetter", "bus", d.deadLetter()), d.deadLetter()),
                    nonBlank(string(b, "group", "bus", d.group()), d.group()),
                    Objects.requireNonNullElse(string(b, "consumer", "bus", ""), ""));
        }

        private static String nonBlank(String v, String def) {
            return v == null || v.isBlank() ? def : v.strip();
        }

        private Config.Gateway gateway(Map<String, Object> root) {
            Map<String, Object> g = section(root, "gateway", "",
                    Set.of("enabled", "host", "port", "token", "maxRequestBytes", "maxOutboundEvents"));
            Config.Gateway d = Config.Gateway.DEFAULTS;
            Config.Gateway gw = new Config.Gateway(bool(g, "enabled", "gateway", true),
                    nonBlank(string(g, "host", "gateway", d.host()), d.host()),
                    (int) integer(g, "port", "gateway", d.port(), 0, 65_535),
                    Objects.requireNonNullElse(string(g, "token", "gateway", ""), "").strip(),
                    integer(g, "maxRequestBytes", "gateway", d.maxRequestBytes(), 1024, 64L * 1024 * 1024),
                    (int) integer(g, "maxOutboundEvents", "gateway", d.maxOutboundEvents(), 16, 1_000_000));
            if (gw.enabled() && !gw.loopback() && gw.token().isEmpty()) {
                warn("gateway.token", "is empty but gateway.host " + gw.host()
                        + " is not loopback; the gateway refuses to start without a token");
            }
            return gw;
        }

        private Config.Documents documents(Map<String, Object> root) {
            Map<String, Object> m = section(root, "documents", "",
                    Set.of("enabled", "mode", "paths", "maxDepth", "maxFileBytes", "maxPromptChars"));
            Config.Documents d = Config.Documents.DEFAULTS;
            List<String> paths = d.paths();
            if (m.containsKey("paths")) {
                Object v = m.get("paths");
                if (v instanceof List) {
                    paths = strings(m, "paths", "documents", d.paths());
                } else {
                    warn("documents.paths", (v == null ? "is empty" : "must be a list, got " + describe(v))
                            + "; using the default paths");
                }
            }
            return new Config.Documents(bool(m, "enabled", "documents", true),
                    choice(m, "mode", "documents", Config.Documents.MODES, "auto"), paths,
                    (int) lowFallback(m, "maxDepth", 0, d.maxDepth(), 64),
                    lowFallback(m, "maxFileBytes", 1024, 1024, 64L * 1024 * 1024),
                    (int) lowFallback(m, "maxPromptChars", 1000, 1000, 10_000_000));
        }

        /** ChatAI's documents rules: below {@code min} → {@code below}; not an integer → default. */
        private long lowFallback(Map<String, Object> m, String key, long min, long below, long max) {
            long def = switch (key) {
                case "maxDepth" -> Config.Documents.DEFAULTS.maxDepth();
                case "maxFileBytes" -> Config.Documents.DEFAULTS.maxFileBytes();
                default -> Config.Documents.DEFAULTS.maxPromptChars();
            };
            long v = integer(m, key, "documents", def, Long.MIN_VALUE / 2, max);
            if (v < min) {
                warn("documents." + key, v + " is below " + min + "; using " + below);
                return below;
            }
            return v;
        }
    }
}
