package dev.toolbus.layout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The package graph of the repository's main sources, read from the sources themselves: an edge
 * {@code a → b} for every import of a type (or static member, or wildcard) of package {@code b} and
 * every fully qualified reference to one in code, in a file of package {@code a}. Comments, string
 * and character literals are stripped first, so Javadoc links and log texts make no edge. Only
 * packages defined in the repository are nodes.
 */
final class PackageGraph {

    /** One source file: its module (folder relative to the root), package, top-level type and code. */
    record Source(String module, String pkg, String type, String raw, String code) {
    }

    /** Why {@code from} depends on {@code to}: the files (as {@code module:Type}) that make the edge. */
    record Edge(String from, String to, Set<String> files) {
    }

    private final Map<String, Source> sources;
    /** Package → the modules that define types in it. */
    private final Map<String, Set<String>> modulesOf = new TreeMap<>();
    /** from → to → files. */
    private final Map<String, Map<String, Set<String>>> edges = new TreeMap<>();

    private PackageGraph(Map<String, Source> sources) {
        this.sources = sources;
        for (Source s : sources.values()) {
            modulesOf.computeIfAbsent(s.pkg(), k -> new TreeSet<>()).add(s.module());
        }
        for (Source s : sources.values()) {
            for (String to : references(s.code())) {
                if (!to.equals(s.pkg())) {
                    edges.computeIfAbsent(s.pkg(), k -> new TreeMap<>()).computeIfAbsent(to, k -> new TreeSet<>())
                            .add(s.module() + ":" + s.type());
                }
            }
        }
    }

