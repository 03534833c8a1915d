package dev.toolbus.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.policy.PolicyConfig;
import dev.toolbus.policy.SourceMode;
import dev.toolbus.policy.ToolPolicies;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
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


    /** Parsers that resolve aliases and merge keys. */
    private static final AnchorYamlFactory PARSERS = new AnchorYamlFactory();

    /** The top-level keys of {@code toolbus.yaml}, one per section. */
    public static final Set<String> SECTIONS = Set.of("mode", "sources", "groups", "security", "tools", "execution",
            "bus", "gateway", "documents", ApprovalSection.KEY, "dispatch", LimitsSection.KEY, "plugins",
            RulesSection.KEY);

    private ConfigLoader() {
    }

    /**
     * A loaded config and the fallbacks applied while loading it.
     *
     * @param config the effective config
     * @param warnings one message per fallback, ignored key or problem of the rules, in file order
     * @param policyErrors the fallbacks in sections the tool policy reads ({@code mode}, {@code sources},
     *     {@code groups}, {@code security}, {@code tools}) that replaced a value of the wrong type or
     *     shape by its default, and every problem of {@code rules} (a rule that cannot be read or does
     *     not compile): falling back there could allow what the file meant to forbid, so
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

    /**
     * Reads a tree of plain values (maps with string keys, lists, strings, numbers, booleans, nulls)
     * as a {@code toolbus.yaml} document whose keys may be written in any relaxed form, as Spring Boot
     * properties and environment variables spell them: {@code maxParallel}, {@code max-parallel},
     * {@code max_parallel} and {@code maxparallel} all read as {@code maxParallel}. A setting given as
     * a string where a list is expected is split at commas ({@code deny: exec,shell}); a blank string
     * where a mapping or list is expected reads as empty (how Spring flattens {@code {}} and
     * {@code []}). Names chosen by the user (profiles, agents, plugin ids, provider keys, trigger
     * names, plugin configs) are kept as given. Values are taken as they are: no {@code ${ENV}}
     * expansion (the caller's property resolution has done it). Everything else is read exactly as
     * {@link #parse} reads a file: the same fallbacks, the same warnings, unknown keys warned about.
     *
     * <pre>{@code
     * Map<String, Object> tree = Map.of("execution", Map.of("max-parallel", "8"),
     *         "tools", Map.of("deny", "exec,shell"));
     * ConfigLoader.Loaded loaded = ConfigLoader.fromProperties(tree);
     * }</pre>
     */
    public static Loaded fromProperties(Map<String, ?> tree) {
        Objects.requireNonNull(tree, "tree");
        Reader r = new Reader(name -> null, true);
        return new Loaded(r.config(plain(tree)), r.warnings, r.errors, false);
    }

    /** A mutable copy with string keys, so that reading may rename keys. */
    @SuppressWarnings("unchecked")
    private static Object plain(Object v) {
        if (v instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            ((Map<Object, Object>) m).forEach((k, x) -> out.put(String.valueOf(k), plain(x)));
            return out;
        }
        if (v instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            l.forEach(x -> out.add(plain(x)));
            return out;
        }
        return v;
    }

    /** The config as YAML, every key present, secrets ({@code gateway.token}, passwords in {@code bus.url}) masked. */
    public static String effectiveYaml(Config c) {
        return EffectiveYaml.of(c);
    }

    static String maskUrl(String url) {
        return EffectiveYaml.maskUrl(url);
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
        /** Whether keys may be written in relaxed forms ({@link #fromProperties}). */
        final boolean relaxed;
        /** Whether the section being read is one the tool policy reads (fallbacks there are errors). */
        boolean policy;

        Reader(Function<String, String> env) {
            this(env, false);
        }

        Reader(Function<String, String> env, boolean relaxed) {
            this.env = env;
            this.relaxed = relaxed;
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
            if (relaxed && v instanceof String s && s.isBlank()) {
                return Map.of();
            }
            if (!(v instanceof Map)) {
                fallback(p, "must be a mapping, got " + describe(v) + "; using the defaults");
                return Map.of();
            }
            Map<String, Object> m = (Map<String, Object>) v;
            return known == null ? m : keys(m, p, known);
        }

        /**
         * The mapping of settings {@code m} with each key that is not one of {@code known} warned about;
         * when keys are relaxed, a key spelt in another form of a known key ({@code max-parallel},
         * {@code maxparallel}) is first renamed to it.
         */
        Map<String, Object> keys(Map<String, Object> m, String path, Set<String> known) {
            Map<String, Object> out = m;
            if (relaxed) {
                out = new LinkedHashMap<>();
                for (Map.Entry<String, Object> e : m.entrySet()) {
                    String k = canonical(e.getKey(), known);
                    if (out.containsKey(k)) {
                        warn(join(path, k), "is given twice (as " + e.getKey() + " too); the last value is used");
                    }
                    out.put(k, e.getValue());
                }
            }
            for (String k : out.keySet()) {
                if (!known.contains(k)) {
                    warn(join(path, k), "is not a known setting; ignored");
                }
            }
            return out;
        }

        /** The known key that {@code key} spells in a relaxed form, else {@code key}. */
        static String canonical(String key, Set<String> known) {
            if (known.contains(key)) {
                return key;
            }
            String n = relaxedForm(key);
            for (String k : known) {
                if (relaxedForm(k).equals(n)) {
                    return k;
                }
            }
            return key;
        }

        /** Lower case without dashes and underscores: what relaxed spellings of one key share. */
        static String relaxedForm(String key) {
            StringBuilder sb = new StringBuilder(key.length());
            for (int i = 0; i < key.length(); i++) {
                char c = key.charAt(i);
                if (c != '-' && c != '_') {
                    sb.append(Character.toLowerCase(c));
                }
            }
            return sb.toString();
        }

        /** A list given as one string ({@code a,b}) when keys are relaxed, else the value. */
        Object listValue(Object v) {
            if (relaxed && v instanceof String s) {
                List<String> out = new ArrayList<>();
                for (String part : s.split(",")) {
                    if (!part.isBlank()) {
                        out.add(part.strip());
                    }
                }
                return out;
            }
            return v;
        }

        static String nonBlank(String v, String def) {
            return v == null || v.isBlank() ? def : v.strip();
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
            Double d = LooseNumbers.number(v);
            String p = join(path, key);
            if (d == null || d != Math.rint(d)) {
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
            Object v = listValue(m.get(key));
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
                for (String k : List.of("enabled")) {
                    if (copy.remove(k) != null) {
                        warn("skills." + k, "is a ChatAI setting toolbus does not have; ignored");
                    }
                }
                root = copy;
            }
            root = keys(root, "", SECTIONS);
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
            Config.Sources sources = SourcesSection.read(this, root);
            List<PolicyConfig.Group> groups = GroupsSection.read(this, root);
            PolicyConfig.Security security = SecuritySection.read(this, root);
            Config.Tools tools = ToolsSection.read(this, root);
            dev.toolbus.rules.RuleSet rules = RulesSection.read(this, root, groups);
            policy = false;
            ExecutionSettings execution = ExecutionSection.read(this, root);
            Config.Bus bus = BusSection.read(this, root);
            Config.Gateway gateway = GatewaySection.read(this, root);
            Config.Documents documents = DocumentsSection.read(this, root);
            ApprovalSettings approval = ApprovalSection.read(this, root, security.dangerousTools());
            Config.Dispatch dispatch = DispatchSection.read(this, root);
            Config.Plugins plugins = PluginsSection.read(this, root);
            Config c = new Config(mode, sources, groups, security, tools, execution, bus, gateway, documents, approval,
                    dispatch, LimitsSection.read(this, root), plugins, rules);
            for (String w : ToolPolicies.check(c.policy())) {
                warnings.add(w);
            }
            return c;
        }

    }
}
