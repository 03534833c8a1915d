package dev.toolbus.plugins.skills;

import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
    public static final String TOOL_NAME = dev.toolbus.tool.BuiltInTools.LOAD_SKILL;

    private static final Logger log = LoggerFactory.getLogger(SkillCatalog.class);

    private final List<SkillDocument> skills;
    private final Map<String, SkillDocument> byName;
    private final Map<Path, String> skipped;
    private final SkillLimits limits;

    SkillCatalog(List<SkillDocument> skills, Map<Path, String> skipped, SkillLimits limits) {
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
        SkillCatalog c = SkillScan.run(paths, limits, null);
        log.info("found {} skills", c.skills().size());
        return c;
    }

    /**
     * Scans again after a change: like {@link #scan(List, SkillLimits)}, but a file that now cannot be
     * used (malformed, too large, binary) keeps the skill this catalog read from it, with a reason in
     * {@link #skippedFiles()}.
     */
    public SkillCatalog rescan(List<Path> paths) {
        return SkillScan.run(paths, limits, this);
    }

    /** Scans with {@link SkillLimits#defaults()}. */
    public static SkillCatalog scan(List<Path> paths) {
        return scan(paths, SkillLimits.defaults());
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
        return PromptCut.cut(skill.fullText(), limits.maxPromptChars()).text();
    }

    /**
     * The {@code load_skill} tool: its description lists the skills; called with {@code name} it returns
     * that skill's full text, or an error result naming the skills there are.
     */
    public ToolSpec loadSkillTool() {
        return SkillTool.spec(() -> this, (stream, name) -> { });
    }

    /** What {@code load_skill} answers for this name: the skill's text, or an error naming the skills there are. */
    ToolResult load(String name) {
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