    /** The graph of every {@code src/main/java} tree under {@code root} (build output and node modules skipped). */
    static PackageGraph ofRepository(Path root) {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(root)) {
            walk.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> !p.toString().contains("/target/") && !p.toString().contains("/node_modules/")
                            && !p.toString().contains("/.git/"))
                    .forEach(p -> {
                        String rel = root.relativize(p).toString().replace('\\', '/');
                        if (rel.contains("/src/main/java/")) {
                            try {
                                files.put(rel, Files.readString(p, StandardCharsets.UTF_8));
                            } catch (IOException e) {
                                throw new UncheckedIOException(e);
                            }
                        }
                    });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return of(files);
    }

    /**
     * The graph of these files, by path relative to the repository root ({@code <module>/src/main/java/…}).
     */
    static PackageGraph of(Map<String, String> files) {
        Map<String, Source> out = new LinkedHashMap<>();
        files.forEach((path, raw) -> {
            int at = path.indexOf("/src/main/java/");
            String module = at < 0 ? "" : path.substring(0, at);
            String name = path.substring(path.lastIndexOf('/') + 1).replace(".java", "");
            String code = stripCommentsAndLiterals(raw);
            Matcher m = PACKAGE.matcher(code);
            String pkg = m.find() ? m.group(1) : "";
            out.put(path, new Source(module, pkg, name, raw, code));
        });
        return new PackageGraph(out);
    }

    private static final Pattern PACKAGE = Pattern.compile("\\bpackage\\s+([\\w.]+)\\s*;");
    private static final Pattern IMPORT = Pattern.compile("\\bimport\\s+(static\\s+)?([\\w.]+)(\\.\\*)?\\s*;");
    /** A dotted name starting with a lower-case identifier: a candidate fully qualified reference. */
    private static final Pattern QUALIFIED = Pattern.compile("(?<![\\w$.])([a-z_][\\w$]*(?:\\s*\\.\\s*[\\w$]+)+)");

    /** The repository packages a file's code refers to (imports and qualified names). */
    private Set<String> references(String code) {
        Set<String> out = new LinkedHashSet<>();
        Matcher im = IMPORT.matcher(code);
        StringBuilder rest = new StringBuilder();
        int last = 0;
        while (im.find()) {
            rest.append(code, last, im.start());
            last = im.end();
            String name = im.group(2);
            String pkg = im.group(3) != null ? name : longestPackagePrefix(name);
            if (pkg != null && modulesOf.containsKey(pkg)) {
                out.add(pkg);
            }
        }
        rest.append(code.substring(last));
        String body = PACKAGE.matcher(rest).replaceFirst("");
        Matcher q = QUALIFIED.matcher(body);
        while (q.find()) {
            String name = q.group(1).replaceAll("\\s+", "");
            String pkg = longestPackagePrefix(name);
            if (pkg != null) {
                out.add(pkg);
            }
        }
        return out;
    }

    /** The longest repository package that {@code name} starts with and is followed by a type name there. */
    private String longestPackagePrefix(String name) {
        String[] parts = name.split("\\.");
        String best = null;
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < parts.length - 1; i++) {
            if (i > 0) {
                sb.append('.');
            }
            sb.append(parts[i]);
            String next = parts[i + 1];
            if (modulesOf.containsKey(sb.toString()) && !next.isEmpty() && Character.isUpperCase(next.charAt(0))) {
                best = sb.toString();
            }
        }
        return best;
    }

    /** Every edge, with the files that make it. */
    List<Edge> edges() {
        List<Edge> out = new ArrayList<>();
        edges.forEach((from, tos) -> tos.forEach((to, files) -> out.add(new Edge(from, to, files))));
        return out;
    }

    /** The strongly connected components of more than one package (Tarjan), each sorted. */
    List<List<String>> cycles() {
        Tarjan t = new Tarjan();
        for (String p : modulesOf.keySet()) {
            if (!t.index.containsKey(p)) {
                t.visit(p);
            }
        }
        List<List<String>> out = new ArrayList<>();
        for (List<String> c : t.components) {
            if (c.size() > 1) {
                Collections.sort(c);
                out.add(c);
            }
        }
        return out;
    }

    /**
     * One cycle through a component, as its edges (shortest way back to the first package), each with
     * the files that make it: what to read to break it.
     */
    List<Edge> cycleThrough(List<String> component) {
        Set<String> in = new LinkedHashSet<>(component);
        String start = component.get(0);
        Map<String, String> parent = new HashMap<>();
        Deque<String> queue = new ArrayDeque<>();
        queue.add(start);
        String closing = null;
        while (!queue.isEmpty() && closing == null) {
            String p = queue.poll();
            for (String to : edges.getOrDefault(p, Map.of()).keySet()) {
                if (!in.contains(to)) {
                    continue;
                }
                if (to.equals(start)) {
                    closing = p;
                    break;
                }
                if (!parent.containsKey(to)) {
                    parent.put(to, p);
                    queue.add(to);
                }
            }
        }
        List<String> path = new ArrayList<>();
        for (String p = closing; p != null; p = p.equals(start) ? null : parent.get(p)) {
            path.add(0, p);
        }
        path.add(start);
        List<Edge> out = new ArrayList<>();
        for (int i = 0; i + 1 < path.size(); i++) {
            String from = path.get(i);
            String to = path.get(i + 1);
            out.add(new Edge(from, to, edges.get(from).get(to)));
        }
        return out;
    }

    /** Uses of a package named {@code *.internal*} from a file of another Maven module. */
    List<String> internalUsesAcrossModules() {
        List<String> out = new ArrayList<>();
        for (Source s : sources.values()) {
            for (String to : references(s.code())) {
                if (INTERNAL.matcher(to).find() && !modulesOf.get(to).contains(s.module())) {
                    out.add(s.module() + ":" + s.pkg() + "." + s.type() + " uses " + to + " (module "
                            + String.join(", ", modulesOf.get(to)) + ")");
                }
            }
        }
        return out;
    }

    private static final Pattern INTERNAL = Pattern.compile("(^|\\.)internal");

    /** Whether a package is internal by its name. */
    static boolean isInternal(String pkg) {
        return INTERNAL.matcher(pkg).find();
    }

    /** The sources of one module. */
    List<Source> sourcesOf(String module) {
        List<Source> out = new ArrayList<>();
        for (Source s : sources.values()) {
            if (s.module().equals(module)) {
                out.add(s);
            }
        }
        return out;
    }

    /** Every package with the modules that define it. */
    Map<String, Set<String>> packages() {
        return Collections.unmodifiableMap(modulesOf);
    }

    private static final Pattern TOP_LEVEL_PUBLIC = Pattern.compile(
            "^public\\s+(?:(?:final|abstract|sealed|non-sealed|strictfp|static)\\s+)*(class|interface|enum|record|@interface)\\s+(\\w+)",
            Pattern.MULTILINE);

    /**
     * The file's public top-level type, or {@code null}, with whether a Javadoc comment ({@code /**})
     * precedes its declaration (annotations between the two allowed).
     */
    static PublicType publicType(Source s) {
        // the declaration is found in the code (comments stripped keep their place as one space) and
        // looked up again in the raw text by its name
        Matcher m = TOP_LEVEL_PUBLIC.matcher(s.code());
        if (!m.find() || !m.group(2).equals(s.type())) {
            return null;
        }
        Matcher raw = Pattern.compile("^public\\s+(?:(?:final|abstract|sealed|non-sealed|strictfp|static)\\s+)*"
                + m.group(1) + "\\s+" + s.type() + "\\b", Pattern.MULTILINE).matcher(s.raw());
        if (!raw.find()) {
            return new PublicType(s.type(), false);
        }
        String before = s.raw().substring(0, raw.start()).stripTrailing();
        // skip annotations (possibly with arguments) placed before the declaration
        for (;;) {
            String t = before.stripTrailing();
            Matcher a = TRAILING_ANNOTATION.matcher(t);
            if (!a.find()) {
                break;
            }
            before = t.substring(0, a.start());
        }
        before = before.stripTrailing();
        boolean doc = false;
        if (before.endsWith("*/")) {
            int open = before.lastIndexOf("/*");
            doc = open >= 0 && before.startsWith("/**", open) && before.substring(open + 3, before.length() - 2)
                    .replaceAll("[\\s*]", "").length() > 0;
        }
        return new PublicType(s.type(), doc);
    }

    private static final Pattern TRAILING_ANNOTATION = Pattern.compile("@[\\w.]+(\\([^()]*(\\([^()]*\\)[^()]*)*\\))?$");

    /** A public top-level type and whether it has Javadoc. */
    record PublicType(String name, boolean documented) {
    }

    /** The code of a Java file without comments, string, text-block and character literals (kept in place as blanks). */
    static String stripCommentsAndLiterals(String src) {
        StringBuilder out = new StringBuilder(src.length());
        int i = 0;
        int n = src.length();
        while (i < n) {
            char c = src.charAt(i);
            if (c == '/' && i + 1 < n && src.charAt(i + 1) == '/') {
                while (i < n && src.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '/' && i + 1 < n && src.charAt(i + 1) == '*') {
                int end = src.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
                out.append(' ');
            } else if (src.startsWith("\"\"\"", i)) {
                int end = src.indexOf("\"\"\"", i + 3);
                i = end < 0 ? n : end + 3;
                out.append("\"\"");
            } else if (c == '"' || c == '\'') {
                int j = i + 1;
                while (j < n && src.charAt(j) != c && src.charAt(j) != '\n') {
                    j += src.charAt(j) == '\\' ? 2 : 1;
                }
                i = j + 1;
                out.append(c).append(c);
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    /** Tarjan's strongly connected components over the package edges. */
    private final class Tarjan {
        final Map<String, Integer> index = new HashMap<>();
        final Map<String, Integer> low = new HashMap<>();
        final Deque<String> stack = new ArrayDeque<>();
        final Set<String> onStack = new LinkedHashSet<>();
        final List<List<String>> components = new ArrayList<>();
        int next;

        void visit(String v) {
            index.put(v, next);
            low.put(v, next);
            next++;
            stack.push(v);
            onStack.add(v);
            for (String w : edges.getOrDefault(v, Map.of()).keySet()) {
                if (!index.containsKey(w)) {
                    visit(w);
                    low.put(v, Math.min(low.get(v), low.get(w)));
                } else if (onStack.contains(w)) {
                    low.put(v, Math.min(low.get(v), index.get(w)));
                }
            }
            if (low.get(v).equals(index.get(v))) {
                List<String> c = new ArrayList<>();
                String w;
                do {
                    w = stack.pop();
                    onStack.remove(w);
                    c.add(w);
                } while (!w.equals(v));
                components.add(c);
            }
        }
    }
}
