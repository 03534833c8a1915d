package dev.toolbus.spring;

import dev.toolbus.config.ConfigLoader;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * The {@code toolbus.*} properties of an application as a tree of plain values (maps, lists,
 * scalars), the shape a {@code toolbus.yaml} file parses to, for {@link ConfigLoader#fromProperties}
 * to read. Names are taken as the property sources spell them ({@code max-parallel},
 * {@code maxParallel}, {@code TOOLBUS_EXECUTION_MAXPARALLEL}); the config module matches them to its
 * keys. Indexed names ({@code deny[0]}) become lists. Property sources are read in Spring's order:
 * the first one to give a name wins, a list comes whole from the first source that gives any of its
 * elements, maps merge. String values have their {@code ${...}} placeholders resolved.
 *
 * <p>Environment variables are read only below the sections of {@code toolbus.yaml} (and the
 * starter's own keys): {@code TOOLBUS_TOKEN} or {@code TOOLBUS_URL} belong to the command-line tools
 * and are not config. Unknown names from any other source reach the config module, which warns about
 * them.
 */
final class PropertyTree {

    /** The starter's own keys under {@code toolbus}, not part of toolbus.yaml. */
    static final Set<String> STARTER_KEYS = Set.of("enabled", "shutdowntimeout");

    private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("toolbus");

    private PropertyTree() {
    }

    /** The tree below {@code toolbus}, without the starter's own keys. */
    static Map<String, Object> read(Environment environment) {
        Map<String, Object> tree = new LinkedHashMap<>();
        Set<ConfigurationPropertyName> seen = new HashSet<>();
        Map<Object, Integer> listOwner = new IdentityHashMap<>();
        int index = 0;
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            index++;
            if (!(source instanceof IterableConfigurationPropertySource iterable)) {
                continue;
            }
            boolean environmentVariables = source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource;
            List<ConfigurationPropertyName> names = iterable.stream().filter(ROOT::isAncestorOf).toList();
            for (ConfigurationPropertyName name : names) {
                String top = relaxed(name.getElement(1, ConfigurationPropertyName.Form.ORIGINAL));
                if (STARTER_KEYS.contains(top)) {
                    continue;
                }
                if (environmentVariables && !isSection(top)) {
                    continue;
                }
                if (seen.contains(name)) {
                    continue;
                }
                ConfigurationProperty p = source.getConfigurationProperty(name);
                if (p == null) {
                    continue;
                }
                Object value = p.getValue();
                if (value instanceof String s && s.contains("${")) {
                    value = environment.resolvePlaceholders(s);
                }
                if (put(tree, name, value, index, listOwner)) {
                    seen.add(name);
                }
            }
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> plain = (Map<String, Object>) plain(tree);
        return plain;
    }

    private static boolean isSection(String relaxedTop) {
        for (String s : ConfigLoader.SECTIONS) {
            if (relaxed(s).equals(relaxedTop)) {
                return true;
            }
        }
        return false;
    }

    private static String relaxed(String key) {
        return key.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
    }

    /**
     * Puts the value at the name's place; false when a source read earlier holds that place in another
     * shape (a value where this name needs a container, or a list of its own).
     */
    @SuppressWarnings("unchecked")
    private static boolean put(Map<String, Object> tree, ConfigurationPropertyName name, Object value, int source,
                               Map<Object, Integer> listOwner) {
        Object node = tree;
        int n = name.getNumberOfElements();
        for (int i = 1; i < n; i++) {
            Object key = key(name, i);
            boolean last = i == n - 1;
            Object child = get(node, key);
            if (last) {
                if (child != null) {
                    return false;
                }
                return set(node, key, value);
            }
            boolean list = name.isNumericIndex(i + 1);
            if (child == null) {
                child = list ? new TreeMap<Integer, Object>() : new LinkedHashMap<String, Object>();
                if (list) {
                    listOwner.put(child, source);
                }
                if (!set(node, key, child)) {
                    return false;
                }
            } else if (list != child instanceof TreeMap || !(child instanceof Map)) {
                return false;
            }
            if (list && listOwner.get(child) != source) {
                return false;
            }
            node = child;
        }
        return false;
    }

    private static Object key(ConfigurationPropertyName name, int i) {
        return name.isNumericIndex(i) ? (Object) Integer.valueOf(name.getElement(i, ConfigurationPropertyName.Form.ORIGINAL))
                : name.getElement(i, ConfigurationPropertyName.Form.ORIGINAL);
    }

    @SuppressWarnings("unchecked")
    private static Object get(Object node, Object key) {
        if (node instanceof TreeMap<?, ?> list) {
            return key instanceof Integer ? ((TreeMap<Integer, Object>) list).get(key) : null;
        }
        return ((Map<String, Object>) node).get(String.valueOf(key));
    }

    @SuppressWarnings("unchecked")
    private static boolean set(Object node, Object key, Object value) {
        if (node instanceof TreeMap<?, ?> list) {
            if (!(key instanceof Integer i)) {
                return false;
            }
            ((TreeMap<Integer, Object>) list).put(i, value);
            return true;
        }
        ((Map<String, Object>) node).put(String.valueOf(key), value);
        return true;
    }

    /** Lists built as index maps become lists (a missing index: null, which the config module reports). */
    @SuppressWarnings("unchecked")
    private static Object plain(Object v) {
        if (v instanceof TreeMap<?, ?> indexed) {
            int size = indexed.isEmpty() ? 0 : ((TreeMap<Integer, Object>) indexed).lastKey() + 1;
            List<Object> out = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                out.add(plain(((TreeMap<Integer, Object>) indexed).get(i)));
            }
            return out;
        }
        if (v instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            ((Map<String, Object>) m).forEach((k, x) -> out.put(k, plain(x)));
            return out;
        }
        return v;
    }
}
