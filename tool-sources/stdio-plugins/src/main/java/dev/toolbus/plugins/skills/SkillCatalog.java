package dev.toolbus.plugins.skills;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.Json;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * Skill documents found under some folders: {@code SKILL.md} (YAML front matter, then the
 * instructions), {@code *.skill.yaml} and {@code *.skill.json}. The model sees only each skill's name
 * and description, in the description of the {@code load_skill} tool, and loads a skill's full text
 * by calling that tool with its name.
 *
 * <pre>{@code
 * SkillCatalog skills = SkillCatalog.scan(List.of(Path.of("data/skills"), Path.of(".claude/skills")),
 *         SkillLimits.defaults());
 * skills.registerInto(executor.registry());   // load_skill, as a core tool
 * }</pre>
 *
 * <p>Scanning reads every file once; the catalog then answers from memory (a call never touches the
 * disk). Files over {@link SkillLimits#maxFileBytes()}, deeper than {@link SkillLimits#maxDepth()}, or
 * that do not parse are skipped with a warning ({@link #skippedFiles()}); a second skill of a name
 * already taken is skipped too (the first path wins).
 */
public final class SkillCatalog {

    /** The tool's name. */
    public static final String TOOL_NAME = "load_skill";

    private static final Logger log = LoggerFactory.getLogger(SkillCatalog.class);

    private final List<SkillDocument> skills;
    private final Map<String, SkillDocument> byName;
    private final Map<Path, String> skipped;
    private final SkillLimits limits;

    private SkillCatalog(List<SkillDocument> skills, Map<Path, String> skipped, SkillLimits limits) {
        this.skills = List.copyOf(skills);
        Map<String, SkillDocument> m = new LinkedHashMap<>();
        skills.forEach(s -> m.put(s.name(), s));
        this.byName = Collections.unmodifiableMap(m);
        this.skipped = Collections.unmodifiableMap(new LinkedHashMap<>(skipped));
        this.limits = limits;
    }

    /**
     * Scans the folders (blocking file I/O; run it at startup). A path that does not exist is skipped
     * quietly, as the default paths usually do not all exist.
     *
     * @param paths folders (or single skill files), in priority order
     * @param limits depth, file and prompt bounds
     * @return the catalog
     */
    public static SkillCatalog scan(List<Path> paths, SkillLimits limits) {
        Objects.requireNonNull(limits, "limits");
        List<SkillDocument> found = new ArrayList<>();
        Map<Path, String> skipped = new LinkedHashMap<>();
        Set<String> names = new java.util.HashSet<>();
        for (Path root : paths) {
            if (!Files.exists(root)) {
                log.debug("skill path {} does not exist", root);
                continue;
            }
            Path realRoot;
            try {
                realRoot = root.toRealPath();
            } catch (IOException e) {
                log.warn("cannot resolve skill path {}: {}", root, e.getMessage());
                skipped.put(root, "cannot be resolved: " + e.getMessage());
                continue;
            }
            for (Path file : files(root, limits.maxDepth(), skipped)) {
                String why = null;
                try {
                    // a link (the file or a folder on its way) may not lead out of the scanned folder
                    Path real = file.toRealPath();
                    if (!real.startsWith(Files.isDirectory(realRoot) ? realRoot : realRoot.getParent())) {
                        why = "it links outside " + root + " (to " + real + ")";
                        log.warn("skill file {} is skipped: {}", file, why);
                        skipped.put(file, why);
                        continue;
                    }
                    long size = Files.size(real);
                    if (size > limits.maxFileBytes()) {
                        why = "larger than " + limits.maxFileBytes() + " bytes (" + size + ")";
                    } else {
                        SkillDocument doc = SkillFiles.parse(file, Files.readString(real, StandardCharsets.UTF_8));
                        if (!names.add(doc.name())) {
                            why = "a skill named '" + doc.name() + "' was found first";
                        } else {
                            found.add(doc);
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    why = "cannot be read: " + String.valueOf(e.getMessage()).lines().findFirst().orElse("");
                }
                if (why != null) {
                    log.warn("skill file {} is skipped: {}", file, why);
                    skipped.put(file, why);
                }
            }
        }
        log.info("found {} skills", found.size());
        return new SkillCatalog(found, skipped, limits);
    }

    /** Scans with {@link SkillLimits#defaults()}. */
    public static SkillCatalog scan(List<Path> paths) {
        return scan(paths, SkillLimits.defaults());
    }

    private static List<Path> files(Path root, int maxDepth, Map<Path, String> skipped) {
        if (Files.isRegularFile(root)) {
            return SkillFiles.isSkillFile(root) ? List.of(root) : List.of();
        }
        // depth counts folders below root; the files of the deepest folder are one level further down
        try (Stream<Path> s = Files.walk(root, maxDepth + 1)) {
            return s.filter(Files::isRegularFile).filter(SkillFiles::isSkillFile).sorted().toList();
        } catch (IOException | java.io.UncheckedIOException e) {
            log.warn("cannot scan skill path {}: {}", root, e.getMessage());
            skipped.put(root, "cannot be scanned: " + e.getMessage());
            return List.of();
        }
    }

    /** The skills, in scan order. */
    public List<SkillDocument> skills() {
        return skills;
    }

    /** Files that were skipped, with the reason. */
    public Map<Path, String> skippedFiles() {
        return skipped;
    }

    /** The limits in force. */
    public SkillLimits limits() {
        return limits;
    }

    /** The skill of this name (exact, else ignoring case), or {@code null}. */
    public SkillDocument find(String name) {
        if (name == null) {
            return null;
        }
        SkillDocument d = byName.get(name.strip());
        if (d != null) {
            return d;
        }
        for (SkillDocument s : skills) {
            if (s.name().equalsIgnoreCase(name.strip())) {
                return s;
            }
        }
        return null;
    }

    /**
     * The listing the model reads: one {@code - name: description} line per skill, cut to
     * {@link SkillLimits#maxPromptChars()} with a note naming how many skills were left out.
     */
    public String listing() {
        StringBuilder sb = new StringBuilder();
        int budget = limits.maxPromptChars();
        for (int i = 0; i < skills.size(); i++) {
            SkillDocument s = skills.get(i);
            String line = "- " + s.name() + (s.description().isEmpty() ? "" : ": " + s.description()) + "\n";
            String more = "… and " + (skills.size() - i) + " more skills not listed here\n";
            if (sb.length() + line.length() + (i + 1 < skills.size() ? more.length() : 0) > budget) {
                sb.append(more);
                break;
            }
            sb.append(line);
        }
        return sb.toString().stripTrailing();
    }

    /**
     * The full text of a skill as {@code load_skill} returns it: a {@code # name} heading, then the
     * text, cut to {@link SkillLimits#maxPromptChars()} with a note when it was longer.
     */
    public String fullText(SkillDocument skill) {
        String text = "# " + skill.name() + "\n\n" + skill.text();
        int max = limits.maxPromptChars();
        if (text.length() <= max) {
            return text;
        }
        String note = "\n\n[cut: the skill has " + text.length() + " characters; the first " + max + " are shown]";
        int keep = Math.max(0, max - note.length());
        if (keep > 0 && Character.isHighSurrogate(text.charAt(keep - 1))) {
            keep--;
        }
        return text.substring(0, keep) + note;
    }

    /**
     * The {@code load_skill} tool: its description lists the skills; called with {@code name} it returns
     * that skill's full text, or an error result naming the skills there are.
     */
    public ToolSpec loadSkillTool() {
        ObjectNode schema = Json.mapper().createObjectNode().put("type", "object");
        schema.putObject("properties").putObject("name").put("type", "string")
                .put("description", "The name of the skill to load, as listed");
        schema.putArray("required").add("name");
        String description = skills.isEmpty()
                ? "Load the full instructions of a skill document. No skills are installed."
                : "Load the full instructions of a skill document before doing a task it covers. Skills:\n" + listing();
        ToolDefinition def = ToolDefinition.builder(TOOL_NAME).description(description).inputSchema(schema)
                .metadata("source", "skills").build();
        return new ToolSpec(def, (args, ctx) -> Mono.fromSupplier(() -> load(args.string("name", ""))));
    }

    private ToolResult load(String name) {
        SkillDocument s = find(name);
        if (s == null) {
            List<String> names = skills.stream().map(SkillDocument::name).toList();
            return ToolResult.error("There is no skill named '" + name + "'."
                    + (names.isEmpty() ? " No skills are installed." : " Skills: " + String.join(", ", names)));
        }
        return ToolResult.builder().content(fullText(s)).metadata("skill", s.name())
                .metadata("path", s.path().toString()).build();
    }

    /**
     * Registers {@code load_skill} as a {@link ToolSource#CORE core} tool.
     *
     * @return this catalog
     */
    public SkillCatalog registerInto(ToolRegistry registry) {
        registry.register(loadSkillTool(), ToolSource.CORE);
        return this;
    }

    @Override
    public String toString() {
        return "SkillCatalog" + skills.stream().map(SkillDocument::name).toList();
    }
}
